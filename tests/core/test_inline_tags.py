"""Inline ``#tags`` as Obsidian reads them (issue 24.5): found in prose, never in code, headings, URLs or numbers;
``tag:`` search finds them without case, a nested tag by its parents, and an old index is rebuilt once for them.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from wikitui.core.search.facade import SearchIndex
from wikitui.core.search.whoosh import backend as search_mod
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.tags import inline_tags, tag_names, tag_spans

PAGE = """# Heading is no tag

Notes on #camelCase and #area/sub, issue #123 and x#glued are not tags.
Code `#incode` is skipped; so is https://example.org/page#fragment and [a link](#anchor) and [[Page#Section]].

```
#infence
```

%% #incomment %%

    #indented code

Last line #y1984 #日本語 and #trailing/.
"""


def test_a_page_s_inline_tags_in_reading_order_and_what_is_no_tag():
    assert inline_tags(PAGE) == ["camelCase", "area/sub", "y1984", "日本語", "trailing"]


def test_tag_names_are_lower_case_and_a_nested_tag_carries_its_parents():
    assert tag_names(["Area/Sub/Leaf", "#camelCase", "x", "area"]) == ["area/sub/leaf", "area/sub", "area", "camelcase", "x"]


# ------------------------------------------------------------------ properties
NAME = st.from_regex(r"[A-Za-z_][\w/-]{0,12}", fullmatch=True).filter(lambda n: n.strip("/") and not n.strip("/").isdigit())
PROSE = st.text(alphabet=st.sampled_from(list("ab c\n#`/-_1.[]()")), max_size=60)


@settings(max_examples=200, deadline=None)
@given(PROSE)
@example("#1 #22 # x ##")
def test_every_tag_found_starts_a_word_and_is_not_only_digits(text):
    for a, b, name in tag_spans(text):
        assert text[a] == "#" and (a == 0 or text[a - 1].isspace())
        assert text[a + 1 : b].strip("/") == name
        assert not name.replace("/", "").isdigit()
        assert re.fullmatch(r"[\w/-]+", name)


@settings(max_examples=150, deadline=None)
@given(NAME, PROSE, PROSE)
def test_a_tag_in_prose_is_found_and_the_same_tag_in_code_or_a_heading_is_not(name, before, after):
    clean = name.strip("/")
    prose = f"{before}\n\nsee #{name} here\n\n{after}"
    assert clean in inline_tags(prose)
    hidden = "\n".join([f"`#{name}`", f"```\n#{name}\n```", f"# {name}", f"https://x.org/#{name}", f"[l](#{name})"])
    assert clean not in inline_tags(hidden)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=80))
def test_any_text_gives_names_that_are_tags_once_each(text):
    names = inline_tags(text)
    assert len(names) == len(set(names))
    for name in names:
        assert name and "#" + name in text and not name.replace("/", "").isdigit()


@settings(max_examples=100, deadline=None)
@given(st.lists(NAME, max_size=5))
def test_tag_names_cover_every_parent_without_case(tags):
    names = tag_names(tags)
    for tag in tags:
        parts = tag.strip("/").lower().split("/")
        for n in range(1, len(parts) + 1):
            assert "/".join(parts[:n]) in names
    assert all(n == n.lower() for n in names)


# ------------------------------------------------------------------ tag: search
def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def tag_vault(tmp_path) -> Path:
    root = tmp_path / "v"
    write(root, "WIKI.md", "# Schema\n")
    write(root, "wiki/index.md", "# Index\n")
    write(root, "wiki/inline.md", "# Inline\n\nA note about #camelCase and #area/sub.\n")
    write(root, "wiki/front.md", "---\ntitle: Front\ntags: [Area/Other]\n---\n\n# Front\n\nText.\n")
    write(root, "wiki/code.md", "# Code\n\nOnly `#camelCase` in code, and issue #123.\n")
    return root


def paths(hits) -> set[str]:
    return {h.path for h in hits}


def test_tag_search_finds_inline_tags_without_case_and_nested_tags_by_their_parent(tmp_path):
    idx = SearchIndex(Vault.open(tag_vault(tmp_path)))
    idx.update()
    try:
        assert paths(idx.search("tag:camelcase")) == {"wiki/inline.md"}
        assert paths(idx.search("tag:CAMELCASE")) == {"wiki/inline.md"}
        assert paths(idx.search("tag:area")) == {"wiki/inline.md", "wiki/front.md"}
        assert paths(idx.search("tag:area/sub")) == {"wiki/inline.md"}
        assert paths(idx.search("tag:123")) == set()
    finally:
        idx.close()


def test_an_index_written_before_inline_tags_is_rebuilt_once(tmp_path, monkeypatch):
    root = tag_vault(tmp_path)
    with monkeypatch.context() as old:  # the previous version: no inline tags, schema 4
        old.setattr(search_mod, "SCHEMA_VERSION", 4)
        from wikitui.core.vault import tags

        old.setattr(tags, "inline_tags", lambda text, start=0: [])
        idx = SearchIndex(Vault.open(root))
        idx.update()
        assert paths(idx.search("tag:camelcase")) == set()
        idx.close()
    idx = SearchIndex(Vault.open(root))
    first = idx.update()
    second = idx.update()
    try:
        assert paths(idx.search("tag:camelcase")) == {"wiki/inline.md"}
        assert first.rebuilt and not second.rebuilt and second.added == 0
    finally:
        idx.close()
