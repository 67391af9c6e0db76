"""Chinese, Japanese and Korean in the workspace (issue 24): the palette, ``[[`` completion, search and wrapping."""

from __future__ import annotations

from textual.command import CommandList

from tests.ui.test_chat import ChatHost
from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace
from wikitui.ui.widgets.chat_input import complete


# ------------------------------------------------------------------ the palette and [[ completion (24.3)
# Both already matched any part of a name (WordMatcher's substrings, complete()'s prefixes then substrings):
# these keep it so for CJK names, which have no spaces to start words at.
def _palette_prompts(app) -> list[str]:
    """The palette's hits: each one's first line (the title; the help line under it left out)."""
    hits = app.screen.query_one(CommandList)
    return [str(hits.get_option_at_index(i).prompt).split("\n")[0] for i in range(hits.option_count)]


async def test_ctrl_p_finds_a_cjk_page_by_part_of_its_title(cjk_vault):
    app = workspace(cjk_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+p", *"浮存")
        await wait_for(pilot, lambda: _palette_prompts(app)[:1] == ["浮存金"], "浮存金 first", 5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/concepts/浮存金.md", "the page to open")
        await pilot.press("ctrl+p", *"哈撒韦")  # inside the alias 伯克希尔·哈撒韦
        await wait_for(pilot, lambda: any(p.startswith("伯克希尔") for p in _palette_prompts(app)[:1]), "伯克希尔", 5)
        await pilot.press("escape")
        await pilot.press("ctrl+p", *"バフェ")  # no title holds it: nothing, not everything
        await wait_for(pilot, lambda: not any("バリュー投資" == p for p in _palette_prompts(app)), "no false hit", 5)


def test_wikilink_completion_offers_cjk_titles_and_aliases_by_any_part():
    titles = lambda: ["浮存金", "保险浮存金", "巴菲特", "沃伦·巴菲特", "1962年11月", "1962年12月", "バリュー投資"]  # noqa: E731
    assert [c.label for c in complete("见[[浮存", titles=titles).candidates] == ["浮存金", "保险浮存金"]
    assert [c.label for c in complete("[[巴菲特", titles=titles).candidates] == ["巴菲特", "沃伦·巴菲特"]
    assert [c.label for c in complete("[[1962年", titles=titles).candidates] == ["1962年11月", "1962年12月"]
    assert [c.label for c in complete("[[投資", titles=titles).candidates] == ["バリュー投資"]


async def test_the_chat_input_completes_a_cjk_title(cjk_vault):
    app = ChatHost(cjk_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        chat_input = app.pane.chat_input
        chat_input.focus()
        await pilot.press(*"什么是[[浮存")
        assert chat_input.menu_open
        await pilot.press("tab")
        assert chat_input.text == "什么是[[浮存金]]"
        chat_input.set_text("")
        await pilot.press(*"[[哈撒")  # inside an alias
        await pilot.press("tab")
        assert chat_input.text == "[[伯克希尔·哈撒韦]]"


# ------------------------------------------------------------------ the / screen (24.1)
async def test_the_search_screen_finds_a_word_inside_a_run(cjk_vault):
    from textual.widgets import OptionList

    app = workspace(cjk_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("slash", *"浮存")
        results = app.screen.query_one("#search-results", OptionList)
        await wait_for(pilot, lambda: results.option_count == 5, "a hit in each of the 5 files holding 浮存", 10)
        first = str(results.get_option_at_index(0).prompt)
        assert first.startswith("浮存金") and "浮存" in first.split("\n", 1)[1]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/concepts/浮存金.md", "the page to open")
