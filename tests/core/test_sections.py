"""What an anchored embed shows (issue 24.5): ``![[Page#^id]]`` the block, ``![[Page#Heading]]`` the section,
embeds inside embeds followed a few levels deep and a loop stopped.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.core.vault.links import extract_links
from wikitui.core.vault.sections import block_text, embedded_part, embedded_parts, section_text

PAGE = """---
title: Source
---
# Source

Intro para
second line ^para

- item one
  - child ^item
    - grandchild
- item two

| a | b |
|---|---|
| 1 | 2 |

^tbl

## Sub

sub text
### Deeper
deep
## Next
next
```
# not a heading ^code
```
"""


def test_a_block_is_its_paragraph_its_list_item_with_children_or_the_block_above_a_lone_id():
    assert block_text(PAGE, "para") == "Intro para\nsecond line ^para"
    assert block_text(PAGE, "ITEM") == "- child ^item\n  - grandchild"
    assert block_text(PAGE, "tbl") == "| a | b |\n|---|---|\n| 1 | 2 |"
    assert block_text(PAGE, "code") is None and block_text(PAGE, "nowhere") is None


def test_a_section_runs_to_the_next_heading_of_its_level_and_headings_compare_as_obsidian_does():
    assert section_text(PAGE, "Sub") == "## Sub\n\nsub text\n### Deeper\ndeep"
    assert section_text(PAGE, "sub") == section_text(PAGE, "Source#Sub")
    assert section_text(PAGE, "Deeper") == "### Deeper\ndeep"
    assert section_text(PAGE, "not a heading") is None
    assert embedded_part(PAGE, "^para") == block_text(PAGE, "para")
    assert embedded_part(PAGE, "Next").startswith("## Next\nnext")


WORD = st.from_regex(r"[a-z]{1,8}", fullmatch=True)
PARAGRAPH = st.lists(WORD, min_size=1, max_size=6).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(PARAGRAPH, min_size=1, max_size=6), st.data())
def test_the_block_named_by_an_id_is_exactly_its_paragraph(paragraphs, data):
    at = data.draw(st.integers(0, len(paragraphs) - 1))
    lines = [p if i != at else p + " ^target" for i, p in enumerate(paragraphs)]
    text = "\n\n".join(lines) + "\n"
    assert block_text(text, "target") == lines[at]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), WORD, PARAGRAPH), min_size=1, max_size=8), st.data())
def test_a_section_holds_its_heading_and_no_heading_of_its_level_or_above_after_it(sections, data):
    at = data.draw(st.integers(0, len(sections) - 1))
    names = [f"{name}{i}" for i, (_level, name, _p) in enumerate(sections)]
    text = "".join(f"{'#' * level} {names[i]}\n\n{para}\n\n" for i, (level, _n, para) in enumerate(sections))
    part = section_text(text, names[at])
    level = sections[at][0]
    assert part is not None and part.startswith(f"{'#' * level} {names[at]}")
    heads = [line for line in part.split("\n")[1:] if line.startswith("#")]
    assert all(len(h) - len(h.lstrip("#")) > level for h in heads)
    assert part in text


def test_embeds_inside_embeds_are_followed_and_a_loop_stops():
    pages = {
        "a.md": "Top ![[b#^x]] ^a",
        "b.md": "B block ![[a#^a]] ^x",
    }
    links = extract_links("See ![[a#^a]]")
    parts = embedded_parts(links, "index.md", lambda link, _from: f"{link.target}.md", pages.get, depth=10)
    chain, part = [], parts.get(0)
    while part is not None:
        chain.append(part.path)
        part = next(iter(part.inner.values()), None)
    assert chain == ["a.md", "b.md"]  # a → b → (a again: a loop, not followed)
    shallow = embedded_parts(links, "index.md", lambda link, _from: f"{link.target}.md", pages.get, depth=1)
    assert list(shallow) == [0] and shallow[0].inner == {}
    assert embedded_parts(extract_links("![[a#^none]] ![[c#^a]]"), "i.md", lambda l, _f: f"{l.target}.md",
                          pages.get) == {}
