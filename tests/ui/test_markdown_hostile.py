"""Hostile pages render everything they hold, with work bounded by their size (DESIGN §8).

Work is counted, not timed (no test asserts a time): markdown-it's ``skipToken``
runs once per character it scans looking for the end of a link label, so its calls
measure the parse's work. bench/page_layout.py prints the times.
"""

from __future__ import annotations

import pytest
from markdown_it.parser_inline import ParserInline

from wikitui.ui.markdown.document import render_page
from wikitui.ui.markdown.parser import label_scan_cost

HOSTILE = {
    "one line of brackets": "[" * 9_000,
    "paragraphs of brackets": ("[" * 1_000 + "\n\n") * 20,
    "brackets closed once at the end": ("[" * 1_000 + "]\n\n") * 20,
    "short paragraphs of brackets": ("[" * 30 + "\n\n") * 600,
}


@pytest.fixture
def label_scans(monkeypatch) -> list[int]:
    """Counts markdown-it's label scans (calls of ``ParserInline.skipToken``)."""
    calls = [0]
    original = ParserInline.skipToken

    def counted(self, state):
        calls[0] += 1
        return original(self, state)

    monkeypatch.setattr(ParserInline, "skipToken", counted)
    return calls


@pytest.mark.parametrize("name", list(HOSTILE))
def test_unclosed_brackets_cost_work_linear_in_the_page_and_lose_nothing(name, label_scans):
    text = HOSTILE[name]
    doc = render_page(text, 80, path="wiki/hostile.md")
    # Before: every "[" scanned to its paragraph's end (20 KB of them: 10 million scans).
    assert label_scans[0] <= 8 * len(text)
    shown = "".join(line.text for line in doc.lines)
    assert shown.count("[") == text.count("[") and shown.count("]") == text.count("]")


def test_a_paragraph_parsed_without_markdown_links_keeps_its_tab_stops():
    text = "[" * 200 + " see [the text](https://example.org/a) and [[Alice]] and https://b.example\n"
    assert label_scan_cost(text.splitlines()[0]) > 4 * len(text)  # parsed without markdown links
    doc = render_page(text, 80, path="wiki/hostile.md")
    assert [k.target for k in doc.links] == ["https://example.org/a", "Alice", "https://b.example"]
    carried = ["".join(t for line in doc.lines for t, _r, link in line.segments if link == i) for i in range(3)]
    # The markdown link shows as written; its URL carries the tab stop.
    assert carried == ["https://example.org/a", "Alice", "https://b.example"]
    assert "[the text](https://example.org/a)" in "".join(line.text for line in doc.lines)


def test_ordinary_brackets_keep_their_markdown_links():
    text = "An interval [0, 1) and [2, 3), a [citation needed, and [the text](https://example.org/a).\n"
    assert label_scan_cost(text) <= 4 * len(text)  # three stray brackets: parsed as usual
    doc = render_page(text, 80, path="wiki/p.md")
    shown = "".join(t for line in doc.lines for t, _r, link in line.segments if link == 0)
    assert shown == "the text"
