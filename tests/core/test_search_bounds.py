"""Hostile queries do bounded work (DESIGN §8 "Bounded work"), and the person is told what was capped.

``abcdefghijkl~9`` once ran for minutes in gigabytes: Whoosh builds an automaton
that grows exponentially with the edit distance. These tests check the bounds
themselves (the distance used, the number of terms a query expands to, what is
refused), never a time.
"""

from __future__ import annotations

import itertools
import json
import string
from pathlib import Path

import pytest
from whoosh import query

from wikitui import cli
from wikitui.core.base.errors import BadQuery
from wikitui.core.search.facade import SearchIndex
from wikitui.core.search.whoosh.bounds import MAX_EXPANDED_TERMS, MAX_EXPANDING_WORDS, MAX_FUZZY_DISTANCE
from wikitui.core.search.whoosh.expand import ExpandedTerms, prepare_query
from wikitui.core.search.whoosh.schema import parse_query
from wikitui.core.vault.layout import Vault


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def crowded(tmp_path) -> Path:
    """A vault whose vocabulary holds 676 words two edits from "abcdef", and 5 x 100 words under five prefixes."""
    root = tmp_path / "crowded"
    write(root, "WIKI.md", "# Schema\n")
    near = [f"abcd{a}{b}" for a, b in itertools.product(string.ascii_lowercase, repeat=2)]
    write(root, "wiki/near.md", "---\ntitle: Near\n---\n\n" + " ".join(near) + "\n")
    for p in ("ka", "lo", "mi", "ne", "tor"):
        words = [f"{p}{n:03d}x" for n in range(100)]
        write(root, f"wiki/{p}.md", f"---\ntitle: {p}\n---\n\n" + " ".join(words) + "\n")
    write(root, "wiki/rabbit.md", "---\ntitle: Rabbit\n---\n\nThe white rabbit is late.\n")
    return root


@pytest.fixture
def index(crowded):
    idx = SearchIndex(Vault.open(crowded))
    idx.update()
    yield idx
    idx.close()


def prepared(index: SearchIndex, text: str, notes: list[str] | None = None):
    store = index.backend.store()
    q = parse_query(store, text, notes)
    return q, prepare_query(q, store.searcher().reader())


def leaves(q) -> list:
    return list(q.leaves()) if list(q.children()) else [q]


def fuzzy_distances(q) -> set[int]:
    return {leaf.maxdist for leaf in leaves(q) if isinstance(leaf, query.FuzzyTerm)}


def expanded_terms(q) -> int:
    return sum(len(leaf.btexts) for leaf in leaves(q) if isinstance(leaf, ExpandedTerms))


@pytest.mark.parametrize("text", ["abcdefghijkl~9", "alicekind:raw~9", "abcdef~5", "abcdef~9/1", "(abcdef~7 OR rabbit)"])
def test_a_fuzzy_distance_over_two_is_searched_as_two_with_a_note(index, text):
    notes: list[str] = []
    q, ready = prepared(index, text, notes)
    assert fuzzy_distances(q) == {MAX_FUZZY_DISTANCE}
    assert expanded_terms(ready) <= MAX_EXPANDED_TERMS
    word, asked = text.strip("(").split("~")[0], text.split("~")[1][0]
    assert notes == [f"{word}~{asked}: fuzzy search allows at most 2 edits, so it was searched as {word}~2"]


def test_one_and_two_edits_are_kept_as_asked_without_a_note(index):
    notes: list[str] = []
    q, _ = prepared(index, "rabbit~ abcdef~2", notes)
    assert fuzzy_distances(q) == {1, 2}
    assert notes == []
    hits = index.search("rabit~")
    assert [h.path for h in hits] == ["wiki/rabbit.md"] and hits.notes == ()


def test_a_fuzzy_word_in_a_phrase_is_text_and_gets_no_note(index):
    notes: list[str] = []
    parse_query(index.backend.store(), '"abcdef~9 rabbit"', notes)
    assert notes == []


def test_a_fuzzy_word_expands_to_at_most_256_terms(index):
    _, ready = prepared(index, "abcdef~2/0")  # 676 indexed words are within two edits
    assert expanded_terms(ready) == MAX_EXPANDED_TERMS


def test_all_multi_term_words_of_a_query_share_the_256_terms(index):
    # Five prefixes of 100 terms each (500 in all): each gets an equal share.
    _, ready = prepared(index, "ka* OR lo* OR mi* OR ne* OR tor*")
    per_word = {}
    for leaf in leaves(ready):
        if isinstance(leaf, ExpandedTerms):
            per_word[leaf.original.text] = per_word.get(leaf.original.text, 0) + len(leaf.btexts)
    assert sum(per_word.values()) == MAX_EXPANDED_TERMS
    assert len(per_word) == 5 and min(per_word.values()) >= MAX_EXPANDED_TERMS // 5 - 2
    # Few terms are all kept: "rabbit~" and a prefix of a hundred stay whole.
    _, ready = prepared(index, "ka* rabbit~")
    assert expanded_terms(ready) < MAX_EXPANDED_TERMS
    assert {len(leaf.btexts) for leaf in leaves(ready) if isinstance(leaf, ExpandedTerms) and leaf.fieldname == "body"} >= {100}


def test_searches_still_find_what_a_capped_expansion_keeps(index):
    hits = index.search("abcdef~9")
    assert [h.path for h in hits] == ["wiki/near.md"]
    assert hits.notes and "searched as abcdef~2" in hits.notes[0]


def test_a_fuzzy_word_longer_than_any_indexed_term_is_not_looked_up(index):
    q, ready = prepared(index, "a" * 500 + "~2")
    assert not any(isinstance(leaf, query.FuzzyTerm) for leaf in leaves(q))
    assert index.search("a" * 500 + "~2") == []


def test_too_many_multi_term_words_too_long_or_too_deep_a_query_is_refused(index):
    words = " ".join(f"w{n}*" for n in range(MAX_EXPANDING_WORDS + 1))
    with pytest.raises(BadQuery, match="17 fuzzy, prefix or wildcard words"):
        index.search(words)
    index.search(" ".join(f"w{n}*" for n in range(MAX_EXPANDING_WORDS)))  # at the limit: fine
    with pytest.raises(BadQuery, match="too long"):
        index.search("rabbit " * 200)
    with pytest.raises(BadQuery, match="nested 21 deep"):
        index.search("(" * 21 + "rabbit" + ")" * 21)
    with pytest.raises(BadQuery, match="too long"):
        index.search("[" * 100_000)


def test_wikitui_search_prints_the_note_on_stderr_and_keeps_json_on_stdout(crowded, capsys):
    assert cli.main(["search", "--vault", str(crowded), "--json", "abcdef~9"]) == 0
    out, err = capsys.readouterr()
    assert [h["path"] for h in json.loads(out)] == ["wiki/near.md"]
    assert err == "note: abcdef~9: fuzzy search allows at most 2 edits, so it was searched as abcdef~2\n"
    assert cli.main(["search", "--vault", str(crowded), "rabbit~9"]) == 0
    out, err = capsys.readouterr()
    assert "wiki/rabbit.md" in out and "searched as rabbit~2" in err


def test_the_agents_search_tool_shows_the_note(crowded):
    from wikitui.core.agent.tools import ToolBox
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.vault.graph import LinkGraph

    vault = Vault.open(crowded)
    graph = LinkGraph.load(vault)
    index = SearchIndex(vault)
    index.update(graph)
    box = ToolBox(vault, graph, index, ChangesetBuilder(vault, graph))
    result = box.call("search", json.dumps({"query": "alicekind:raw~9"}))
    assert "Note: alicekind:raw~9: fuzzy search allows at most 2 edits" in result.text
    result = box.call("search", json.dumps({"query": "rabbit~7"}))
    assert "wiki/rabbit.md" in result.text and "Note: rabbit~7:" in result.text
    index.close()
