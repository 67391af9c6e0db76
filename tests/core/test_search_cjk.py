"""Search in Chinese, Japanese and Korean (issue 24.1): any word inside a run of CJK characters is found.

The vault is tests/data/cjk_vault: natural Chinese and Japanese pages about value
investing (巴菲特, 浮存金, バフェット ...), a Korean one, and public-domain sources
(the Analects, Sōseki). What each word should find is worked out by grep over the
files, so the tests say "every page holding it", not a count typed by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT
from wikitui import cli
from wikitui.core.search.facade import SearchIndex
from wikitui.core.search.whoosh import backend as search_mod
from wikitui.core.vault.layout import Vault

#: Words of two or more characters in the fixture, in each of the three languages.
WORDS = ["巴菲特", "浮存", "浮存金", "护城河", "伯克希尔", "合伙人", "投资", "君子", "不亦", "投資", "バフェット",
         "グレアム", "見当", "書生", "버핏", "투자", "1962年11月"]


def grep(root: Path, word: str) -> set[str]:
    """The indexed files (pages and raw sources) whose text holds ``word`` (tags aside: a word is not a tag)."""
    return {
        p.relative_to(root).as_posix()
        for top in ("wiki", "raw")
        for p in (root / top).rglob("*")
        if p.is_file() and any(word in line for line in p.read_text(encoding="utf-8").splitlines()
                               if not line.startswith("tags:"))
    }


def paths(hits) -> list[str]:
    return [h.path for h in hits]


@pytest.fixture
def cjk(cjk_vault) -> SearchIndex:
    idx = SearchIndex(Vault.open(cjk_vault))
    idx.update()
    yield idx
    idx.close()


# ------------------------------------------------------------------ recall
@pytest.mark.parametrize("word", WORDS)
def test_every_file_holding_a_cjk_word_is_found(cjk, cjk_vault, word):
    expected = grep(cjk_vault, word)
    assert expected, word
    assert set(paths(cjk.search(word, limit=100))) == expected


def test_the_counts_the_fixture_was_written_with(cjk, cjk_vault):
    # 巴菲特 only ever stands inside longer runs (沃伦·巴菲特（, 巴菲特致合伙人的信, 由巴菲特控制的):
    # an analyzer taking a run as one word finds it in none of the eight files.
    assert len(cjk.search("巴菲特", limit=100)) == 8
    assert len(cjk.search("浮存", limit=100)) == 5  # only ever inside 浮存金
    assert len(cjk.search("バフェット", limit=100)) == 2


def test_a_single_character_finds_every_file_holding_it(cjk, cjk_vault):
    for char in ("猫", "金", "仁"):
        assert set(paths(cjk.search(char, limit=100))) == grep(cjk_vault, char), char


# ------------------------------------------------------------------ ranking
#: Queries and the file that must come first: the one about the word, before passing mentions.
FIRST = [
    ("浮存金", "wiki/concepts/浮存金.md"),  # its title, and the word 17 times
    ("浮存", "wiki/concepts/浮存金.md"),  # only ever inside 浮存金
    ("巴菲特", "wiki/entities/巴菲特.md"),
    ("护城河", "wiki/concepts/护城河.md"),
    ("バフェット", "wiki/concepts/バリュー投資.md"),  # twice, against once in グレアム
    ("グレアム", "wiki/entities/グレアム.md"),
    ("投資", "wiki/concepts/バリュー投資.md"),
    ("1962年12月", "wiki/sources/1962年12月.md"),
]


def test_the_page_about_a_word_ranks_first(cjk):
    assert [(query, paths(cjk.search(query))[:1]) for query, _ in FIRST] == [(q, [first]) for q, first in FIRST]


def test_aliases_titles_and_raw_sources_are_searched(cjk):
    assert paths(cjk.search("奥马哈先知")) == ["wiki/entities/巴菲特.md"]  # in an alias only
    assert paths(cjk.search("哈撒韦")) == ["wiki/concepts/伯克希尔.md"]  # inside the alias 伯克希尔·哈撒韦
    assert paths(cjk.search("価値投資")) == ["wiki/concepts/バリュー投資.md"]
    (hit,) = cjk.search("君子", scope="raw")
    assert hit.path == "raw/论语·学而.txt" and hit.kind == "raw"
    assert paths(cjk.search("見当", scope="raw")) == ["raw/吾輩は猫である.txt"]
    assert cjk.search("君子", scope="wiki") == []


# ------------------------------------------------------------------ query syntax
def test_phrases_exclusion_tags_and_or_around_cjk_words(cjk, cjk_vault):
    phrase = grep(cjk_vault, "浮存金的成本")
    assert len(phrase) == 2 and set(paths(cjk.search('"浮存金的成本"', limit=100))) == phrase
    # A phrase needs its characters side by side: 成本 and 浮存金 apart do not match "成本浮存金".
    assert cjk.search('"成本浮存金"') == []
    excluded = grep(cjk_vault, "巴菲特") - grep(cjk_vault, "浮存金")
    assert excluded and set(paths(cjk.search("巴菲特 -浮存金", limit=100))) == excluded
    assert set(paths(cjk.search("巴菲特 NOT 浮存金", limit=100))) == excluded
    assert set(paths(cjk.search("tag:信件", limit=100))) == {"wiki/sources/1962年11月.md", "wiki/sources/1962年12月.md"}
    tagged = {"wiki/entities/巴菲特.md", "wiki/concepts/浮存金.md", "wiki/concepts/护城河.md"}  # tags [投资, ...]
    assert set(paths(cjk.search("tag:投资 巴菲特", limit=100))) == tagged
    assert set(paths(cjk.search("tag:投資", limit=100))) == {"wiki/concepts/バリュー投資.md", "wiki/entities/グレアム.md"}
    either = grep(cjk_vault, "护城河") | grep(cjk_vault, "君子")
    assert set(paths(cjk.search("护城河 OR 君子", limit=100))) == either
    assert set(paths(cjk.search("type:source 巴菲特", limit=100))) == {"wiki/sources/1962年11月.md",
                                                                     "wiki/sources/1962年12月.md"}


def test_a_cjk_prefix_is_the_word_itself(cjk, cjk_vault):
    # No bigram is longer than two characters: 巴菲特* is every file holding 巴菲特, ranked as the word.
    assert [(h.path, h.score) for h in cjk.search("巴菲特*", limit=100)] == [
        (h.path, h.score) for h in cjk.search("巴菲特", limit=100)]
    assert set(paths(cjk.search("浮存金* -伯克希尔", limit=100))) == grep(cjk_vault, "浮存金") - grep(cjk_vault, "伯克希尔")
    assert set(paths(cjk.search("浮*", limit=100))) == grep(cjk_vault, "浮")


def test_english_inside_cjk_text_keeps_its_stemming(cjk):
    assert paths(cjk.search("moat")) == ["wiki/concepts/护城河.md"]  # the text says "Moats" and "moat"
    assert paths(cjk.search("巴菲特 float")) == ["wiki/concepts/浮存金.md"]
    assert paths(cjk.search("letter")) == ["wiki/entities/巴菲特.md"]  # "Buffett's letters"
    assert paths(cjk.search("Buffett")) == ["wiki/entities/巴菲特.md"]  # "（Warren Buffett，" and an alias


def test_full_width_digits_and_letters_are_found_as_ascii(cjk):
    # グレアム.md writes １９３４年 (full-width digits, as Japanese text often does).
    assert paths(cjk.search("1934")) == ["wiki/entities/グレアム.md"]
    assert paths(cjk.search("１９３４年")) == ["wiki/entities/グレアム.md"]
    assert paths(cjk.search("ＢＵＦＦＥＴＴ")) == ["wiki/entities/巴菲特.md"]


def test_snippets_highlight_cjk_words_whole(cjk):
    (hit, *_rest) = cjk.search("浮存金")
    assert "**浮存金**（float）" in hit.snippet and "浮存**" not in hit.snippet.replace("**浮存金**", "")
    (hit,) = cjk.search("見当")
    assert "とんと**見当**がつかぬ" in hit.snippet and hit.line == 2
    (hit,) = cjk.search("猫")
    assert hit.snippet.startswith("吾輩は**猫**である")
    hit = cjk.search("巴菲特 float")[0]
    assert "（**float**）" in hit.snippet and "**巴菲特**认为" in hit.snippet
    hit = cjk.search("1962年11月")[0]
    assert "**1962年11月**" in hit.snippet


# ------------------------------------------------------------------ every caller of the facade
def test_the_command_line_finds_a_word_inside_a_run(capsys, cjk_vault):
    code = cli.main(["search", "浮存", "--json", "--limit", "50", "--vault", str(cjk_vault)])
    out, _err = capsys.readouterr()
    assert code == 0
    hits = json.loads(out)
    assert {h["path"] for h in hits} == grep(cjk_vault, "浮存") and hits[0]["path"] == "wiki/concepts/浮存金.md"
    code = cli.main(["search", "浮存金", "--vault", str(cjk_vault)])
    out, _err = capsys.readouterr()
    assert code == 0 and "wiki/concepts/浮存金.md" in out.splitlines()[0] and "**浮存金**" in out


def test_the_agent_s_search_tool_finds_a_word_inside_a_run(cjk_vault):
    from wikitui.core.agent.tools import ToolBox
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.vault.graph import LinkGraph

    vault = Vault.open(cjk_vault)
    graph = LinkGraph.load(vault)
    index = SearchIndex(vault)
    index.update(graph)
    box = ToolBox(vault, graph, index, ChangesetBuilder(vault, graph))
    out = box.call("search", json.dumps({"query": "巴菲特", "limit": 50})).text
    assert out.startswith('8 hits for "巴菲特"')
    assert all(path in out for path in grep(cjk_vault, "巴菲特"))
    assert out.splitlines()[1].startswith("1. wiki/entities/巴菲特.md")


def test_the_mcp_search_tool_finds_a_word_inside_a_run(cjk_vault, monkeypatch):
    pytest.importorskip("mcp.client.stdio", reason="the mcp SDK is in the test extra")
    from tests.core import test_mcp
    from tests.core.test_mcp import run_client, text_of

    # The SDK starts the server with a minimal environment: make it run this checkout.
    real = test_mcp.mcp_client.StdioServerParameters

    def with_path(**kw):
        return real(**kw, env={**test_mcp.mcp_client.get_default_environment(), "PYTHONPATH": str(ROOT)})

    monkeypatch.setattr(test_mcp.mcp_client, "StdioServerParameters", with_path)

    seen = {}

    async def script(session) -> None:
        seen["hits"] = text_of(await session.call_tool("search", {"query": "浮存", "limit": 50}))

    run_client(cjk_vault, script)
    assert seen["hits"].startswith('5 hits for "浮存"')
    assert all(path in seen["hits"] for path in grep(cjk_vault, "浮存"))


# ------------------------------------------------------------------ the index is rebuilt once
def index_as_schema_3(vault: Vault, monkeypatch) -> None:
    """Write the index the previous version wrote: schema 3, a run of CJK characters one word."""
    from wikitui.core.search.whoosh.analysis import WikiAnalyzer

    def whole_run(t, run, pos, at, unigrams, positions, chars, keeporiginal):
        t.text, t.stopped, t.boost = run, False, 1.0
        t.pos, t.startchar, t.endchar = pos, at, at + len(run)
        yield t

    with monkeypatch.context() as old:
        old.setattr(search_mod, "SCHEMA_VERSION", 3)
        old.setattr(WikiAnalyzer, "_cjk_run", staticmethod(whole_run))
        before = SearchIndex(vault)
        before.update()
        assert before.search("浮存") == []  # what the issue reports
        before.close()


def test_an_index_of_the_previous_analysis_is_rebuilt_once_with_progress(cjk_vault, monkeypatch):
    """An index written before CJK bigrams (schema 3: a run was one word) is rebuilt, reporting progress."""
    vault = Vault.open(cjk_vault)
    index_as_schema_3(vault, monkeypatch)
    after = SearchIndex(vault)
    seen: list[tuple[int, int]] = []
    stats = after.update(progress=lambda done, total: seen.append((done, total)))
    assert stats.rebuilt and stats.added == 13
    assert seen and seen[-1] == (13, 13)
    assert set(paths(after.search("浮存", limit=100))) == grep(cjk_vault, "浮存")
    names = {f.name for f in (vault.state_dir / "index").iterdir() if f.suffix in (".toc", ".seg")}
    assert names and not any("_v3" in n for n in names)
    assert not after.update().rebuilt  # once
    after.close()
