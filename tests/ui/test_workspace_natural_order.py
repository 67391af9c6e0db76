"""Natural order in the Wiki tree and the Sources tree: "Chapter 2" before "Chapter 10"."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.core.vault.natural_order import natural_key
from wikitui.ui.widgets.page_tree import PageTree
from wikitui.ui.widgets.source_tree import SourceTree

from tests.ui.workspace_helpers import wait_ready, workspace


def test_numbers_sort_by_value_and_text_ignores_case():
    names = ["Chapter 10", "chapter 2", "Chapter 1", "Chapter 12", "Chapter 11", "Appendix", "chapter 2b"]
    assert sorted(names, key=natural_key) == [
        "Appendix", "Chapter 1", "chapter 2", "chapter 2b", "Chapter 10", "Chapter 11", "Chapter 12",
    ]
    assert sorted(["x007", "x7", "x10", "x06"], key=natural_key) == ["x06", "x007", "x7", "x10"]
    # A digit run far past Python's int-conversion limit still sorts by value.
    big = "9" * 100_000
    assert sorted([f"n{big}", "n10", f"n1{big}"], key=natural_key) == ["n10", f"n{big}", f"n1{big}"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from("aB0129 -_.§é\u0663"), max_size=12), max_size=12))
def test_natural_order_is_a_total_order_consistent_with_numbers(names):
    ordered = sorted(names, key=natural_key)  # never raises (no str/int comparison)
    assert sorted(ordered, key=natural_key) == ordered
    assert sorted(reversed(names), key=natural_key) == ordered  # ties are broken: the order is total


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**30), st.integers(0, 10**30), st.text(max_size=5))
def test_numbers_after_the_same_prefix_compare_by_value(a, b, prefix):
    if any(c.isdigit() for c in prefix):
        prefix = "p"
    assert (natural_key(f"{prefix}{a}") < natural_key(f"{prefix}{b}")) == (a < b)


def _labels(tree) -> list[str]:
    return [str(node.label) for node in tree.root.children]


async def test_the_trees_sort_chapters_naturally(sample_vault):
    pages = sample_vault / "wiki" / "chapters"
    pages.mkdir()
    for n in (1, 2, 10, 11, 12):
        (pages / f"chapter-{n}.md").write_text(f"---\ntitle: Chapter {n}\n---\n\n# Chapter {n}\n", encoding="utf-8")
    raw = sample_vault / "raw" / "notes"
    raw.mkdir()
    for n in (1, 2, 10, 11):
        (raw / f"part-{n}.txt").write_text(f"part {n}\n", encoding="utf-8")
    for n in (10, 2):
        (sample_vault / "raw" / f"vol-{n}").mkdir()
        (sample_vault / "raw" / f"vol-{n}" / "a.txt").write_text("a\n", encoding="utf-8")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        tree = app.main.query_one(PageTree).tree
        folder = tree._node_for_dir("chapters")
        tree._expand(folder)
        await pilot.pause()
        assert [str(n.label) for n in folder.children] == [
            "Chapter 1", "Chapter 2", "Chapter 10", "Chapter 11", "Chapter 12",
        ]
        sources = app.main.query_one(SourceTree)
        folders = [str(n.label) for n in sources.root.children if n.allow_expand]
        assert folders.index("vol-2/") < folders.index("vol-10/")
        notes = sources._node_for_dir("notes")
        sources._expand(notes)
        await pilot.pause()
        assert [str(n.label) for n in notes.children] == [
            "part-1.txt", "part-2.txt", "part-10.txt", "part-11.txt",
        ]
