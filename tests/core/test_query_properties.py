"""Property tests of the query language (hypothesis): any query is answered or refused in one line.

Queries come from people, from the agent, and through the agent from documents
written to break things. For any text (lone surrogates, NULs, 100,000 nested
brackets, operators in odd places, fuzzy words with large distances):

- ``search`` returns hits or raises :class:`BadQuery`, nothing else;
- the parsed query never allows more than 2 edits or expands to more than 256
  terms, and a note is given exactly when a larger distance was asked for;
- the fast path (:mod:`wikitui.core.search.whoosh.simple_query`) builds exactly what Whoosh's
  parser builds, whenever it builds anything.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from whoosh import query

from wikitui.core.base.errors import BadQuery
from wikitui.core.search.facade import SearchIndex
from wikitui.core.search.whoosh.bounds import MAX_EXPANDED_TERMS, MAX_FUZZY_DISTANCE
from wikitui.core.search.whoosh.expand import ExpandedTerms, prepare_query
from wikitui.core.search.whoosh.querying import ANY_WORD_NOTE
from wikitui.core.search.whoosh.schema import _FIELD_ALIASES, FIELD_BOOSTS, TEXT_FIELDS, parse_query
from wikitui.core.search.whoosh.simple_query import simple_query
from wikitui.core.vault.layout import Vault

SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)

WORDS = ["rabbit", "white", "queen", "the", "alice", "tea", "party", "hatter", "Straße", "§", "15", "e-mail", "x"]
QUERYISH = st.lists(
    st.one_of(
        st.sampled_from(WORDS),
        st.sampled_from(["AND", "OR", "NOT", "ANDNOT", "ANDMAYBE", "TO"]),
        st.sampled_from(list('()"*?~/^+-:[]{}<>!\\ ') + ["~9", "~2", "~3/1", "~0", "*:*", "\ud800", "\x00", "\n"]),
        st.sampled_from(["tag:", "type:", "kind:", "kind:raw", "kind:page", "title:", "path:", "tags:", "foo:"]),
        st.characters(),
    ),
    max_size=25,
).map(lambda parts: " ".join(parts) if len(parts) % 2 else "".join(parts))


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    root = tmp_path_factory.mktemp("q") / "v"
    pages = {
        "wiki/rabbit.md": "---\ntitle: White Rabbit\ntype: entity\ntags: [character]\n---\n\nThe white rabbit is late for tea.\n",
        "wiki/queen.md": "---\ntitle: Queen\ntype: entity\n---\n\nOff with their heads! The queen plays croquet.\n",
        "wiki/party.md": "---\ntitle: Tea Party\ntype: place\n---\n\nThe hatter pours tea; an e-mail about § 15.\n",
        "raw/chapter.md": "# Chapter\n\nAlice follows the rabbit down the hole. Straße.\n",
    }
    for rel, text in pages.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    idx = SearchIndex(Vault.open(root))
    idx.update()
    yield idx
    idx.close()


def _leaves(q) -> list:
    return list(q.leaves()) if list(q.children()) else [q]


def _asked_distances(text: str) -> list[int]:
    bare = re.sub(r'"[^"]*"', lambda m: " " * len(m.group()), text)
    return [int(d) for d in re.findall(r"[^\s()~]~([0-9])", bare)]


@SETTINGS
@given(QUERYISH)
@example("(" * 100_000 + "rabbit" + ")" * 100_000)
@example("[" * 100_000)
@example("rabbit~9 \ud800 \x00")
@example("rabbit\ud800*")  # Whoosh fails to encode the prefix: refused, and never a reason to rebuild the index
@example("abcdefghijkl~9")
@example("[rabbitOR]")  # a range: two ends, no text
@example("rabbit~3/115rabbit")  # a kept prefix longer than the word
@example("alicekind:raw~9")
@example('"' + "a " * 600 + '"')
@example("a* b* c* d* e* f* g* h* i* j* k* l* m* n* o* p*")
def test_any_query_is_answered_or_refused_in_one_line(index, text):
    try:
        hits = index.search(text, limit=5)
    except BadQuery as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert len(hits) <= 5 and all(h.path for h in hits)
    wanted = [d for d in _asked_distances(text) if d > MAX_FUZZY_DISTANCE]
    notes = [n for n in hits.notes if n != ANY_WORD_NOTE]  # no hit had every word: the note says so
    assert bool(notes) == bool(wanted)


@SETTINGS
@given(QUERYISH)
def test_a_parsed_query_is_bounded(index, text):
    store = index.backend.store()
    notes: list[str] = []
    try:
        q = parse_query(store, text, notes)
    except BadQuery:
        return
    assert all(leaf.maxdist <= MAX_FUZZY_DISTANCE for leaf in _leaves(q) if isinstance(leaf, query.FuzzyTerm))
    ready = prepare_query(q, store.searcher().reader())
    assert sum(len(leaf.btexts) for leaf in _leaves(ready) if isinstance(leaf, ExpandedTerms)) <= MAX_EXPANDED_TERMS
    for note in notes:
        assert f"at most {MAX_FUZZY_DISTANCE} edits" in note


SIMPLE_TOKEN = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(WORDS).map(lambda w: w + "*"),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(lambda ws: '"' + " ".join(ws) + '"'),
    st.tuples(st.sampled_from(["tag", "tags", "type", "kind", "title", "path", "body"]), st.sampled_from(WORDS)).map(
        lambda fv: f"{fv[0]}:{fv[1]}"
    ),
    st.text(st.characters(whitelist_categories=("Lu", "Ll", "Nd")), min_size=1, max_size=8),
)


@SETTINGS
@given(st.lists(SIMPLE_TOKEN, min_size=1, max_size=6), st.sampled_from([" ", "  ", "\t", " \t "]))
def test_the_fast_path_builds_what_the_parser_builds(index, tokens, sep):
    store = index.backend.store()
    text = sep.join(tokens)
    fast = simple_query(store.schema, text, TEXT_FIELDS, FIELD_BOOSTS, _FIELD_ALIASES)
    if fast is None:
        return  # left to the parser: nothing to compare
    parsed = store.parser.parse(text)
    assert fast == parsed and repr(fast) == repr(parsed)
