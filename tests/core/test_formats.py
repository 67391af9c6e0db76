"""Raw sources of every kind through the real converters (DESIGN §9): PDF, HTML, Office, tables, images.

The files are made by the tests with the libraries people make them with; the
converters run for real. A file that cannot be converted gets one clear line.
"""

from __future__ import annotations

import json
import sys
import tempfile

import pytest

from tests.core import formats_samples as samples
from wikitui.core.vault.formats import convert_file, kind_of, needs_conversion
from wikitui.core.vault.formats import office, tabular
from wikitui.core.vault.formats.conversion import human_size
from wikitui.core.vault.formats.pdf import NO_TEXT_PAGE


def one_line(conversion) -> str:
    """The conversion failed with exactly one line, no traceback, and no text."""
    assert conversion.error, conversion
    assert "\n" not in conversion.error and "Traceback" not in conversion.error
    assert conversion.text == ""
    return conversion.error


# ------------------------------------------------------------------ PDF
def test_a_pdf_reads_page_by_page_with_page_markers(tmp_path):
    pdf = samples.make_pdf(tmp_path / "paper.pdf", title="On attention")
    conv = convert_file(pdf)
    assert conv.ok and conv.kind == "pdf" and conv.pages == 3
    assert conv.title == "On attention"
    lines = conv.text.splitlines()
    markers = [i for i, line in enumerate(lines) if line.startswith("[page ")]
    assert [lines[i] for i in markers] == ["[page 1]", "[page 2]", "[page 3]"]
    # Each page's words sit between its marker and the next one.
    for n, (start, end) in enumerate(zip(markers, [*markers[1:], len(lines)]), 1):
        page_text = " ".join(lines[start:end])
        assert samples.PAGE_WORDS[n - 1] in page_text
        assert all(w not in page_text for i, w in enumerate(samples.PAGE_WORDS) if i != n - 1)


def test_a_blank_page_among_text_pages_says_it_has_no_text(tmp_path):
    pdf = samples.make_pdf(tmp_path / "gap.pdf", pages=("First page words", "", "Third page words"))
    conv = convert_file(pdf)
    assert conv.ok
    after_two = conv.text.split("[page 2]", 1)[1].split("[page 3]", 1)[0]
    assert NO_TEXT_PAGE in after_two


def test_a_scanned_pdf_with_no_text_layer_is_one_clear_line(tmp_path):
    conv = convert_file(samples.make_scanned_pdf(tmp_path / "scan.pdf", pages=2))
    line = one_line(conv)
    assert "no text layer" in line and "scan.pdf" in line and "2 pages" in line
    assert conv.pages == 2  # kept for a vision model, which can be sent the pages as pictures


def test_the_pictures_of_a_scanned_page_can_go_to_a_vision_model(tmp_path):
    import io

    from PIL import Image

    from wikitui.core.vault.formats.pdf import page_pictures

    scan = samples.make_scanned_pdf(tmp_path / "scan.pdf", pages=2)
    [(mime, data)] = page_pictures(scan, 2)
    assert mime == "image/png" and Image.open(io.BytesIO(data)).size == (400, 560)
    assert page_pictures(scan, 3) == [] and page_pictures(scan, 0) == []
    assert page_pictures(samples.make_pdf(tmp_path / "text.pdf"), 1) == []
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 nonsense")
    assert page_pictures(broken, 1) == []


def test_a_password_protected_pdf_is_one_clear_line(tmp_path):
    line = one_line(convert_file(samples.make_encrypted_pdf(tmp_path / "locked.pdf")))
    assert "encrypted" in line and "password" in line and "locked.pdf" in line


def test_a_pdf_locked_only_for_permissions_still_reads(tmp_path):
    conv = convert_file(samples.make_encrypted_pdf(tmp_path / "perms.pdf", user_password=""))
    assert conv.ok and samples.PAGE_WORDS[2] in conv.text


@pytest.mark.parametrize("data", [b"", b"%PDF-1.7\n" + b"\x00garbage" * 100, b"<html>not a pdf</html>"])
def test_a_broken_pdf_is_one_clear_line(tmp_path, data):
    path = tmp_path / "broken.pdf"
    path.write_bytes(data)
    line = one_line(convert_file(path))
    assert "broken.pdf" in line


def test_a_truncated_pdf_never_raises(tmp_path):
    good = samples.make_pdf(tmp_path / "good.pdf").read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(good[: len(good) // 2])
    conv = convert_file(cut)  # pypdf may recover some pages, or none: either way no traceback
    assert conv.ok or "\n" not in conv.error


def test_the_page_cap_converts_the_first_pages_and_says_so(tmp_path, monkeypatch):
    from wikitui.core.vault.formats import pdf

    monkeypatch.setattr(pdf, "MAX_PDF_PAGES", 2)
    conv = convert_file(samples.make_pdf(tmp_path / "long.pdf"))
    assert conv.ok and conv.pages == 3
    assert conv.text.startswith("[note: only the first 2 of 3 pages were converted]")
    assert "[page 2]" in conv.text and "[page 3]" not in conv.text


# ------------------------------------------------------------------ HTML
def test_an_html_article_keeps_the_article_and_drops_menus_scripts_and_footer(tmp_path):
    page = tmp_path / "news.html"
    page.write_text(samples.NEWS_ARTICLE, encoding="utf-8")
    conv = convert_file(page)
    assert conv.ok and conv.kind == "html"
    assert conv.title == "Glacier retreat speeds up in the Alps"
    assert conv.text.startswith("# Glacier retreat speeds up in the Alps")
    assert "## Smaller glaciers disappear first" in conv.text
    assert "- Average thinning: 2.1 metres" in conv.text
    assert "weather stations near the glacier tongues" in conv.text
    for marker in samples.CHROME_MARKERS:
        assert marker not in conv.text
    assert "<" not in conv.text  # no markup left


def test_an_html_page_with_no_article_falls_back_to_its_text_with_a_note(tmp_path):
    page = tmp_path / "list.html"
    page.write_text("<html><body><table><tr><td>alpha</td><td>beta</td></tr></table>"
                    "<script>SCRIPT-MARKER()</script></body></html>")
    conv = convert_file(page)
    assert conv.ok and "alpha" in conv.text and "SCRIPT-MARKER" not in conv.text


def test_an_empty_html_file_is_one_clear_line(tmp_path):
    page = tmp_path / "empty.html"
    page.write_text("<html><body>  </body></html>")
    assert "no text" in one_line(convert_file(page))


def test_a_huge_html_file_is_read_up_to_its_cap_with_a_note(tmp_path, monkeypatch):
    from wikitui.core.vault.formats import html

    monkeypatch.setattr(html, "MAX_HTML_BYTES", 4096)
    page = tmp_path / "big.html"
    page.write_text("<html><body><article>" + "<p>Paragraph of the article with words.</p>\n" * 2000
                    + "<p>THE-END-MARKER</p></article></body></html>")
    conv = convert_file(page)
    assert conv.ok and "only the first 4 KB of" in conv.text.splitlines()[0]
    assert "THE-END-MARKER" not in conv.text


# ------------------------------------------------------------------ Office
def test_a_docx_becomes_markdown_with_its_table(tmp_path):
    conv = convert_file(samples.make_docx(tmp_path / "report.docx"))
    assert conv.ok and conv.kind == "docx"
    assert "Quarterly field report" in conv.text and "176 glaciers" in conv.text
    assert "| Gries | 6.1% |" in conv.text


def test_a_pptx_has_slide_markers_that_citations_find(tmp_path):
    conv = convert_file(samples.make_pptx(tmp_path / "talk.pptx", slides=3))
    assert conv.ok and conv.pages == 3
    lines = conv.text.splitlines()
    assert [line for line in lines if line.startswith("[slide ")] == ["[slide 1]", "[slide 2]", "[slide 3]"]
    assert lines[lines.index("[slide 2]") + 2] == "# Slide title 2"
    assert "<!--" not in conv.text


def test_an_xlsx_shows_every_sheet(tmp_path):
    conv = convert_file(samples.make_xlsx(tmp_path / "data.xlsx"))
    assert conv.ok
    assert "## Losses" in conv.text and "## Stations" in conv.text and "Jungfraujoch" in conv.text


def test_without_markitdown_an_office_file_says_how_to_install_it(tmp_path, monkeypatch):
    docx_path = samples.make_docx(tmp_path / "report.docx")
    monkeypatch.setattr(office, "_converter", None)
    monkeypatch.setitem(sys.modules, "markitdown", None)  # what `import markitdown` meets when absent
    conv = convert_file(docx_path)
    line = one_line(conv)
    assert "pip install 'wikitui[documents]'" in line and "Word" in line
    assert conv.cacheable is False  # installing the extra must make the next read work


def test_big_pictures_in_a_docx_are_left_out_before_conversion(tmp_path, monkeypatch):
    """A 48 MB photo in a report took 640 MB to convert: markitdown inlines pictures as base64."""
    import os

    import docx
    from PIL import Image

    photo = tmp_path / "photo.png"
    Image.frombytes("RGB", (700, 700), os.urandom(700 * 700 * 3)).save(photo)  # ~1.4 MB, incompressible
    doc = docx.Document()
    doc.add_heading("Field photos", 0)
    doc.add_paragraph("The tongue of the glacier in August.")
    doc.add_picture(str(photo))
    doc.save(str(tmp_path / "photos.docx"))
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    swapped = office.text_only_copy(tmp_path / "photos.docx", "docx")
    import zipfile

    with zipfile.ZipFile(swapped) as zf, zipfile.ZipFile(tmp_path / "photos.docx") as original:
        assert zf.namelist() == original.namelist()
        for name in zf.namelist():
            kept = zf.read(name)
            assert kept == (office._PLACEHOLDER if "/media/" in name else original.read(name))
    swapped.unlink()
    conv = convert_file(tmp_path / "photos.docx")
    assert conv.ok and "The tongue of the glacier in August." in conv.text
    assert len(conv.text) < 2000  # no base64 picture in the text
    assert list(temp.iterdir()) == []  # the copy is gone
    monkeypatch.setattr(office, "MEDIA_SWAP_BYTES", 10**9)
    assert office.text_only_copy(tmp_path / "photos.docx", "docx") is None


@pytest.mark.parametrize("suffix", ["docx", "pptx", "xlsx"])
def test_a_broken_office_file_is_one_clear_line(tmp_path, suffix):
    path = tmp_path / f"broken.{suffix}"
    path.write_bytes(b"PK\x03\x04 this is not really a zip archive")
    assert f"not a valid .{suffix}" in one_line(convert_file(path))


def test_an_office_file_whose_xml_would_not_fit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(office, "MAX_OFFICE_XML_BYTES", 1000)
    line = one_line(convert_file(samples.make_docx(tmp_path / "bomb.docx")))
    assert "too large to convert" in line


# ------------------------------------------------------------------ tables
def test_a_small_csv_comes_through_whole(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("name,value\nalpha,1\n\"beta, quoted\",2\n")
    conv = convert_file(path)
    assert conv.ok and conv.kind == "csv" and conv.notes == ()
    assert conv.text == "name,value\nalpha,1\n\"beta, quoted\",2\n"


def test_a_large_csv_is_sampled_with_a_note(tmp_path):
    path = tmp_path / "big.csv"
    rows = 60_000
    with path.open("w") as fh:
        fh.write("id,city,population\n")
        for i in range(1, rows):
            fh.write(f"{i},city-{i},{i * 17}\n")
    conv = convert_file(path)
    assert conv.ok
    assert conv.text.splitlines()[0] == (f"[note: sampled: the first {tabular.HEAD_LINES} and the last "
                                        f"{tabular.TAIL_LINES} of {rows:,} rows ({human_size(path.stat().st_size)}); "
                                        "search the file for the rest]")
    assert "id,city,population" in conv.text and f"{rows - 1},city-{rows - 1}," in conv.text
    assert "city-30000," not in conv.text
    assert len(conv.text) < 20_000


def test_a_csv_in_windows_1252_is_read_with_a_note(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes("ville,temp\nZürich,3\n".encode("cp1252"))
    conv = convert_file(path)
    assert "Zürich" in conv.text and "Windows-1252" in conv.text


def test_json_is_pretty_printed_and_long_lists_sampled(tmp_path):
    small = tmp_path / "small.json"
    small.write_text('{"a":[1,2],"b":{"c":"é"}}')
    assert convert_file(small).text == json.dumps({"a": [1, 2], "b": {"c": "é"}}, indent=2, ensure_ascii=False) + "\n"
    many = tmp_path / "many.json"
    many.write_text(json.dumps([{"n": i} for i in range(1000)]))
    conv = convert_file(many)
    assert "the first 100 of 1,000 items" in conv.text and '"n": 99' in conv.text and '"n": 100' not in conv.text


@pytest.mark.parametrize("content, note", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"a": 1,,}', "not valid JSON"),
])
def test_hostile_or_broken_json_is_shown_as_text_with_a_note(tmp_path, content, note):
    path = tmp_path / "x.json"
    path.write_text(content)
    conv = convert_file(path)
    assert conv.ok and note in conv.text.splitlines()[0]


def test_a_huge_minified_json_shows_its_start(tmp_path):
    path = tmp_path / "min.json"
    path.write_text(json.dumps([{"key": i, "text": "x" * 50} for i in range(60_000)]))
    conv = convert_file(path)
    assert conv.ok and "characters of" in conv.text.splitlines()[0]
    assert len(conv.text) < 70_000


def test_json_lines_are_sampled_like_rows(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps({"n": i, "pad": "y" * 40}) + "\n" for i in range(30_000)))
    conv = convert_file(path)
    assert conv.kind == "jsonl" and "of 30,000 records" in conv.text


# ------------------------------------------------------------------ images and others
def test_an_image_is_described_in_one_line(tmp_path):
    conv = convert_file(samples.make_png(tmp_path / "chart.png", (320, 200)))
    assert conv.ok and conv.kind == "image"
    assert conv.text.strip() == "PNG image, 320×200 pixels, RGB, " + conv.text.strip().rsplit(", ", 1)[1]


def test_a_corrupt_image_is_one_clear_line(tmp_path):
    path = tmp_path / "bad.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 50)
    assert "not a readable image" in one_line(convert_file(path))


def test_the_picture_for_a_vision_model_is_scaled_down(tmp_path):
    from PIL import Image

    from wikitui.core.vault.formats.images import data_url, image_for_model

    small = samples.make_png(tmp_path / "small.png", (100, 50))
    mime, data = image_for_model(small)
    assert mime == "image/png" and data == small.read_bytes()
    big = samples.make_png(tmp_path / "big.png", (4000, 1000))
    mime, data = image_for_model(big, max_side=800)
    import io

    assert Image.open(io.BytesIO(data)).size == (800, 200)
    assert data_url(mime, b"ab").startswith("data:image/png;base64,YWI=")
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"nope")
    assert image_for_model(bad) is None


def test_an_unknown_binary_file_is_one_clear_line_and_text_is_text(tmp_path):
    blob = tmp_path / "data.bin"
    blob.write_bytes(b"\x00\x01\x02" * 100)
    assert "binary file" in one_line(convert_file(blob))
    note = tmp_path / "note.txt"
    note.write_text("plain words\n")
    assert convert_file(note).text == "plain words\n"


def test_a_file_over_the_size_limit_is_refused_without_reading_it(tmp_path, monkeypatch):
    from wikitui.core.vault.formats import dispatch

    monkeypatch.setattr(dispatch, "MAX_FILE_BYTES", 1000)
    path = samples.make_pdf(tmp_path / "huge.pdf")
    line = one_line(convert_file(path))
    assert "too large to convert" in line and "the limit is 1000 bytes" in line


def test_kinds_follow_the_suffix():
    assert [kind_of(p) for p in ("raw/a.PDF", "b.htm", "c.pptx", "d.tsv", "e.ndjson", "f.JPG", "g.md", "h")] == [
        "pdf", "html", "pptx", "csv", "jsonl", "image", None, None]
    assert needs_conversion("raw/x.docx") and not needs_conversion("raw/x.md")
