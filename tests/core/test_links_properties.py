"""Property tests of the link parser (hypothesis): any text parses, and what is found is where it says.

Any text at all: lone surrogates, NUL bytes, 100,000 nested brackets, CRLF. No
exception escapes, masking keeps every offset and line, each link's offsets and
line point at its own text, and links written from parts read back as those parts.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from wikitui.core.vault.links import CONTEXT_CHARS, WIKILINK, cut_context, extract_links, mask_body, mask_text, split_wikilink
from wikitui.core.vault.page import parse_page

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Text biased towards markdown's syntax, so brackets, fences and comments meet often.
MARKUP = st.lists(
    st.one_of(
        st.sampled_from(list("[]()!|#^`~%<>-*\\ \n\r\t:/.\x00")),
        st.sampled_from(["[[", "]]", "](", "```", "~~~", "%%", "<!--", "-->", "---\n", "\ud800", "\udfff", "é", "§"]),
        st.characters(),
        st.text(max_size=8),
    ),
    max_size=120,
).map("".join)
NESTED = "[" * 100_000 + "x" + "]" * 100_000


@SETTINGS
@given(MARKUP)
@example(NESTED)
@example("[[" * 50_000)
@example("\ud800[[a\udfff]]\x00[b](c\ud800)")
@example("```\n[[not a link]]\n")
@example("http://0")  # a bare URL: the test once took every link to start with a bracket
def test_any_text_parses_and_links_point_at_their_own_text(text):
    masked = mask_text(text)
    assert len(masked) == len(text)
    assert [i for i, c in enumerate(masked) if c == "\n"] == [i for i, c in enumerate(text) if c == "\n"]
    for link in extract_links(text):
        assert 0 <= link.start < link.end <= len(text)
        raw = text[link.start : link.end]
        if not raw.startswith(("[", "![")):  # a bare address is a link too (Obsidian's default)
            assert link.kind == "url" and raw == link.target and raw.startswith(("http://", "https://"))
        else:
            assert raw.endswith(("]]", ")"))
        assert link.embed == raw.startswith("!")
        assert link.line == text.count("\n", 0, link.start) + 1
        assert len(link.context) <= CONTEXT_CHARS
        assert "\n" not in link.context
        assert link.kind in ("wiki", "md", "url")
        assert link.target or link.anchor or link.kind != "wiki"


@SETTINGS
@given(MARKUP, st.integers(min_value=0, max_value=300))
def test_masking_a_body_from_any_line_start_agrees_with_masking_the_whole(text, cut):
    cut = min(cut, len(text))
    start = text.rfind("\n", 0, cut) + 1  # a line start, as parse_page passes
    body = mask_body(text, start)
    assert len(body) == len(text) and body[:start] == text[:start]


@SETTINGS
@given(MARKUP)
@example(NESTED)
@example("---\n" + "[" * 100_000 + "\n---\n")
def test_any_text_is_a_page(text):
    info = parse_page("wiki/x.md", text)
    assert info.title
    assert all(1 <= h.level <= 6 and h.line >= 1 for h in info.headings)


WORD = st.text(st.characters(blacklist_characters="[]|#^\n\r\\%`<~", blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20)


@SETTINGS
@given(
    st.lists(st.tuples(WORD, st.one_of(st.just(""), WORD), st.one_of(st.just(""), WORD), st.booleans()), max_size=8),
    st.text(st.characters(blacklist_characters="[]!`~%<\\", blacklist_categories=("Cs",)), max_size=30),
)
def test_wikilinks_written_from_parts_read_back_as_those_parts(parts, filler):
    pieces, expected = [], []
    for target, anchor, label, embed in parts:
        if not target.strip():
            continue
        inner = target + (f"#{anchor}" if anchor else "") + (f"|{label}" if label else "")
        pieces.append(("!" if embed else "") + f"[[{inner}]]")
        expected.append((target.strip(), anchor.strip(), label.strip(), embed))
    text = filler.join(pieces) if filler.strip() or not filler else " ".join(pieces)
    found = [(l.target, l.anchor, l.label, l.embed) for l in extract_links(text) if l.kind == "wiki"]
    assert found == expected
    for target, anchor, label, _embed in expected:
        inner = target + (f"#{anchor}" if anchor else "") + (f"|{label}" if label else "")
        assert split_wikilink(inner) == (target, anchor, label)


def _reference_mentions(text: str, names: list[str]) -> list[tuple[int, str]]:
    """Unlinked mentions the plain way: blank every link, then one row per line holding a name."""
    info = parse_page("wiki/other.md", text)
    masked = list(mask_text(text, frontmatter_end=info.body_line - 1 if info.has_frontmatter else 0))
    for m in WIKILINK.finditer("".join(masked)):
        masked[m.start() : m.end()] = " " * (m.end() - m.start())
    for link in info.links:
        masked[link.start : link.end] = " " * (link.end - link.start)
    blanked = "".join(masked)
    pattern = re.compile(r"(?<![\w])(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w])", re.IGNORECASE)
    rows: dict[int, str] = {}
    for m in pattern.finditer(blanked):
        line = blanked.count("\n", 0, m.start()) + 1
        rows.setdefault(line, cut_context(text.split("\n")[line - 1]))
    return list(rows.items())


@SETTINGS
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["Alice", "alice", "[[Alice]]", "![[Alice]]", "[Alice](a.md)", "[[x|Alice]]", "`Alice`",
                             "Alices", "xAlice", "%%Alice%%", "\n", " ", "\n```\nAlice\n```\n", "[", "]", "!", "(", ")"]),
            st.text(max_size=4),
        ),
        max_size=40,
    ).map("".join)
)
def test_unlinked_mentions_are_the_lines_naming_the_page_outside_links(text):
    from wikitui.core.vault.mentions import _mentions

    info = parse_page("wiki/other.md", text)
    pattern = re.compile(r"(?<![\w])(?:Alice)(?![\w])", re.IGNORECASE)
    found = [(m.line, m.context) for m in _mentions("wiki/other.md", text, info, pattern)]
    assert found == _reference_mentions(text, ["Alice"])
