"""An answer streamed in pieces: finished parts are parsed once, the result matches one parse (no app)."""

from __future__ import annotations

from wikitui.ui.markdown.stream import StreamedMarkdown, frozen_split

ANSWER = (
    "## What the wiki says\n\n"
    "The [[White Rabbit]] is late.\n\n"
    "```python\nx = 1\n\ny = 2  # a blank line inside a fence is no place to split\n```\n\n"
    "- He fans himself with the [[Fan and Gloves]].\n"
    "  an indented line continues the item\n\n"
    "| page | claim |\n| --- | --- |\n| [[Hatter's Watch]] | runs two days wrong |\n"
)


def texts(lines) -> list[str]:
    return [line.text.rstrip() for line, _offset in lines]


def test_a_split_falls_after_a_blank_line_before_an_unindented_block_outside_fences():
    split, in_fence = frozen_split(ANSWER, 0, False)
    assert ANSWER[split:].startswith("| page | claim |")
    assert not in_fence
    fenced = "```\na\n\nb\n"
    assert frozen_split(fenced, 0, False) == (0, False)  # still inside the fence
    assert frozen_split("done.\n\nnext", 0, False) == (0, False)  # the last line is not complete yet


def test_streamed_parts_are_parsed_once_and_their_links_numbered_in_reading_order():
    streamed = StreamedMarkdown()
    for end in range(0, len(ANSWER) + 1, 7):
        streamed.text = ANSWER[:end]
        streamed.parse(final=False)
        if end == 70:
            first = streamed.frozen[0]
    assert streamed.frozen[0] is first
    assert len(streamed.frozen) >= 3
    streamed.text = ANSWER
    streamed.parse(final=False)
    assert [link.target for link in streamed.links] == ["White Rabbit", "Fan and Gloves", "Hatter's Watch"]
    lines = streamed.lines(60)
    # Each line's link indices, shifted by its part's offset, are the answer's link indices.
    found = sorted({link + offset for line, offset in lines for _t, _r, link in line.segments if link is not None})
    assert found == [0, 1, 2]


def test_the_final_parse_is_one_document_and_shows_the_same_text():
    streamed = StreamedMarkdown()
    for end in range(0, len(ANSWER) + 1, 5):
        streamed.text = ANSWER[:end]
        streamed.parse(final=False)
    streaming = texts(streamed.lines(60))
    streamed.parse(final=True)
    assert len(streamed.frozen) == 1 and streamed.tail is None
    assert texts(streamed.lines(60)) == streaming
    assert texts(streamed.lines(60))[-1] != ""  # no blank line at the end


def test_an_answer_that_starts_with_a_rule_is_not_read_as_frontmatter():
    streamed = StreamedMarkdown("---\ntitle: no\n---\nText.\n")
    streamed.parse(final=True)
    shown = texts(streamed.lines(40))
    assert any("title: no" in line for line in shown)


def test_an_answer_shows_a_folded_callout_open_with_math_and_a_highlight():
    streamed = StreamedMarkdown("> [!faq]- Why?\n> Because $a \\\\ b$ is ==so==.\n")
    streamed.parse(final=True)
    shown = texts(streamed.lines(60))
    assert shown[:2] == ["▎ ▾ Faq Why?", "▎ Because a \\\\ b is so."]  # the chat has no cursor to open a fold
