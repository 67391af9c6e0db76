"""``wikitui search`` finds words inside PDFs, web pages and documents (their converted text), and a file
that cannot be converted is still listed, by name with its one-line reason, without failing the build."""

from __future__ import annotations

import json

from tests.core import formats_samples as samples
from wikitui import cli


def search(capsys, vault, *words: str) -> list[dict]:
    code = cli.main(["search", *words, "--json", "--scope", "raw", "--vault", str(vault)])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    return json.loads(out) if out.strip() else []


def test_search_finds_a_pdfs_words_on_their_page(capsys, sample_vault):
    samples.make_pdf(sample_vault / "raw" / "paper.pdf", title="Attention paper")
    samples.make_docx(sample_vault / "raw" / "report.docx")
    (sample_vault / "raw" / "glaciers.html").write_text(samples.NEWS_ARTICLE)
    hits = search(capsys, sample_vault, "positional encodings")
    assert [h["path"] for h in hits] == ["raw/paper.pdf"]
    hit = hits[0]
    assert hit["title"] == "Attention paper"  # the PDF's own title
    assert "**Positional**" in hit["snippet"] and "**encodings**" in hit["snippet"]
    # The hit's line is the line of the converted text the viewer shows: on page 2, after its marker.
    assert cli.main(["search", "positional encodings", "--scope", "raw", "--vault", str(sample_vault)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    line = int(first.split()[0].split(":")[1])
    [entry] = (sample_vault / ".wikitui" / "text").glob("*.pdf.*")
    lines = entry.read_text().split("\n", 1)[1].splitlines()
    assert lines.index("[page 2]") + 1 < line < lines.index("[page 3]") + 1
    assert [h["path"] for h in search(capsys, sample_vault, "Aletsch")] == ["raw/report.docx"]
    assert [h["path"] for h in search(capsys, sample_vault, "heatwaves")] == ["raw/glaciers.html"]
    assert search(capsys, sample_vault, "dataLayer") == []  # the page's scripts are not its text


def test_files_that_cannot_be_converted_are_listed_by_name_and_reason(capsys, sample_vault):
    samples.make_encrypted_pdf(sample_vault / "raw" / "locked.pdf")
    samples.make_scanned_pdf(sample_vault / "raw" / "scan.pdf")
    (sample_vault / "raw" / "broken.pdf").write_bytes(b"%PDF-1.7\n" + b"\0garbage" * 1000)
    samples.make_pdf(sample_vault / "raw" / "paper.pdf")
    # By name...
    assert "raw/locked.pdf" in [h["path"] for h in search(capsys, sample_vault, "locked")]
    assert "raw/scan.pdf" in [h["path"] for h in search(capsys, sample_vault, "scan")]
    assert "raw/broken.pdf" in [h["path"] for h in search(capsys, sample_vault, "broken")]
    # ... and by the one line saying why it has no text.
    assert [h["path"] for h in search(capsys, sample_vault, "encrypted password")] == ["raw/locked.pdf"]
    assert [h["path"] for h in search(capsys, sample_vault, '"no text layer"')] == ["raw/scan.pdf"]
    assert [h["path"] for h in search(capsys, sample_vault, "translation benchmarks")] == ["raw/paper.pdf"]


def test_a_pdf_added_while_the_app_runs_is_converted_in_a_child_process(sample_vault, monkeypatch):
    """The watcher's update runs in the app's process: the converter must not (it would hold the GIL)."""
    from wikitui.core.vault.formats import dispatch
    from wikitui.core.workspace import Workspace

    ws = Workspace.open(sample_vault)
    ws.load_graph()
    ws.update_index()
    samples.make_pdf(sample_vault / "raw" / "paper.pdf")

    def not_here(*args, **kwargs):
        raise AssertionError("converted in the app's process")

    monkeypatch.setattr(dispatch, "convert_file", not_here)  # the child process has its own, unpatched
    ws.files_changed(["raw/paper.pdf"])
    [hit] = ws.index.search("positional encodings", scope="raw")
    assert hit.path == "raw/paper.pdf" and "**Positional**" in hit.snippet
