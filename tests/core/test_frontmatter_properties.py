"""Property tests of frontmatter reading (hypothesis): the fast path, PyYAML's path, and page parsing.

- Any text in the block (lone surrogates, NULs, nested brackets) gives a page, with
  ``frontmatter_error`` set when it does not read: no exception escapes.
- The flat fast path (:mod:`wikitui.core.vault.flat_yaml`) either declines or reads exactly
  what ``yaml.safe_load`` reads.
- A mapping written as YAML (flow or block style, LF or CRLF, with a BOM removed
  as the vault does) reads back as that mapping.
- Anchors and aliases are refused, whatever else the block holds.
"""

from __future__ import annotations

import datetime as dt
import string

import yaml
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from wikitui.core.vault.flat_yaml import load_simple
from wikitui.core.vault.page import ALIASES_REFUSED, parse_page

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Text made of YAML's own syntax, so the readers meet quotes, flows, anchors and indentation.
YAMLISH = st.lists(
    st.one_of(
        st.sampled_from(list(":-[]{}&*!|>'\"#,?%@` \n\t\\") + ["\ud800", "\x00", "é", "\r\n", "  - ", ": "]),
        st.sampled_from(["title", "tags", "yes", "no", "null", "~", "0x1f", "1.5", "2026-01-02", "01234", "<<"]),
        st.text(string.ascii_letters + string.digits + " _.-/", max_size=6),
        st.characters(),
    ),
    max_size=60,
).map("".join)


@SETTINGS
@given(YAMLISH)
@example("a: " + "[" * 100_000)
@example("a: &x [*x]")
@example("title: \ud800\x00")
@example("- a\n- b")
@example("yes:")  # PyYAML reads the key as True
@example("a: 1\n\t\nb: 2")  # a tab on a blank line: PyYAML refuses the block
@example("\xa0")  # a no-break space is a character to YAML, not white space
@example("title: \xa0x")
@example("a: b\x85c: d")  # NEL breaks a line in YAML 1.1
def test_any_block_gives_a_page_and_the_fast_path_agrees_with_pyyaml(block):
    info = parse_page("wiki/p.md", f"---\n{block}\n---\n# Heading\n\nbody\n")
    assert isinstance(info.meta, dict) and info.title
    assert (info.frontmatter_error is None) or info.meta == {}
    fast = load_simple(block + "\n")
    if fast is not None:
        slow = yaml.safe_load(block + "\n")
        assert fast == ({} if slow is None else slow)  # an empty block is an empty mapping


KEY = st.from_regex(r"[a-z_][a-z0-9_]{0,11}", fullmatch=True).filter(lambda k: k not in ("y", "n"))
SCALAR = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\x85\u2028\u2029\ufeff"), max_size=30),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2999, 12, 31)),
    st.booleans(),
    st.none(),
)
VALUE = st.one_of(SCALAR, st.lists(SCALAR, max_size=5))


@SETTINGS
@given(st.dictionaries(KEY, VALUE, max_size=8), st.sampled_from([None, True, False]), st.booleans())
def test_a_mapping_written_as_yaml_reads_back_as_that_mapping(mapping, flow, crlf):
    block = yaml.safe_dump(mapping, default_flow_style=flow, allow_unicode=True, sort_keys=False)
    text = "---\n" + block + "---\n\nbody\n"
    if crlf:
        text = text.replace("\n", "\r\n")
    info = parse_page("wiki/p.md", text)
    assert info.frontmatter_error is None
    assert info.meta == mapping


@SETTINGS
@given(st.dictionaries(KEY, SCALAR, min_size=1, max_size=6), st.data())
def test_an_anchor_or_an_alias_anywhere_is_refused(mapping, data):
    keys = list(mapping)
    anchored = data.draw(st.sampled_from(keys))
    lines = []
    for key in keys:
        dumped = yaml.safe_dump({key: mapping[key]}, allow_unicode=True).rstrip("\n")
        if key == anchored:
            name, _, value = dumped.partition(":")
            dumped = f"{name}: &anchor{value}" if value.strip() else f"{name}: &anchor ''"
        lines.append(dumped)
    use_alias = data.draw(st.booleans())
    if use_alias:
        lines.append("again: *anchor")
    block = "\n".join(lines)
    assume("&anchor" in block)
    info = parse_page("wiki/p.md", f"---\n{block}\n---\nbody\n")
    assert info.frontmatter_error == ALIASES_REFUSED
    assert info.meta == {}
