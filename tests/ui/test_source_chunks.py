"""A source shown as text is laid out in steps bounded by characters, not only lines: the converted text of a
PDF or web page has paragraph-long lines, and one step runs between two key presses."""

from __future__ import annotations

from wikitui.ui.markdown.document import SOURCE_CHUNK_CHARS, SOURCE_CHUNK_LINES, PageDocument


def test_a_source_of_long_lines_is_laid_out_a_few_thousand_characters_at_a_time():
    line = "glacier " * 40  # 320 characters, as a converted paragraph
    text = "\n".join(f"{n} {line}" for n in range(2000))
    doc = PageDocument(text, path="raw/article.html", source_lexer="markdown", valid_utf8=True)
    doc.set_width(80)
    doc.step()
    laid = doc.line_sources[-1]  # the last file line laid out by one step
    assert laid < SOURCE_CHUNK_LINES
    assert (laid - 1) * len(line) <= SOURCE_CHUNK_CHARS
    doc.ensure_all()
    assert doc.line_sources[-1] == 2000  # every line is still shown, in order
    assert doc.lines[-1].text.strip().startswith("glacier") or "1999" in "".join(
        ln.text for ln in doc.lines[-6:])


def test_short_lines_still_come_four_hundred_at_a_time_and_one_huge_line_alone():
    doc = PageDocument("\n".join("x" for _ in range(1000)), path="raw/a.txt", source_lexer="text")
    doc.set_width(80)
    doc.step()
    assert doc.line_sources[-1] == SOURCE_CHUNK_LINES
    huge = PageDocument("a\n" + "y" * 50_000 + "\nb", path="raw/b.txt", source_lexer="text")
    huge.set_width(80)
    huge.ensure_all()
    assert huge.line_sources[-1] == 3 and "b" in huge.lines[-1].text
