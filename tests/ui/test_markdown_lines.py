"""The page pane's rendering model: markdown laid out as styled lines with link spans."""

from __future__ import annotations

import random
import re
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import SAMPLE, corpus_path
from wikitui.core.vault.files import read_text
from wikitui.core.vault.links import extract_links
from wikitui.core.vault.page import parse_page
from wikitui.ui.markdown import chunks, document
from wikitui.ui.markdown.document import PageDocument, render_page
from wikitui.ui.markdown.wrap import wrap_runs


def page(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def texts(doc: PageDocument) -> list[str]:
    return [line.text.rstrip() for line in doc.lines]


def roles_of(doc: PageDocument, needle: str) -> str:
    """The roles of the segment that is ``needle``, else of the first one containing it."""
    segments = [seg for line in doc.lines for seg in line.segments]
    for text, roles, _link in segments:
        if text.strip() == needle:
            return roles
    for text, roles, _link in segments:
        if needle in text:
            return roles
    raise AssertionError(f"{needle!r} not rendered")


def link_text(doc: PageDocument, index: int) -> list[str]:
    """The pieces of text carrying link ``index``, one string per rendered line."""
    pieces = []
    for line in doc.lines:
        parts = [text for text, _roles, link in line.segments if link == index]
        if parts:
            pieces.append("".join(parts))
    return pieces


def reading_order(doc: PageDocument) -> list[int]:
    """Link indices in the order they first appear on screen."""
    seen: list[int] = []
    for line in doc.lines:
        for _text, _roles, link in line.segments:
            if link is not None and link not in seen:
                seen.append(link)
    return seen


FEATURES = page(
    """
    ---
    title: The Mad Tea-Party
    type: place
    tags: [tea, chapter-7]
    summary: A never-ending tea party.
    ---

    # The Mad Tea-Party

    The [[Mad Hatter]], the [[March Hare|Hare]] and [[Chapter 7#Riddles]] sit with the
    [original text](https://www.gutenberg.org/ebooks/11) and [Alice](../characters/alice.md).

    ## Riddles

    ### Third level

    - a bullet that is long enough to wrap onto a second line at a narrow width
      - a nested bullet
    1. first
    2. second

    > quoted [[Dormouse]] ^quote-id

    | Guest | Cups |
    |:------|-----:|
    | [[Mad Hatter]] | 12 |

    ```python
    def riddle():
        return "no answer"  # the Hatter gives up
    ```

    ```nosuchlanguage
    plain [[Not A Link]]
    ```

    ---

    ![[tea-table.png]]

    Text `with [[code link]]` inline. %% hidden [[Comment Link]] %% shown
    <!-- also hidden -->
    """
)


def test_frontmatter_becomes_a_compact_header_and_is_not_shown():
    doc = render_page(FEATURES, 80, path="wiki/tea.md")
    lines = texts(doc)
    assert lines[0] == "place  #tea  #chapter-7"
    assert lines[1] == "A never-ending tea party."
    assert not any("title:" in line or line == "---" for line in lines)
    # The title is not repeated when the page opens with the same H1.
    assert sum("The Mad Tea-Party" in line for line in lines) == 1


def test_headings_have_a_style_per_level_and_h1_a_rule_under_it():
    doc = render_page(FEATURES, 60, path="wiki/tea.md")
    assert "heading-1" in roles_of(doc, "The Mad Tea-Party")
    assert "heading-2" in roles_of(doc, "Riddles")
    assert "heading-3" in roles_of(doc, "Third level")
    lines = texts(doc)
    h1 = lines.index("The Mad Tea-Party")
    assert set(lines[h1 + 1]) == {"━"}


def test_lists_nest_with_bullets_numbers_and_hanging_indent():
    doc = render_page(FEATURES, 40, path="wiki/tea.md")
    lines = texts(doc)
    start = next(i for i, line in enumerate(lines) if line.startswith("• a bullet"))
    assert lines[start + 1].startswith("  ") and not lines[start + 1].startswith("   ")
    assert lines[start + 2] == "  ◦ a nested bullet"
    assert "1. first" in lines and "2. second" in lines
    ten = render_page("\n".join(f"{n}. item {n}" for n in range(1, 11)), 40)
    assert texts(ten)[0] == " 1. item 1" and texts(ten)[9] == "10. item 10"


def test_list_items_are_spaced_as_in_the_source_not_all_loose():
    # CommonMark makes this whole list "loose" (a blank line between every item);
    # the page pane keeps the author's grouping, as an index groups its entries.
    doc = render_page("Intro\n\n- a\n- b\n\n- c\n  - c1\n\n  - c2\n", 40)
    assert texts(doc) == ["Intro", "", "• a", "• b", "", "• c", "  ◦ c1", "", "  ◦ c2"]


def test_blockquote_has_a_bar_and_block_ids_are_hidden():
    doc = render_page(FEATURES, 80, path="wiki/tea.md")
    quote = next(line for line in texts(doc) if "quoted" in line)
    assert quote == "▎ quoted Dormouse"
    assert "quote" in roles_of(doc, "quoted")


def test_table_is_drawn_with_box_characters_and_aligned_columns():
    doc = render_page(FEATURES, 80, path="wiki/tea.md")
    lines = texts(doc)
    top = next(i for i, line in enumerate(lines) if line.startswith("┌"))
    assert lines[top : top + 5] == [
        "┌────────────┬──────┐",
        "│ Guest      │ Cups │",
        "├────────────┼──────┤",
        "│ Mad Hatter │   12 │",
        "└────────────┴──────┘",
    ]
    assert "table-header" in roles_of(doc, "Guest")


def test_a_table_too_wide_for_the_pane_wraps_its_cells_and_keeps_every_word():
    long = " ".join(f"word{n}" for n in range(60))
    doc = render_page(f"| a | b |\n|---|---|\n| [[Link]] {long} | x |\n", 40)
    lines = texts(doc)
    assert all(len(line) <= 40 for line in lines)
    body = [line for line in lines if line.startswith("│")][1:]
    assert len(body) > 6  # the cell wraps as far as it needs: nothing is cut
    cell = " ".join(line.split("│")[1].strip() for line in body)
    assert cell == f"Link {long}"
    assert link_text(doc, 0) == ["Link"]


def test_a_table_with_more_columns_than_the_pane_holds_is_shown_row_by_row():
    header = "| " + " | ".join(f"Head{c}" for c in range(12)) + " |"
    row = "| " + " | ".join(f"[[Page {c}]]" if c == 5 else f"cell{c}" for c in range(12)) + " |"
    doc = render_page(f"{header}\n|{'---|' * 12}\n{row}\n", 30)
    lines = texts(doc)
    assert all(len(line) <= 30 for line in lines)
    assert lines[0].startswith("Head0 │ Head1 │")
    assert "table-header" in roles_of(doc, "Head0")
    joined = " ".join(lines)
    assert all(f"cell{c}" in joined for c in range(12) if c != 5)
    assert link_text(doc, 0) == ["Page 5"]


def test_code_fences_are_highlighted_with_pygments_token_roles():
    doc = render_page(FEATURES, 80, path="wiki/tea.md")
    assert "code-keyword" in roles_of(doc, "def")
    assert "code-string" in roles_of(doc, "no answer")
    assert "code-comment" in roles_of(doc, "# the Hatter")
    assert "code-function" in roles_of(doc, "riddle")
    # Every code line keeps the block's background to the right edge.
    code_line = next(line for line in doc.lines if "def" in line.text)
    assert code_line.fill == "code-block"


def test_unknown_fence_language_is_plain_code():
    doc = render_page(FEATURES, 80, path="wiki/tea.md")
    assert roles_of(doc, "plain [[Not A Link]]") == "code-block"


def test_links_show_labels_embeds_and_anchors_as_a_reader_expects():
    doc = render_page(FEATURES, 100, path="wiki/tea.md")
    shown = {i: " ".join(link_text(doc, i)) for i in range(len(doc.links))}
    assert shown[0] == "Mad Hatter"
    assert shown[1] == "Hare"  # [[March Hare|Hare]]
    assert shown[2] == "Chapter 7 > Riddles"  # [[Chapter 7#Riddles]]
    assert shown[3] == "original text"
    assert shown[4] == "Alice"
    embed = next(i for i, link in enumerate(doc.links) if link.embed)
    assert shown[embed] == "⧉ tea-table.png"
    assert texts(doc)[doc.link_first[embed]] == "⧉ tea-table.png"  # a line of its own
    assert "code link" not in " ".join(shown.values())
    assert not any("Comment Link" in line or "hidden" in line for line in texts(doc))
    assert any(line.endswith("inline.  shown") for line in texts(doc))


def test_link_spans_are_the_core_links_in_reading_order():
    doc = render_page(FEATURES, 80, path="wiki/tea.md")
    expected = parse_page("wiki/tea.md", FEATURES).links
    assert [(lk.target, lk.start) for lk in doc.links] == [(lk.target, lk.start) for lk in expected]
    assert [(lk.target, lk.start) for lk in doc.links] == [(lk.target, lk.start) for lk in extract_links(FEATURES)]
    assert reading_order(doc) == list(range(len(expected)))
    targets = [doc.links[i].target for i in reading_order(doc)]
    assert targets[:3] == ["Mad Hatter", "March Hare", "Chapter 7"]


@pytest.mark.parametrize("width", [40, 80, 120])
def test_wrapping_keeps_each_link_span_whole_across_lines(width):
    words = " ".join(f"plain{n}" for n in range(30))
    text = f"{words} [[A Long Target Name|a label of several words]] {words} [x y z](https://e.com/q) end\n"
    doc = render_page(text, width)
    assert all(len(line) <= width for line in texts(doc))
    for index, want in enumerate(["a label of several words", "x y z"]):
        pieces = link_text(doc, index)
        assert " ".join(pieces) == want
        rows = [y for y, line in enumerate(doc.lines) if any(s[2] == index for s in line.segments)]
        assert rows == list(range(rows[0], rows[0] + len(pieces)))  # consecutive lines
        assert doc.link_first[index] == rows[0] and doc.link_last[index] == rows[-1]
        first_line = doc.lines[rows[0]]
        (span,) = [s for s in first_line.link_spans() if s[0] == index]
        assert first_line.link_at(span[1]) == index and first_line.link_at(span[2]) != index


def test_a_long_list_is_cut_into_chunks_without_gaps_or_lost_links():
    items = "\n".join(f"- [[Page {n}]] — summary {n}" for n in range(1, 601))
    text = f"# Index\n\n{items}\n"
    doc = PageDocument(text, path="wiki/index.md")
    doc.set_width(80)
    doc.ensure_lines(30)
    assert not doc.complete  # only the first screen was laid out
    doc.ensure_all()
    lines = texts(doc)
    assert lines[3:] == [f"• Page {n} — summary {n}" for n in range(1, 601)]
    assert reading_order(doc) == list(range(600))


TRICKY = page(
    """
    # Chunks

    - tight one [[A]]
    - tight two
    - tight three

    - loose one

    - loose two [[B]]

    ```text
    a fence

    with a blank line and [[Not A Link]]
    ```

    <!-- a comment

    spanning a blank line -->

    1. first
    2. second

    Last paragraph [[C]].
    """
)


@pytest.mark.parametrize("text", [TRICKY, TRICKY * 3], ids=["once", "thrice"])
def test_a_page_cut_into_chunks_renders_exactly_as_in_one_piece(monkeypatch, text):
    def rendered(chunk_lines: int) -> list[tuple[str, tuple]]:
        monkeypatch.setattr(chunks, "CHUNK_LINES", chunk_lines)
        doc = render_page(text, 60, path="wiki/tricky.md")
        return [(line.text, tuple(s[2] for s in line.segments)) for line in doc.lines]

    assert rendered(1) == rendered(10**9)


OBSIDIAN = textwrap.dedent(
    """\
    A claim[^1] with $x$ and ==marks==.

    $$
    a & b \\\\

    c
    $$

    > [!faq]- Folded
    > Body [[A]].

    Later claim[^2].

    [^1]: First.

    [^2]: Second [[B]].
    """
)


def test_math_footnotes_and_folds_cut_into_chunks_render_as_in_one_piece(monkeypatch):
    def rendered(chunk_lines: int) -> list[tuple[str, tuple]]:
        monkeypatch.setattr(chunks, "CHUNK_LINES", chunk_lines)
        doc = render_page(OBSIDIAN + "\n" + OBSIDIAN, 60, path="wiki/obsidian.md")
        return [(line.text, tuple(s[2] for s in line.segments)) for line in doc.lines]

    whole = rendered(10**9)
    assert rendered(1) == whole
    assert ("a & b \\\\", (None,)) in whole and ("", ()) in whole  # the math block keeps its blank line
    assert [text for text, _ in whole].count("[2] Second B.") == 2
    assert [text for text, _ in whole].count("A claim[1] with x and marks.") == 2  # a footnote keeps its number


def test_a_huge_page_finds_its_links_chunk_by_chunk_with_the_same_result(monkeypatch):
    monkeypatch.setattr(document, "LAZY_LINKS_CHARS", 1000)
    text = "---\ntitle: Big\n---\n" + "".join(
        f"## Part {n}\n\nSee [[Page {n}]] and `[[not {n}]]` and [web](https://e.com/{n}).\n\n" for n in range(300)
    )
    doc = PageDocument(text, path="wiki/big.md")
    doc.set_width(80)
    doc.ensure_lines(10)
    assert len(doc.links) < 600  # links are found as the page is laid out
    doc.ensure_all()
    whole = parse_page("wiki/big.md", text).links
    assert [(lk.start, lk.end, lk.line, lk.target) for lk in doc.links] == [
        (lk.start, lk.end, lk.line, lk.target) for lk in whole
    ]
    assert reading_order(doc) == list(range(600))
    assert doc.find_anchor("part 250") == doc.line_for_source(whole[500].line - 2)


def test_broken_frontmatter_shows_a_warning_and_the_yaml():
    doc = render_page("---\ntitle: [unclosed\n---\n\nBody [[Link]].\n", 80, path="wiki/bad.md")
    lines = texts(doc)
    assert lines[0].startswith("⚠ The frontmatter does not parse")
    assert "warning" in roles_of(doc, "⚠")
    assert any("title: [unclosed" in line for line in lines)
    assert link_text(doc, 0) == ["Link"]


def test_unclosed_frontmatter_and_bad_bytes_are_reported():
    unclosed = render_page("---\ntitle: x\n\nBody.\n", 80, path="wiki/open.md")
    assert texts(unclosed)[0].startswith("⚠ The frontmatter is not closed")
    bad = render_page("caf\ufffd au lait\n", 80, path="wiki/latin1.md")
    assert texts(bad)[0] == "⚠ Not valid UTF-8: undecodable bytes are shown as �"
    assert texts(render_page("caf\ufffd\n", 80, valid_utf8=True))[0] == "caf\ufffd"


def test_an_over_long_line_is_cut_with_a_notice_and_keeps_the_links_before_the_cut():
    line = "".join(f"see [[Page {n}]] then " for n in range(1500))  # ~30,000 characters
    doc = render_page(f"{line}\n\nAfter [[Last]].\n", 100, path="wiki/long-line.md")
    lines = texts(doc)
    assert lines[0] == "⚠ 1 line longer than 10,000 characters is shown cut short"
    assert len(doc.links) == 1501  # the tab stops are still the core's list
    shown = [i for i, first in enumerate(doc.link_first) if first >= 0]
    assert shown[0] == 0 and shown[-1] == 1500 and 100 < len(shown) < 1000
    assert link_text(doc, 1500) == ["Last"]
    assert sum(len(line) for line in lines) < 12_000


def prose_paragraph(size: int) -> str:
    """One paragraph of about ``size`` characters: soft-wrapped lines, no blank line,
    a [[link]] every ~200 characters (some lines start with one)."""
    units = []
    for n in range(size // 200 + 1):
        units.append(
            "The Hatter's watch ran two days slow, and tea went on at the long table;\n"
            f"[[Page {n}|guest {n}]] came in, *sat down* and asked for `butter`, then\n"
            "left before the Dormouse woke. Nobody minded: it was always six.\n"
        )
    return "".join(units)


def shown_words(text: str) -> list[str]:
    """The words a reader sees of :func:`prose_paragraph` text (labels, no markup)."""
    return re.sub(r"\[\[[^|\]]*\|([^\]]*)\]\]", r"\1", text).replace("*", "").replace("`", "").split()


# How long these take is measured by bench/page_layout.py (no test asserts a time: DESIGN §8).


def test_wrapping_one_huge_paragraph_keeps_every_character_within_the_width():
    unit = [("plain words that fill the line, ", "", None), ("a link label", "", 0), (" and ", "strong", None)]
    runs = unit * (400_000 // 50)
    rows = wrap_runs(runs, 80)
    assert all(sum(len(text) for text, _r, _l in row) <= 80 for row in rows)
    shown = "".join(text for row in rows for text, _r, _l in row)
    assert shown.replace(" ", "") == "".join(text for text, _r, _l in runs).replace(" ", "")
    linked = [text for row in rows for text, _r, link in row if link == 0]
    assert " ".join(linked).split() == ["a", "link", "label"] * (400_000 // 50)


def test_a_400kb_single_paragraph_lays_out_with_every_link_a_tab_stop_in_order():
    big = prose_paragraph(384_000)
    doc = render_page(big, 100, path="wiki/para.md")
    core = parse_page("wiki/para.md", big).links
    assert [(lk.start, lk.target) for lk in doc.links] == [(lk.start, lk.target) for lk in core]
    assert len(core) > 1900 and reading_order(doc) == list(range(len(core)))
    assert link_text(doc, 1234) == ["guest 1234"]
    # Laid out in pieces, but no word is lost, doubled or reordered, and no gap opens.
    assert " ".join(texts(doc)).split() == shown_words(big)
    assert "" not in texts(doc)


def test_a_huge_paragraph_is_laid_out_piece_by_piece_for_the_first_screen():
    doc = PageDocument(prose_paragraph(2_000_000), path="wiki/para.md")
    doc.set_width(100)
    doc.ensure_lines(50)
    assert 50 <= len(doc.lines) < 1000  # not the whole paragraph (about 20,000 lines)
    assert not doc.complete
    assert texts(doc)[0].startswith("The Hatter's watch ran two days slow")


NOT_PROSE = page(
    """
    - an item whose paragraph goes on
    with lazy continuation lines [[A]] that belong to the item
    with lazy continuation lines [[A]] that belong to the item
    with lazy continuation lines [[A]] that belong to the item

    A paragraph with indented continuation lines
        that stay text [[B]] and never become code
        that stay text [[B]] and never become code
        that stay text [[B]] and never become code

    A paragraph that is a setext heading [[C]] because of the underline
    A paragraph that is a setext heading [[C]] because of the underline
    ===

    Head [[D]] | Cups
    --- | ---
    Hatter | 12

    Short lines ending in hard breaks\\
    stay [[E]] short lines\\
    to the end.
    """
)


def test_only_plain_prose_paragraphs_are_cut_and_nothing_else_parses_differently(monkeypatch):
    def rendered(cut: bool) -> list[tuple[str, tuple]]:
        monkeypatch.setattr(chunks, "CHUNK_CHARS", 1 if cut else 10**9)
        monkeypatch.setattr(chunks, "CHUNK_LINES", 1 if cut else 10**9)
        monkeypatch.setattr(chunks, "LONG_PARAGRAPH_CHARS", 1 if cut else 10**9)
        doc = render_page(text, 60, path="wiki/tricky.md")
        return [(line.text, tuple(s[2] for s in line.segments)) for line in doc.lines]

    text = NOT_PROSE
    assert rendered(cut=True) == rendered(cut=False)
    text = "> " + prose_paragraph(1_000).replace("\n", "\n> ").rstrip("> ") + "\n"
    whole, pieces = rendered(cut=False), rendered(cut=True)
    # Cut between its lines, a paragraph looks the same: each newline is a line break anyway.
    assert pieces == whole
    assert all(line.startswith("▎ ") for line, _links in pieces)  # still one quote, no gaps
    links = [k for _line, segs in pieces for k in segs if k is not None]
    assert sorted(set(links)) == list(range(len(parse_page("wiki/tricky.md", text).links))) == list(range(6))


def test_control_characters_never_reach_the_terminal():
    doc = render_page("bell\x07 and escape\x1b[31m red\n", 80)
    assert texts(doc)[0] == "bell␇ and escape␛[31m red"


def test_anchors_match_headings_case_insensitively_and_block_ids():
    text = page(
        """
        # Top

        ## Size changes by chapter

        text

        ## Other

        a paragraph with an id ^para-1
        """
    )
    doc = render_page(text, 80)
    lines = texts(doc)
    assert lines[doc.find_anchor("size changes BY chapter")] == "Size changes by chapter"
    assert lines[doc.find_anchor("size-changes-by-chapter")] == "Size changes by chapter"
    assert lines[doc.find_anchor("Top#Other")] == "Other"
    assert lines[doc.find_anchor("^para-1")] == "a paragraph with an id"
    assert doc.find_anchor("Missing") is None


def test_raw_source_view_numbers_lines_and_keeps_markdown_links():
    text = "# Notes\n\nSee [[Alice]] and [x](y.md).\n"
    doc = render_page(text, 60, path="raw/notes.md", source_lexer="markdown")
    assert texts(doc)[2] == "3 │ See [[Alice]] and [x](y.md)."
    assert link_text(doc, 0) == ["[[Alice]]"] and link_text(doc, 1) == ["[x](y.md)"]
    code = render_page("x = 1\n", 60, path="raw/a.py", source_lexer="python")
    assert code.links == [] and "code-number" in roles_of(code, "1")


def sample_pages() -> list[Path]:
    return sorted((SAMPLE / "wiki").rglob("*.md"))


def assert_tab_stops_match_core(path: Path, rel: str) -> None:
    text = read_text(path)
    doc = render_page(text, 80, path=rel)
    core = parse_page(rel, text).links
    assert [(lk.start, lk.target, lk.kind) for lk in doc.links] == [(lk.start, lk.target, lk.kind) for lk in core], rel
    if "[[" not in (text.split("\n---", 1)[0] if text.startswith("---") else ""):
        assert len(doc.links) == len(extract_links(text)), rel
    assert reading_order(doc) == list(range(len(core))), rel
    assert all(first >= 0 for first in doc.link_first), rel


@pytest.mark.skipif(not (SAMPLE / "wiki").is_dir(), reason="the sample vault is not there yet")
def test_every_sample_page_has_the_core_links_as_tab_stops_in_order():
    pages = sample_pages()
    assert pages
    for path in pages:
        assert_tab_stops_match_core(path, path.relative_to(SAMPLE).as_posix())


@pytest.mark.corpus
def test_vault_large_pages_have_the_core_links_as_tab_stops_in_order():
    root = corpus_path("vault-large")
    pages = sorted(root.rglob("*.md"))
    chosen = random.Random(7).sample(pages, min(200, len(pages)))
    for path in chosen:
        assert_tab_stops_match_core(path, path.relative_to(root).as_posix())


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.lists(st.from_regex(r"[a-z]{1,9}(-[a-z]{1,6})?", fullmatch=True), min_size=1,
                                  max_size=8).map(" ".join), min_size=3, max_size=3), min_size=2, max_size=4),
       st.integers(40, 90))
def test_table_cells_break_only_at_spaces_and_hyphens_while_the_longest_words_fit(rows, width):
    table = "\n".join(["| " + " | ".join(r) + " |" if i != 1 else "|---|---|---|" for i, r in
                       enumerate([rows[0], rows[0], *rows[1:]])]) + "\n"
    words = {w for r in rows for cell in r for piece in cell.split() for w in re.findall(r"[^-]*-|[^-]+", piece)}
    longest = [max(len(w) for r in rows for w in re.findall(r"[^\s-]*-|[^\s-]+", r[c])) for c in range(3)]
    doc = render_page(table, width)
    lines = [line.text for line in doc.lines]
    if not lines[0].startswith("┌") or sum(longest) + 10 > width:
        return  # shown row by row, or the words cannot all fit: breaking inside them is allowed
    pieces = {p for t in lines if t.startswith("│") for p in t.replace("│", " ").split()}
    assert pieces <= words | {w for r in rows for cell in r for w in cell.split()}, pieces - words
