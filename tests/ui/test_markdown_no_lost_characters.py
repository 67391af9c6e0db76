"""No character of a page is lost when it is laid out, at any width (property tests).

A line wider than the pane loses its last characters to the pane's edge (the page
pane crops every line to its width), so two properties are checked over random
pages and widths: no laid-out line is wider than the width, and every character of
the page's words is on screen, in reading order, with each link's words inside
its link.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wikitui.ui.markdown.document import render_page
from wikitui.ui.markdown.line import text_width

#: Characters of words: none of them is markup or drawn by the renderer itself
#: (bullets, bars, borders, digits of numbered lists), and some take two cells.
WORD_CHARS = "abcdefghijklmnopqrstuvwxyzGERTÄÖÜäöüßéñ漢字語" + "ー"
WORD_SET = set(WORD_CHARS)

words = st.text(alphabet=WORD_CHARS, min_size=1, max_size=40)


@st.composite
def inline_items(draw) -> tuple[str, str, str | None]:
    """(markdown, what a reader sees, the link's label or None) for one inline item."""
    kind = draw(st.sampled_from(["word", "word", "word", "strong", "em", "code", "wiki", "wiki-label", "md", "url"]))
    w = draw(words)
    if kind == "strong":
        return f"**{w}**", w, None
    if kind == "em":
        return f"*{w}*", w, None
    if kind == "code":
        return f"`{w}`", w, None
    if kind == "wiki":
        return f"[[{w}]]", w, w
    if kind == "wiki-label":
        label = " ".join(draw(st.lists(words, min_size=1, max_size=4)))
        return f"[[Target|{label}]]", label, label
    if kind == "md":
        label = " ".join(draw(st.lists(words, min_size=1, max_size=3)))
        return f"[{label}](https://example.com/page)", label, label
    if kind == "url":
        url = f"https://example.com/{w}"  # a bare URL is a link, as in Obsidian
        return url, url, url
    return w, w, None


@st.composite
def inline_runs(draw, max_items: int = 12) -> tuple[str, str, list[str]]:
    items = draw(st.lists(inline_items(), min_size=1, max_size=max_items))
    markdown = " ".join(m for m, _, _ in items)
    shown = " ".join(s for _, s, _ in items)
    labels = [label for _, _, label in items if label is not None]
    return markdown, shown, labels


@st.composite
def blocks(draw) -> tuple[str, str, list[str], bool]:
    """(markdown, shown text, link labels in order, whether reading order is kept line by line)."""
    kind = draw(st.sampled_from(["para", "para", "heading", "list", "quote", "quote-list", "table", "code"]))
    if kind == "table":
        cols = draw(st.integers(1, 6))
        rows = draw(st.integers(1, 4))
        cells = [[draw(inline_runs(max_items=3)) for _ in range(cols)] for _ in range(rows + 1)]
        # Inside a table a wikilink's label is written after an escaped bar, as Obsidian wants.
        cells = [[(c[0].replace("[[Target|", "[[Target\\|"), c[1], c[2]) for c in row] for row in cells]
        lines = ["| " + " | ".join(c[0] for c in cells[0]) + " |", "|" + "---|" * cols]
        lines += ["| " + " | ".join(c[0] for c in row) + " |" for row in cells[1:]]
        shown = " ".join(c[1] for row in cells for c in row)
        labels = [label for row in cells for c in row for label in c[2]]
        return "\n".join(lines), shown, labels, False
    if kind == "code":
        body = [" ".join(draw(st.lists(words, min_size=1, max_size=6))) for _ in range(draw(st.integers(1, 3)))]
        return "```\n" + "\n".join(body) + "\n```", " ".join(body), [], True
    markdown, shown, labels = draw(inline_runs())
    if kind == "heading":
        return "#" * draw(st.integers(1, 6)) + " " + markdown, shown, labels, True
    if kind == "list":  # items nested one level at a time, up to ten deep
        lines, depth = ["- " + markdown], 0
        for item, item_shown, item_labels in draw(st.lists(inline_runs(max_items=4), max_size=10)):
            depth = draw(st.integers(0, min(depth + 1, 10)))
            lines.append("  " * depth + "- " + item)
            shown += " " + item_shown
            labels = labels + item_labels
        return "\n".join(lines), shown, labels, True
    if kind == "quote":
        return "> " * draw(st.integers(1, 8)) + markdown, shown, labels, True
    if kind == "quote-list":
        return "> - " + markdown, shown, labels, True
    return markdown, shown, labels, True


@st.composite
def pages(draw) -> tuple[str, str, list[str], bool]:
    parts = draw(st.lists(blocks(), min_size=1, max_size=5))
    markdown = "\n\n".join(p[0] for p in parts) + "\n"
    shown = " ".join(p[1] for p in parts)
    labels = [label for p in parts for label in p[2]]
    return markdown, shown, labels, all(p[3] for p in parts)


def word_chars(text: str) -> str:
    return "".join(ch for ch in text if ch in WORD_SET)


PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(page=pages(), width=st.integers(2, 120))
def test_no_line_is_wider_than_the_pane_and_no_character_is_lost(page, width):
    markdown, shown, labels, ordered = page
    doc = render_page(markdown, width, path="wiki/p.md")
    too_wide = [line.text for line in doc.lines if text_width(line.text) > width]
    assert not too_wide, too_wide[:3]
    rendered = word_chars("".join(line.text for line in doc.lines))
    if ordered:
        assert rendered == word_chars(shown)
    else:  # a table's cells share lines: every character is there, in a grid
        assert Counter(rendered) == Counter(word_chars(shown))
    # Each link carries exactly its label's characters, however it wraps.
    carried = ["" for _ in doc.links]
    for line in doc.lines:
        for text, _roles, link in line.segments:
            if link is not None:
                carried[link] += text
    shown_links = [word_chars(c) for c in carried if word_chars(c)]
    assert shown_links == [word_chars(label) for label in labels]


@PROPERTY
@given(word=words, prefix_depth=st.integers(0, 12), width=st.integers(2, 60))
def test_a_long_word_is_cut_between_lines_and_never_at_the_edge(word, prefix_depth, width):
    # The reported case: a 14-column pane cut "Gewerbebetrieb" as "Gewerbebetr|eb".
    markdown = "  " * prefix_depth + "- " + word * 3
    doc = render_page(markdown, width)
    assert all(text_width(line.text) <= width for line in doc.lines)
    assert word_chars("".join(line.text for line in doc.lines)) == word_chars(word * 3)


def test_the_reported_words_survive_a_narrow_pane():
    text = "---\ntags: [einkommensteuer, estg]\n---\n\n# Gewerbebetrieb\n\nEin Gewerbebetrieb ist nach § 15\n"
    for width in range(2, 30):
        doc = render_page(text, width, path="wiki/concepts/Gewerbebetrieb.md")
        joined = "".join(line.text.strip() for line in doc.lines)
        assert "#einkommensteuer" in joined and "EinGewerbebetriebistnach§15" in joined.replace(" ", ""), width
        assert all(text_width(line.text) <= width for line in doc.lines), width


def test_nesting_deeper_than_the_parser_goes_is_shown_as_text_not_dropped():
    # markdown-it stops at 200 levels and silently dropped the rest of the text.
    deep_quote = "> " * 300 + "deepest words [[Link]]\n\nAfter it.\n"
    lines = [line.text for line in render_page(deep_quote, 80, path="wiki/deep.md").lines]
    assert lines[0].startswith("⚠ Nested more than 200 levels deep")
    joined = " ".join(lines)
    assert "deepest words" in joined and "After it." in joined
    doc = render_page(deep_quote, 80, path="wiki/deep.md")
    assert doc.link_first[0] >= 0  # the link is still a tab stop, on screen
    deep_list = "\n".join("  " * i + f"- item{i}" for i in range(300))
    shown = " ".join(line.text for line in render_page(deep_list, 80).lines)
    assert all(f"item{i}" in shown for i in range(300))
