"""Converted once, cached by content under .wikitui/text/, and citations of pages (DESIGN §9).

The cache is a rebuildable cache: a damaged entry is converted again. raw/ is
never written, whatever is read.
"""

from __future__ import annotations

import sys

import pytest

from tests.core import formats_samples as samples
from wikitui.core.base.errors import UnsafePath
from wikitui.core.vault.formats import dispatch, office, resolve_citation, source_text
from wikitui.core.vault.formats.cache import TextCache, file_digest
from wikitui.core.vault.formats.citations import page_line, parse_citation
from wikitui.core.vault.layout import Vault


@pytest.fixture
def vault(tmp_path):
    root = tmp_path / "vault"
    (root / "raw").mkdir(parents=True)
    (root / "wiki").mkdir()
    (root / ".wikitui").mkdir()
    return Vault.open(root)


@pytest.fixture
def conversions(monkeypatch):
    """Counts the real conversions (cache misses) per file name."""
    counts: dict[str, int] = {}
    real = dispatch.convert_file

    def counting(path, kind=None):
        counts[path.name] = counts.get(path.name, 0) + 1
        return real(path, kind)

    monkeypatch.setattr(dispatch, "convert_file", counting)
    return counts


def entries(vault) -> list:
    folder = vault.state_dir / "text"
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.exists() else []


def test_a_source_is_converted_once_then_read_from_the_cache(vault, conversions):
    samples.make_pdf(vault.raw_dir / "paper.pdf")
    first = source_text(vault, "raw/paper.pdf")
    second = source_text(vault, "raw/paper.pdf")
    assert conversions == {"paper.pdf": 1}
    assert second == first and second.ok and "[page 3]" in second.text
    [entry] = entries(vault)
    assert entry.name.startswith(file_digest(vault.raw_dir / "paper.pdf"))


def test_a_changed_source_is_converted_again(vault, conversions):
    samples.make_pdf(vault.raw_dir / "paper.pdf", pages=("Old words",))
    assert "Old words" in source_text(vault, "raw/paper.pdf").text
    samples.make_pdf(vault.raw_dir / "paper.pdf", pages=("New words",))
    assert "New words" in source_text(vault, "raw/paper.pdf").text
    assert conversions == {"paper.pdf": 2}


def test_two_copies_of_one_file_share_a_cache_entry(vault, conversions):
    data = samples.make_pdf(vault.raw_dir / "a.pdf").read_bytes()
    (vault.raw_dir / "b.pdf").write_bytes(data)
    assert source_text(vault, "raw/a.pdf") == source_text(vault, "raw/b.pdf")
    assert sum(conversions.values()) == 1


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "wrong-version", "header-only"])
def test_a_damaged_cache_entry_is_converted_again_and_rewritten(vault, conversions, damage):
    samples.make_pdf(vault.raw_dir / "paper.pdf")
    good = source_text(vault, "raw/paper.pdf")
    [entry] = entries(vault)
    data = entry.read_bytes()
    head, _, body = data.partition(b"\n")
    entry.write_bytes({
        "truncate": data[: len(data) - 40],
        "flip": head + b"\n" + body.replace(b"Attention", b"Attenti0n"),
        "garbage": b"\xff\xfe not json at all \x00",
        "empty": b"",
        "wrong-version": head.replace(b'"version": 1', b'"version": 0') + b"\n" + body,
        "header-only": head,
    }[damage])
    again = source_text(vault, "raw/paper.pdf")
    assert again == good
    assert conversions == {"paper.pdf": 2}
    assert entry.read_bytes() == data  # rewritten whole
    source_text(vault, "raw/paper.pdf")
    assert conversions == {"paper.pdf": 2}


def test_failures_are_cached_but_a_missing_library_is_not(vault, conversions, monkeypatch):
    samples.make_encrypted_pdf(vault.raw_dir / "locked.pdf")
    for _ in range(2):
        assert "encrypted" in source_text(vault, "raw/locked.pdf").error
    assert conversions["locked.pdf"] == 1  # a 50 MB locked PDF is not parsed at every search
    samples.make_docx(vault.raw_dir / "report.docx")
    monkeypatch.setattr(office, "_converter", None)
    monkeypatch.setitem(sys.modules, "markitdown", None)
    assert "wikitui[documents]" in source_text(vault, "raw/report.docx").error
    monkeypatch.delitem(sys.modules, "markitdown")  # the user installs the extra
    conv = source_text(vault, "raw/report.docx")
    assert conv.ok and "Quarterly field report" in conv.text


def test_a_cache_that_cannot_be_written_still_gives_the_text(vault, monkeypatch):
    samples.make_pdf(vault.raw_dir / "paper.pdf")
    (vault.state_dir / "text").write_text("a file where the folder should be")
    conv = source_text(vault, "raw/paper.pdf")
    assert conv.ok and "[page 1]" in conv.text


def test_reading_every_kind_never_writes_raw(vault):
    raw = vault.raw_dir
    samples.make_pdf(raw / "paper.pdf")
    samples.make_scanned_pdf(raw / "scan.pdf")
    samples.make_encrypted_pdf(raw / "locked.pdf")
    samples.make_docx(raw / "report.docx")
    samples.make_pptx(raw / "talk.pptx")
    samples.make_xlsx(raw / "data.xlsx")
    samples.make_png(raw / "assets-pic.png")
    (raw / "news.html").write_text(samples.NEWS_ARTICLE)
    (raw / "t.csv").write_text("a,b\n1,2\n")
    (raw / "d.json").write_text('{"a": 1}')
    (raw / "broken.pdf").write_bytes(b"%PDF-1.4 broken")

    def state():
        return {p.name: (p.read_bytes(), p.stat().st_mtime_ns, p.stat().st_mode) for p in raw.iterdir()}

    before = state()
    for name in sorted(before):
        source_text(vault, f"raw/{name}")
        source_text(vault, f"raw/{name}")
    assert state() == before  # no file added, changed, touched or re-moded
    assert all(p.parent == vault.state_dir / "text" for p in entries(vault))


@pytest.mark.parametrize("rel", ["../outside.pdf", "/etc/passwd", ".wikitui/text/x", "raw/../../x.pdf", ""])
def test_only_files_inside_the_vault_are_read(vault, rel):
    with pytest.raises(UnsafePath):
        source_text(vault, rel)


def test_a_symlink_out_of_the_vault_is_not_read(vault, tmp_path):
    outside = samples.make_pdf(tmp_path / "secret.pdf")
    (vault.raw_dir / "link.pdf").symlink_to(outside)
    with pytest.raises(UnsafePath):
        source_text(vault, "raw/link.pdf")


# ------------------------------------------------------------ citations
def test_a_pdf_page_citation_resolves_to_its_marker_line(vault):
    samples.make_pdf(vault.raw_dir / "paper.pdf")
    text = source_text(vault, "raw/paper.pdf").text.splitlines()
    for ref, page in (("raw/paper.pdf#page=3", 3), ("[[raw/paper.pdf#page=2|the paper]]", 2),
                      ("![[raw/paper.pdf#page=1]]", 1)):
        cite = resolve_citation(vault, ref)
        assert (cite.path, cite.page, cite.problem) == ("raw/paper.pdf", page, None)
        assert text[cite.line - 1] == f"[page {page}]"
        assert samples.PAGE_WORDS[page - 1] in " ".join(text[cite.line : cite.line + 4])


def test_a_citation_of_a_page_that_does_not_exist_opens_the_top_and_says_so(vault):
    samples.make_pdf(vault.raw_dir / "paper.pdf")
    cite = resolve_citation(vault, "raw/paper.pdf#page=9")
    assert cite.line == 1 and cite.problem == "raw/paper.pdf has 3 pages; there is no page 9"
    plain = resolve_citation(vault, "raw/paper.pdf")
    assert (plain.page, plain.line, plain.problem) == (None, 1, None)


def test_a_slide_citation_finds_the_slide(vault):
    samples.make_pptx(vault.raw_dir / "talk.pptx", slides=4)
    text = source_text(vault, "raw/talk.pptx").text.splitlines()
    for ref in ("raw/talk.pptx#page=3", "raw/talk.pptx#slide=3"):
        assert text[resolve_citation(vault, ref).line - 1] == "[slide 3]"


def test_a_citation_of_an_unreadable_file_carries_its_line(vault):
    samples.make_encrypted_pdf(vault.raw_dir / "locked.pdf")
    cite = resolve_citation(vault, "raw/locked.pdf#page=2")
    assert cite.line == 1 and "encrypted" in cite.problem


def test_parse_citation_forms():
    assert parse_citation("raw/x.pdf#page=12") == ("raw/x.pdf", 12)
    assert parse_citation("raw/x.pdf#PAGE12") == ("raw/x.pdf", 12)
    assert parse_citation("raw/x.pdf#Intro") == ("raw/x.pdf", None)
    assert parse_citation("raw/x.pdf") == ("raw/x.pdf", None)
    assert page_line("[page 1]\n\nx\n\n[page 2]\n\ny\n", 2) == 5
    assert page_line("text mentioning [page 2] inline\n", 2) is None


def test_the_cache_folder_is_inside_wikitui(vault):
    assert TextCache.for_vault(vault).folder == vault.root / ".wikitui" / "text"


# ------------------------------------------------------------ in a child process
def test_an_isolated_conversion_gives_the_same_text_and_is_cached(vault):
    samples.make_pdf(vault.raw_dir / "paper.pdf")
    isolated = source_text(vault, "raw/paper.pdf", isolate=True)
    assert isolated.ok and isolated == dispatch.convert_file(vault.raw_dir / "paper.pdf")
    assert len(entries(vault)) == 1


def test_a_conversion_past_its_time_is_stopped_with_one_line(vault):
    from wikitui.core.vault.formats.isolated import convert_isolated

    pdf = samples.make_pdf(vault.raw_dir / "paper.pdf")
    conv = convert_isolated(pdf, timeout=0.01)  # not even the interpreter starts in 10 ms
    assert conv.error == "paper.pdf took longer than 0.01 s to convert; it was stopped"
    assert conv.cacheable is False
    assert "encrypted" in convert_isolated(samples.make_encrypted_pdf(vault.raw_dir / "locked.pdf")).error
