"""Conformance of the search backend: the fast path answers exactly as Whoosh's own searcher.

The Whoosh backend has two ways to answer a query: its fast path (scoring straight
from the postings, reading Whoosh's internals; :mod:`wikitui.core.search.whoosh.fast`)
and Whoosh's public searcher, which it falls back to on any other Whoosh version.
Each test indexes a vault, edits a few files (so the index has several segments and
deleted documents, as it does while someone works), then runs a set of queries both
ways in every scope: the same documents must come back in the same order with the
same scores (and, through the facade, the same snippets and notes).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from wikitui.core.search.facade import SearchIndex
from wikitui.core.search.whoosh.backend import WhooshBackend
from wikitui.core.vault.layout import Vault

QUERIES = [
    "alice", "rabbit", "white rabbit", "queen of hearts", "Alice -rabbit", "alice NOT rabbit",
    "(rabbit OR hatter) tea", "rabbit OR cat OR duchess", "tea*", "ra*", "hat*", "rabit~", "cheshir~",
    '"white rabbit"', '"mock turtle" soup', '"the queen"', '"off with their heads"', "tag:character",
    "type:entity alice", "kind:page queen", "kind:raw queen", "tag:character -queen", "e-mail",
    "self-evident", "caterpillar", "the", "x", "zzzznotaword", '"rabbit white"', "title:alice",
    # No page holds every word: run again with any word enough (querying.any_word).
    "how do I find the rabbit zzzznotaword", 'kind:page "mock turtle" zzzznotaword -alice', "tea* zzzznotaword",
]


def _compare(idx: SearchIndex, queries: list[str]) -> int:
    """Run every query both ways in every scope; returns how many the direct scorer answered."""
    from wikitui.core.search.whoosh.expand import prepare_query
    from wikitui.core.search.whoosh.fast.scoring import stored_fields, top_docs
    from wikitui.core.search.whoosh.querying import any_word
    from wikitui.core.search.whoosh.schema import parse_query

    store = idx.backend.store()
    direct = 0
    with store.read_lock:
        searcher = store.searcher()
        for text in queries:
            q = prepare_query(parse_query(store, text), searcher.reader())
            loose = any_word(q)
            runs = [(q, s, True) for s in ("all", "wiki", "raw")] + [(loose, s, False) for s in ("all", "raw") if loose]
            for q, scope, as_typed in runs:
                allowed = store.scope_filter(scope)
                mine = top_docs(searcher, q, 10, allowed)
                if mine is None:
                    assert as_typed, text  # the loosened query is a shape the fast path scores
                    continue
                direct += as_typed
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


#: Chinese, Japanese and Korean queries (issue 24.1): a CJK word is the phrase of its bigrams, a character a term.
CJK_QUERIES = [
    "巴菲特", "浮存", "浮存金", '"浮存金的成本"', "巴菲特 -浮存金", "巴菲特 NOT 浮存金", "tag:投资 巴菲特", "バフェット",
    "猫", "金", "1962年11月", "巴菲特 float", "护城河 OR 君子", "浮存*", "버핏", "kind:raw 浮存金", "type:source 巴菲特",
    "巴菲特*", "浮*", "巴菲特* -浮存金",
]


def test_cjk_queries_score_as_whoosh_does(cjk_vault):
    vault = Vault.open(cjk_vault)
    fast = SearchIndex(vault, backend=WhooshBackend(vault, fast=True))
    public = SearchIndex(vault, backend=WhooshBackend(vault, fast=False))
    fast.update()
    _edit_some(vault, fast, 4)
    assert fast.segment_count() > 1
    assert _compare(fast, CJK_QUERIES) == 3 * len(CJK_QUERIES)  # the fast path scores every one of them
    mine, theirs = _answers(fast, CJK_QUERIES), _answers(public, CJK_QUERIES)
    _same(mine, theirs)
    assert all(rows for text, scope, rows, _sc, _n in mine if scope == "all"), "each query finds something"


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
    from wikitui.core.search.whoosh.expand import prepare_query
    from wikitui.core.search.whoosh.fast.scoring import top_docs
    from wikitui.core.search.whoosh.schema import parse_query

    idx = SearchIndex(Vault.open(sample_vault))
    idx.update()
    store = idx.backend.store()
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
             "Kindergelt~", "tag:kindergeld", "Umsatzsteuer -Vorsteuer", "kind:page Finanzamt", "Ehegatten OR Kinder",
             "wie zahle ich Kindergeld zzzznotaword"],
        ),
        (
            "vault-large",
            ["history", "god", "science religion", '"holy spirit"', '"tat tvam asi"', "relig*", "philosphy~",
             "war -peace", "war NOT peace", "kind:page freedom", "(war OR peace) god", "self-awareness",
             "how do I find god zzzznotaword"],
        ),
    ],
)
def test_real_vaults_score_the_same_both_ways(corpus_copy, name: str, queries: list[str]):
    vault = Vault.open(Path(corpus_copy(name)))
    idx = SearchIndex(vault)
    idx.update()
    _edit_some(vault, idx, 4)
    assert _compare(idx, queries) == 3 * len(queries)


# ------------------------------------------------------------ through the facade
def _answers(idx: SearchIndex, queries: list[str]) -> list:
    out = []
    for text in queries:
        for scope in ("all", "wiki", "raw"):
            hits = idx.search(text, scope=scope, limit=10)
            out.append((text, scope, [(h.path, h.kind, h.title, h.snippet, h.line) for h in hits],
                        [h.score for h in hits], hits.notes))
    return out


def _same(a: list, b: list) -> None:
    assert len(a) == len(b)
    for (text, scope, rows, scores, notes), (text2, scope2, rows2, scores2, notes2) in zip(a, b):
        assert (text, scope, rows, notes) == (text2, scope2, rows2, notes2)
        assert scores == pytest.approx(scores2, rel=1e-12), (text, scope)


def test_both_backends_give_the_same_hits_snippets_and_notes(sample_vault):
    vault = Vault.open(sample_vault)
    fast = SearchIndex(vault, backend=WhooshBackend(vault, fast=True))
    public = SearchIndex(vault, backend=WhooshBackend(vault, fast=False))
    fast.update()
    _edit_some(vault, fast, 6)
    queries = [*QUERIES, "rabit~3", "NOT rabbit", "alice +rabbit"]
    for _ in ("after edits", "optimised"):
        public.close()  # it reopens on the commits made through the other facade
        mine, theirs = _answers(fast, queries), _answers(public, queries)
        assert fast.backend.fast and not public.backend.fast
        _same(mine, theirs)
        assert sum(1 for _t, _s, rows, _sc, _n in mine if rows) > len(queries)  # they found things
        fast.optimize()


def test_on_another_whoosh_version_whoosh_s_own_searcher_answers(sample_vault, monkeypatch):
    import whoosh

    from wikitui.core.search.whoosh.fast import scoring

    vault = Vault.open(sample_vault)
    expected = SearchIndex(vault, backend=WhooshBackend(vault, fast=True))
    expected.update()
    wanted = _answers(expected, ["white rabbit", "rabbit OR hatter", "tea*"])
    expected.close()
    monkeypatch.setattr(whoosh, "__version__", (2, 7, 6))
    used: list = []
    monkeypatch.setattr(scoring, "top_docs", lambda *args, **kwargs: used.append(args))
    idx = SearchIndex(vault)  # the default backend decides by the installed version
    _same(_answers(idx, ["white rabbit", "rabbit OR hatter", "tea*"]), wanted)
    assert idx.backend.fast is False and used == []


def test_the_fast_path_can_be_switched_off(sample_vault, monkeypatch):
    from wikitui.core.search.whoosh.fast import SWITCH, available

    assert available()  # the version this project pins
    monkeypatch.setenv(SWITCH, "0")
    assert not available()
    idx = SearchIndex(Vault.open(sample_vault))
    idx.update()
    assert idx.search("rabbit") and idx.backend.fast is False


def test_on_another_version_whoosh_itself_is_left_untouched(sample_vault):
    """No stand-in modules, no patched class: a Whoosh the fast path was not written for runs as shipped."""
    code = (
        "import sys, whoosh; whoosh.__version__ = (3, 0, 0)\n"
        "from wikitui.core.search.facade import SearchIndex; from wikitui.core.vault.layout import Vault\n"
        f"idx = SearchIndex(Vault.open({str(sample_vault)!r})); idx.update(); hits = idx.search('rabbit')\n"
        "from whoosh.filedb import compound, structfile\n"
        "print(len(hits) > 0, idx.backend.fast, compound.BufferFile is structfile.BufferFile)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False", "True"]


def test_the_backend_meets_the_protocol(sample_vault):
    from wikitui.core.search.backend import Backend

    assert isinstance(WhooshBackend(Vault.open(sample_vault)), Backend)
