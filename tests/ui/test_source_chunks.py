"""A source shown as text is laid out in steps bounded by characters, not only lines: the converted text of a
PDF or web page has paragraph-long lines, and one step runs between two key presses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.ui.markdown.document import (
    HIGHLIGHTED_CHUNK_CHARS,
    SOURCE_CHUNK_CHARS,
    SOURCE_CHUNK_LINES,
    PageDocument,
)


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


def test_a_highlighted_source_takes_smaller_steps_than_plain_text():
    """Pygments' markdown lexer (a converted web page) costs far more per character than plain text."""
    line = "Survey report: the glacier's tongue *thinned* by 40 cm, [see](https://x.org) the table."
    text = "\n".join(f"{n}. {line}" for n in range(600))
    first_step = {}
    for lexer in ("markdown", "text"):
        doc = PageDocument(text, path="raw/article.html", source_lexer=lexer, valid_utf8=True)
        doc.set_width(200)
        doc.step()
        first_step[lexer] = doc.line_sources[-1]
        doc.ensure_all()
        assert doc.line_sources[-1] == 600  # every line still shown, in order
    assert (first_step["markdown"] - 1) * len(line) <= HIGHLIGHTED_CHUNK_CHARS
    assert first_step["text"] > first_step["markdown"]  # plain text keeps its bigger steps


def test_short_lines_still_come_four_hundred_at_a_time_and_one_huge_line_alone():
    doc = PageDocument("\n".join("x" for _ in range(1000)), path="raw/a.txt", source_lexer="text")
    doc.set_width(80)
    doc.step()
    assert doc.line_sources[-1] == SOURCE_CHUNK_LINES
    huge = PageDocument("a\n" + "y" * 50_000 + "\nb", path="raw/b.txt", source_lexer="text")
    huge.set_width(80)
    huge.ensure_all()
    assert huge.line_sources[-1] == 3 and "b" in huge.lines[-1].text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=20_000), max_size=1_200))
def test_chunks_cover_every_line_once_in_order_and_stay_bounded(lengths):
    from wikitui.ui.markdown.document import _source_chunks

    lines = ["x" * n for n in lengths]
    chunks = list(_source_chunks(lines))
    assert chunks[0].start == 0
    for a, b in zip(chunks, chunks[1:]):
        assert a.end == b.start  # contiguous, no line twice or lost
    assert chunks[-1].end == len(lines)
    for c in chunks:
        size = c.end - c.start
        assert size <= SOURCE_CHUNK_LINES
        if size > 1:  # only a single line may exceed the character bound
            assert sum(lengths[c.start:c.end - 1]) < SOURCE_CHUNK_CHARS


def test_every_step_numbers_its_lines_as_wide_as_the_files_last_line():
    """Laid out in steps, a 1,200-line source keeps one gutter width: the text does not shift at line 100."""
    text = "\n".join(f"The glacier's tongue, line {n}." for n in range(1, 1201))
    doc = PageDocument(text, path="raw/notes.md", source_lexer="markdown", valid_utf8=True)
    doc.set_width(100)
    doc.step()
    assert doc.line_sources[-1] < 100  # the first step stops before the numbers need a third digit
    doc.ensure_all()
    gutters = {ln.text.index("│") for ln in doc.lines if "│" in ln.text}
    assert gutters == {len("1200") + 1}  # "   1 │ ..." to "1200 │ ...": one column for the bar
