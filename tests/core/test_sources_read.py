"""The ``read`` tool on sources that are not markdown: real PDFs, web pages, documents and pictures.

The files are made by the libraries people make them with (tests/core/formats_samples.py)
and read through the real converters, as the model would call ``read``.
"""

from __future__ import annotations

import json

import pytest

from tests.core import formats_samples as samples
from wikitui.core.agent.tools import ToolBox
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault


@pytest.fixture
def sources(sample_vault):
    raw = sample_vault / "raw"
    samples.make_pdf(raw / "paper.pdf", title="Attention paper")
    samples.make_scanned_pdf(raw / "scan.pdf", pages=2)
    samples.make_encrypted_pdf(raw / "locked.pdf")
    (raw / "glaciers.html").write_text(samples.NEWS_ARTICLE)
    samples.make_docx(raw / "report.docx")
    samples.make_png(raw / "chart.png")
    (sample_vault / "wiki" / "concepts").mkdir(exist_ok=True)
    (sample_vault / "wiki" / "concepts" / "attention.md").write_text(
        "---\ntitle: Attention\n---\n# Attention\n\nSee [[raw/paper.pdf#page=2]] and ![[raw/chart.png]].\n")
    return sample_vault


def make_box(root, *, vision: bool = False, **kw) -> ToolBox:
    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    return ToolBox(vault, graph, None, ChangesetBuilder(vault, graph), vision=vision, **kw)


def read(box: ToolBox, path: str, **args):
    return box.call("read", json.dumps({"path": path, **args}))


def test_a_pdf_is_read_as_its_text_with_page_markers_and_how_to_cite_a_page(sources):
    out = read(make_box(sources), "raw/paper.pdf")
    assert out.ok, out.text
    lines = out.text.splitlines()
    assert lines[0].startswith("raw/paper.pdf (raw source, read-only) lines 1-")
    assert "3 pages" in lines[1] and "cite page N as raw/paper.pdf#page=N" in lines[1]
    assert 'title "Attention paper"' in lines[1]
    body = "\n".join(lines[2:])
    for n, words in enumerate(samples.PAGE_WORDS, 1):
        assert f"\t[page {n}]" in body and words in body
    assert body.index("[page 2]") < body.index(samples.PAGE_WORDS[1]) < body.index("[page 3]")
    assert out.pictures == []


def test_a_converted_source_pages_with_offset_like_any_file(sources):
    first = read(make_box(sources), "raw/paper.pdf", limit=3)
    assert first.text.splitlines()[0].endswith("lines 1-3 of " + first.text.split(" of ")[1].split()[0])
    assert "call read with offset=3 for more" in first.text
    second = read(make_box(sources), "raw/paper.pdf", offset=3, limit=400)
    assert second.text.splitlines()[2].startswith("    4\t")


def test_a_web_page_is_read_as_its_article_without_menus_or_scripts(sources):
    out = read(make_box(sources), "raw/glaciers.html")
    assert out.ok
    assert "Swiss glaciers lost four percent" in out.text
    assert "converted from a web page" in out.text
    for marker in samples.CHROME_MARKERS:
        assert marker not in out.text


def test_a_word_document_is_read_as_text(sources):
    out = read(make_box(sources), "raw/report.docx")
    assert out.ok
    assert "176 glaciers" in out.text and "Gries" in out.text


@pytest.mark.parametrize("name, words", [("locked.pdf", "encrypted"), ("scan.pdf", "no text layer")])
def test_an_unreadable_pdf_is_one_clear_line(sources, name, words):
    out = read(make_box(sources), f"raw/{name}")
    assert out.ok
    assert out.text.startswith(f"raw/{name}: ") and words in out.text
    assert out.text.count("\n") == 0
    assert out.pictures == []


def test_a_picture_is_described_to_a_model_that_cannot_see(sources):
    out = read(make_box(sources, vision=False), "raw/chart.png")
    assert out.ok and out.pictures == []
    assert out.text.startswith("raw/chart.png: PNG image, 320×200 pixels")
    assert "cannot see pictures" in out.text
    assert "Linked from: wiki/concepts/attention.md" in out.text


def test_a_picture_goes_itself_to_a_vision_model(sources):
    out = read(make_box(sources, vision=True), "raw/chart.png")
    assert out.ok
    assert "The picture itself follows" in out.text
    [(label, mime, data)] = out.pictures
    assert (label, mime) == ("raw/chart.png", "image/png")
    assert data == (sources / "raw" / "chart.png").read_bytes()


def test_a_scanned_pdf_goes_to_a_vision_model_as_the_pictures_of_its_pages(sources):
    out = read(make_box(sources, vision=True), "raw/scan.pdf")
    assert out.ok
    assert "pictures of pages 1-2 of 2" in out.text
    labels = [label for label, _mime, _data in out.pictures]
    assert labels == ["raw/scan.pdf#page=1", "raw/scan.pdf#page=2"]
    assert all(mime in ("image/png", "image/jpeg") and data for _l, mime, data in out.pictures)


def test_a_huge_picture_is_scaled_down_for_the_model(sources):
    samples.make_png(sources / "raw" / "poster.png", size=(5000, 3000))
    [(_label, mime, data)] = read(make_box(sources, vision=True), "raw/poster.png").pictures
    from io import BytesIO

    from PIL import Image

    assert mime == "image/png"
    assert max(Image.open(BytesIO(data)).size) <= 1568


def test_the_second_read_comes_from_the_cache(sources):
    read(make_box(sources), "raw/paper.pdf")
    cached = list((sources / ".wikitui" / "text").glob("*.pdf.*"))
    assert len(cached) == 1
    # The cache entry is what the next read shows: change its text (keeping it valid) and read again.
    from wikitui.core.vault.formats.cache import TextCache, file_digest

    cache = TextCache.for_vault(Vault.open(sources))
    digest = file_digest(sources / "raw" / "paper.pdf")
    entry = cache.get(digest, "pdf")
    entry.text = entry.text.replace("Positional encodings", "CACHED-WORDS")
    cache.put(digest, entry)
    assert "CACHED-WORDS" in read(make_box(sources), "raw/paper.pdf").text


def test_raw_text_sources_read_as_before(sources):
    out = read(make_box(sources), "raw/chapter-01.md", limit=5)
    assert out.text.splitlines()[0] == "raw/chapter-01.md (raw source, read-only) lines 1-5 of 61"


def bomb_png(path):
    """A PNG whose header claims 100,000 × 100,000 pixels (a decompression bomb): no pixel data needed."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
                     + chunk(b"IEND", b""))
    return path


@pytest.mark.parametrize("vision", [False, True])
def test_a_decompression_bomb_is_one_line_never_decoded(sources, vision):
    bomb_png(sources / "raw" / "bomb.png")
    out = read(make_box(sources, vision=vision), "raw/bomb.png")
    assert out.ok and out.pictures == []
    assert out.text.startswith("raw/bomb.png: PNG image, 100000x100000 pixels")


def test_the_conversion_runs_in_a_child_process_not_in_the_apps(sources, monkeypatch):
    """The tools run in a thread of the app's process: a PDF parser there would hold the UI's interpreter lock."""
    from wikitui.core.vault.formats import dispatch

    def not_here(*args, **kwargs):
        raise AssertionError("converted in the app's process")

    monkeypatch.setattr(dispatch, "convert_file", not_here)  # the child process has its own, unpatched
    out = read(make_box(sources), "raw/paper.pdf")
    assert out.ok and samples.PAGE_WORDS[1] in out.text
