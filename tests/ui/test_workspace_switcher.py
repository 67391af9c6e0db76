"""The quick switcher (ctrl+p) matches the words typed in any order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.ui.switcher_match import WordMatcher

from tests.conftest import corpus_path
from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace

STATUTES = [
    "EStG § 15 Einkünfte aus Gewerbebetrieb",
    "EStG § 15a Verluste bei beschränkter Haftung",
    "EStG § 115 Festsetzung mit der Einkommensteuerveranlagung",
    "GewStG § 15 Pauschfestsetzung",
    "UStG § 15 Vorsteuerabzug",
    "EStG § 5 Gewinn bei Kaufleuten",
]


def _ranked(query: str, titles: list[str]) -> list[str]:
    matcher = WordMatcher(query)
    scored = [(matcher.match(t).score, t) for t in titles]
    return [t for s, t in sorted(scored, key=lambda st_: -st_[0]) if s > 0]


def test_words_match_in_any_order():
    for query in ("§ 15 EStG", "EStG § 15", "15 estg §", "gewerbebetrieb estg"):
        assert _ranked(query, STATUTES)[0] == "EStG § 15 Einkünfte aus Gewerbebetrieb", query
    # Every word must match somewhere.
    assert "UStG § 15 Vorsteuerabzug" not in _ranked("§ 15 EStG", STATUTES)
    # Letters in order still find a word (fuzzy), below whole words.
    assert _ranked("gwrbtrb", STATUTES)[0] == "EStG § 15 Einkünfte aus Gewerbebetrieb"


def test_on_vault_small_the_statute_comes_first_whatever_the_word_order():
    wiki = corpus_path("vault-small") / "wiki"
    titles = [p.stem for p in wiki.rglob("*.md")]
    assert len(titles) > 1000
    for query in ("§ 15 EStG", "EStG § 15", "15 EStG"):
        assert _ranked(query, titles)[0] == "EStG § 15 Einkünfte aus Gewerbebetrieb", query


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30), st.text(max_size=60))
def test_any_query_and_name_match_without_error_and_highlight_inside_the_name(query, name):
    found = WordMatcher(query).match(name)
    assert found.score >= 0
    assert all(0 <= p < len(name) for p in found.positions)
    if found.score:
        assert all(w for w in query.split())


def test_hostile_names_and_queries_stay_cheap():
    # Many repeated letters: the letters-in-order search is linear per start, not combinatorial.
    name = "ax" * 190 + "b"
    assert WordMatcher("a" * 30 + "b").match(name).score > 0
    assert WordMatcher("ab " * 50).match(name).score > 0
    assert WordMatcher("x" * 100_000).match(name).score == 0
    assert WordMatcher("straße").match("Die STRASSE").positions == tuple(range(4, 11))


async def test_ctrl_p_finds_a_page_by_words_in_another_order(sample_vault):
    folder = sample_vault / "wiki" / "gesetze"
    folder.mkdir()
    for i, title in enumerate(STATUTES):
        (folder / f"statute-{i}.md").write_text(f"---\ntitle: \"{title}\"\n---\n\n# {title}\n", encoding="utf-8")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+p", *"§ 15 EStG")
        from textual.command import CommandList

        hits = app.screen.query_one(CommandList)
        await wait_for(pilot, lambda: hits.option_count >= 1 and "Gewerbebetrieb" in str(hits.get_option_at_index(0).prompt), "the statute first", 5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/gesetze/statute-0.md", "the page to open")
        assert "EStG § 15 Einkünfte aus Gewerbebetrieb" in screen_text(app)


def test_letters_are_never_gathered_across_words_and_near_spellings_count():
    names = ["Cheshire Cat", "characters/cheshire-cat.md", "White Rabbit", "characters/white-rabbit.md",
             "Duchess", "characters/duchess.md", "Chapter 6: Pig and Pepper", "sources/chapter-06.md"]
    ranked = _ranked("cat chesh", names)
    assert ranked[0] == "Cheshire Cat"
    assert set(ranked) <= {"Cheshire Cat", "characters/cheshire-cat.md"}
    assert _ranked("chesire", names)[:2] == ["Cheshire Cat", "characters/cheshire-cat.md"]  # a typo still finds it
    assert _ranked("whte rabit", names)[0] == "White Rabbit"


async def test_ctrl_p_cat_chesh_lists_the_cheshire_cat_alone_and_each_row_shows_its_path_once(sample_vault):
    from textual.command import CommandList

    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+p", *"cat chesh")
        hits = app.screen.query_one(CommandList)
        await wait_for(pilot, lambda: hits.option_count >= 1 and "Cheshire Cat" in str(hits.get_option_at_index(0).prompt),
                       "the Cheshire Cat first", 5)
        await pilot.pause(0.3)
        rows = [str(hits.get_option_at_index(i).prompt) for i in range(hits.option_count)]
        text = "\n".join(rows)
        assert "White Rabbit" not in text and "Duchess" not in text, rows
        for row in rows:
            assert row.count("cheshire-cat.md") <= 1, row
