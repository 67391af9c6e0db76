"""Bare ``https://`` URLs are links, as Obsidian shows them (DESIGN §3 "Decisions")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.core.vault.links import bare_url_at, extract_links, mask_text
from wikitui.core.vault.page import parse_page

PAGE = """---
source: https://frontmatter.example/not-a-link
---
# Links

Read https://example.org/alice, then (see https://example.org/wiki/Tea_(party)).
A [[Wiki Link]] and [label](https://md.example/x) and <https://auto.example/y> here.
Code `https://code.example` and %% https://comment.example %% stay text.
<a href="https://attr.example/z">a tag</a> and xhttps://glued.example are not links;
neither is a lone https:// nor http://. at a sentence's end.
Trailing punctuation is left out: https://end.example/a?b=1! And http://plain.example.

```
https://fenced.example
```
"""


def test_bare_urls_are_links_in_reading_order_with_the_others():
    links = parse_page("wiki/p.md", PAGE).links
    assert [(k.kind, k.target) for k in links] == [
        ("url", "https://example.org/alice"),
        ("url", "https://example.org/wiki/Tea_(party)"),
        ("wiki", "Wiki Link"),
        ("url", "https://md.example/x"),
        ("url", "https://auto.example/y"),
        ("url", "https://end.example/a?b=1"),
        ("url", "http://plain.example"),
    ]
    bare = links[0]
    assert PAGE[bare.start : bare.end] == "https://example.org/alice"
    assert bare.line == 6 and bare.label == "" and not bare.embed
    assert bare.text == "https://example.org/alice"


def test_a_page_with_only_a_bare_url_has_that_link():
    # Pages without any "[" used to be skipped before looking for links at all.
    assert [k.target for k in extract_links("see https://example.org\n")] == ["https://example.org"]
    assert extract_links("no links here\n") == []


def test_bare_url_at_trims_what_a_sentence_adds():
    assert bare_url_at("https://a.example/x).", 0) == "https://a.example/x"
    assert bare_url_at("(https://a.example/(b)),", 1) == "https://a.example/(b)"
    assert bare_url_at("https://a.example/*em*", 0) == "https://a.example/*em"
    assert bare_url_at("https://...", 0) is None
    assert bare_url_at('href="https://a.example"', 6) is None


#: Text made of the pieces that make URLs hard: markup, brackets, quotes, code, comments.
pieces = st.sampled_from(
    ["https://", "http://", "a.example", "/", "(", ")", "[", "]", "[[", "]]", "`", "%%", "<!--", "-->",
     "<", ">", '"', "'", "=", ".", ",", " ", "\n", "x", "![", "](", "*", "_", "\\", ":"]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(pieces, max_size=40).map("".join))
def test_bare_urls_never_overlap_other_links_code_or_comments(text):
    links = extract_links(text)
    masked = mask_text(text)
    spans = sorted((k.start, k.end) for k in links)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))  # no overlap
    for link in links:
        if link.kind == "url" and text[link.start] == "h":  # a bare URL
            assert masked[link.start : link.end] == text[link.start : link.end]  # not in code or comments
            assert bare_url_at(masked, link.start) == link.target  # it ends where a comment starts
    assert [k.start for k in links] == sorted(k.start for k in links)


def test_hostile_text_is_linear_and_harmless():
    # Each of these took quadratic time or more in a naive trim, or could cross a NUL.
    closers = "https://a.example/x" + ")" * 100_000
    assert [k.target for k in extract_links(closers)] == ["https://a.example/x"]
    many = "https:// " * 50_000 + "[" * 100_000 + " https://\x00b.example \ud800 https://c.example/\ud800"
    assert [k.target for k in extract_links(many)] == ["https://c.example/\ud800"]
    assert len(extract_links("https://" * 100_000)) == 1  # one (odd) URL, found in one pass
