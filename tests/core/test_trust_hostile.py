"""Hostile input to the trust checks (DESIGN §8): answers, callouts and names are data, whatever they hold."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tests.core.test_lint import build, lint, page
from wikitui.core.agent.citations import check_citations
from wikitui.core.vault.contradictions import find_contradictions
from wikitui.core.vault.duplicates import fold, near_duplicates
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.text_facts import shingle_sample

NASTY = ["[[" * 100_000, "]]" * 100_000, "> [!contradiction] " + "[[" * 50_000 + " — " + "]]" * 50_000,
         "raw/" * 50_000, "\ud800 [[Dodo\udfff]] raw/x\x00.md", "\x00" * 1000, "[[raw/chapter-01.md#page=" + "9" * 50 + "]]"]


def test_hostile_answers_are_checked_without_error(sample_vault):
    graph = LinkGraph.load(Vault.open(sample_vault))
    for text in NASTY:
        for cited in check_citations(text, graph):
            assert isinstance(cited.target, str)
    assert all(c.path is None for c in check_citations("raw/../../etc/passwd and [[../../x]]", graph))


def test_hostile_callouts_and_names_are_data():
    for text in NASTY:
        find_contradictions(text)
        shingle_sample(text)
        fold(text)
    names = {f"p{i}.md": [text] for i, text in enumerate(NASTY)}
    near_duplicates(names, {p: shingle_sample(t) for p, [t] in names.items()})


def test_a_page_full_of_brackets_and_surrogates_lints(tmp_path):
    root = build(tmp_path, {"wiki/alpha.md": page("Alpha", "See [[Beta]]. " + "[[" * 20_000,
                                                   sources="[raw/src.md]")})
    with (root / "wiki/alpha.md").open("ab") as fh:
        fh.write(b"\xed\xa0\x80 a lone surrogate's bytes, and \xff\n")  # not UTF-8
    report = lint(root)
    assert report.counts["contradiction"] == 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=2, max_size=30))
def test_near_duplicates_never_pair_a_page_with_itself_and_are_symmetric(titles):
    names = {f"p{i}.md": [t] for i, t in enumerate(titles)}
    for dup in near_duplicates(names, {}):
        assert dup.a < dup.b and dup.a != dup.b
    assert near_duplicates(names, {}) == near_duplicates(dict(reversed(list(names.items()))), {})
