"""The direct scorer answers the common queries exactly as Whoosh's own matchers would.

Each test indexes a vault, edits a few files (so the index has several segments and
deleted documents, as it does while someone works), then runs a set of queries both
ways in every scope: the same documents must come back in the same order with the
same scores.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wikitui.core.search.facade import SearchIndex
from wikitui.core.vault.layout import Vault

QUERIES = [
    "alice", "rabbit", "white rabbit", "queen of hearts", "Alice -rabbit", "alice NOT rabbit",
    "(rabbit OR hatter) tea", "rabbit OR cat OR duchess", "tea*", "ra*", "hat*", "rabit~", "cheshir~",
    '"white rabbit"', '"mock turtle" soup', '"the queen"', '"off with their heads"', "tag:character",
    "type:entity alice", "kind:page queen", "kind:raw queen", "tag:character -queen", "e-mail",
    "self-evident", "caterpillar", "the", "x", "zzzznotaword", '"rabbit white"', "title:alice",
]


def _compare(idx: SearchIndex, queries: list[str]) -> int:
    """Run every query both ways in every scope; returns how many the direct scorer answered."""
    from wikitui.core.search.whoosh.fast.scoring import stored_fields, top_docs
    from wikitui.core.search.whoosh.expand import prepare_query
    from wikitui.core.search.whoosh.schema import parse_query

    store = idx._opened()
    direct = 0
    with store.read_lock:
        searcher = store.searcher()
        for text in queries:
            q = prepare_query(parse_query(store, text), searcher.reader())
            for scope in ("all", "wiki", "raw"):
                allowed = store.scope_filter(scope)
                mine = top_docs(searcher, q, 10, allowed)
                if mine is None:
                    continue
                direct += 1
                if allowed is not None and not allowed:
                    assert mine == [], (text, scope)
                    continue
                theirs = [(hit.docnum, hit.score) for hit in searcher.search(q, limit=10, filter=allowed)]
                assert [d for d, _ in mine] == [d for d, _ in theirs], (text, scope)
                docnums = [d for d, _ in mine]
                assert stored_fields(searcher, docnums) == [searcher.stored_fields(d) for d in docnums]
                for (_, a), (_, b) in zip(mine, theirs):
                    assert a == pytest.approx(b, rel=1e-12), (text, scope)
    return direct


def _edit_some(vault: Vault, idx: SearchIndex, count: int) -> None:
    """Append to a few pages and re-index them one by one: new segments, old documents deleted."""
    pages = sorted(p.relative_to(vault.root).as_posix() for p in vault.root.rglob("*.md") if ".wikitui" not in p.parts)
    for i, rel in enumerate(pages[:: max(1, len(pages) // count)][:count]):
        path = vault.root / rel
        path.write_text(path.read_text(encoding="utf-8-sig") + f"\n\nThe white rabbit was late again ({i}).\n", encoding="utf-8")
        idx.update_paths([rel])


def test_every_common_query_scores_as_whoosh_does_after_edits(sample_vault):
    vault = Vault.open(sample_vault)
    idx = SearchIndex(vault)
    idx.update()
    _edit_some(vault, idx, 6)
    assert idx.segment_count() > 1  # several segments, deleted documents among them
    assert _compare(idx, QUERIES) >= 3 * (len(QUERIES) - 1)
    idx.optimize()
    assert idx.segment_count() == 1
    assert _compare(idx, QUERIES) >= 3 * (len(QUERIES) - 1)


def test_a_scope_with_no_files_finds_nothing(tmp_path):
    root = tmp_path / "notes"  # an Obsidian vault: no raw/ at all
    (root / ".obsidian").mkdir(parents=True)
    (root / "Rabbit.md").write_text("# Rabbit\n\nThe white rabbit.\n", encoding="utf-8")
    idx = SearchIndex(Vault.open(root))
    idx.update()
    assert [h.path for h in idx.search("rabbit")] == ["Rabbit.md"]
    assert idx.search("rabbit", scope="raw") == []
    assert idx.search('"white rabbit"', scope="raw") == []
    assert idx.search("NOT zebra", scope="raw") == []  # a query Whoosh runs itself


def test_not_and_minus_exclude_the_same_pages(sample_vault):
    idx = SearchIndex(Vault.open(sample_vault))
    idx.update()
    minus = [(h.path, h.score) for h in idx.search("alice -rabbit", limit=50)]
    word = [(h.path, h.score) for h in idx.search("alice NOT rabbit", limit=50)]
    assert minus and minus == word
    assert all("rabbit" not in (sample_vault / p).read_text(encoding="utf-8").lower() for p, _ in minus)


def test_a_lone_not_is_left_to_whoosh_and_still_answers(sample_vault):
    from wikitui.core.search.whoosh.fast.scoring import top_docs
    from wikitui.core.search.whoosh.expand import prepare_query
    from wikitui.core.search.whoosh.schema import parse_query

    idx = SearchIndex(Vault.open(sample_vault))
    idx.update()
    store = idx._opened()
    q = prepare_query(parse_query(store, "NOT rabbit"), store.searcher().reader())
    assert top_docs(store.searcher(), q, 10) is None
    hits = idx.search("NOT rabbit", limit=500)
    assert hits and all("rabbit" not in (sample_vault / h.path).read_text(encoding="utf-8").lower() for h in hits)


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "queries"),
    [
        (
            "vault-small",
            ["Einkünfte", "Kindergeld Werbungskosten", '"Einkünfte aus Gewerbebetrieb"', '"§ 15"', "Lohnsteu*",
             "Kindergelt~", "tag:kindergeld", "Umsatzsteuer -Vorsteuer", "kind:page Finanzamt", "Ehegatten OR Kinder"],
        ),
        (
            "vault-large",
            ["history", "god", "science religion", '"holy spirit"', '"tat tvam asi"', "relig*", "philosphy~",
             "war -peace", "war NOT peace", "kind:page freedom", "(war OR peace) god", "self-awareness"],
        ),
    ],
)
def test_real_vaults_score_the_same_both_ways(corpus_copy, name: str, queries: list[str]):
    vault = Vault.open(Path(corpus_copy(name)))
    idx = SearchIndex(vault)
    idx.update()
    _edit_some(vault, idx, 4)
    assert _compare(idx, queries) == 3 * len(queries)
