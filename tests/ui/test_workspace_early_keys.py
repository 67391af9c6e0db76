"""Keys typed before a screen is ready are kept and handled in order (a quick typist right after launch)."""

from __future__ import annotations

import time

from textual import events
from textual.widgets import Input

from wikitui.ui.screens.search import SearchScreen

from tests.ui.workspace_helpers import wait_for, wait_ready, workspace


def _burst(app, keys: list[tuple[str, str | None]]) -> None:
    """Post keys all at once, as a terminal delivers a fast typist's burst (no pause between them)."""
    for key, char in keys:
        app.post_message(events.Key(key, char))


async def test_letters_typed_right_after_slash_land_in_the_search_input(sample_vault):
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        _burst(app, [("slash", "/")] + [(c, c) for c in "rabbit"])
        await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen), "the search screen")
        search_input = app.screen.query_one("#search-input", Input)
        await wait_for(pilot, lambda: search_input.value == "rabbit", "every letter typed in the input")


async def test_a_burst_through_two_screens_keeps_its_order(sample_vault):
    """`/`, a letter, `escape`, `ctrl+p` (a priority key), `escape`, `f2`, `f`, a title, `enter`: all at once."""
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        _burst(
            app,
            [("slash", "/"), ("x", "x"), ("escape", None), ("ctrl+p", None), ("escape", None), ("f2", None), ("f", "f")]
            + [(c, c) for c in "cheshire"]
            + [("enter", "\r")],
        )
        await wait_for(pilot, lambda: app.main.current_path == "wiki/characters/cheshire-cat.md", "the page", 10)
        assert len(app.screen_stack) == 1
        assert app.early_keys.held == 0


async def test_keys_typed_before_the_first_screen_is_mounted_are_handled(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    # Posted before the app runs: they wait in its queue behind the start-up.
    _burst(app, [("slash", "/")] + [(c, c) for c in "queen"])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen), "the search screen", 10)
        search_input = app.screen.query_one("#search-input", Input)
        await wait_for(pilot, lambda: search_input.value == "queen", "the letters in the input", 10)


async def test_enter_typed_at_launch_opens_the_first_result_once_the_index_answers(sample_vault):
    # Issue 21.8: `/ dodo enter` typed at once opened the search with "dodo" and its results, and lost the enter.
    app = workspace(sample_vault, watch=False)  # the index is opened (and brought up to date) after the launch
    _burst(app, [("slash", "/")] + [(c, c) for c in "dodo"] + [("enter", "\r")])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.main.current_path == "wiki/characters/dodo.md", "the first result opened", 20)
        assert len(app.screen_stack) == 1 and app.early_keys.held == 0


async def test_enter_typed_before_the_results_of_the_last_letter_opens_that_query_s_first_result(
    sample_vault, monkeypatch
):
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("slash", *"queen")
        await wait_for(pilot, lambda: "result" in str(app.screen.query_one("#search-status").render()), "results")
        first_queen = app.screen._hits[0].path
        index = app.workspace.search_index
        search = index.search

        def slow(query, **kwargs):  # a large vault: the results of "dodo" come after its enter
            time.sleep(0.3)
            return search(query, **kwargs)

        monkeypatch.setattr(index, "search", slow)
        _burst(app, [("backspace", None)] * 5 + [(c, c) for c in "dodo"] + [("enter", "\r")])
        # Not the highlighted result of "queen", still listed when the enter came.
        await wait_for(pilot, lambda: app.main.current_path in ("wiki/characters/dodo.md", first_queen), "a page", 10)
        assert app.main.current_path == "wiki/characters/dodo.md" and len(app.screen_stack) == 1


async def test_a_return_typed_before_the_terminal_went_raw_is_an_enter(sample_vault):
    # Issue 21.8 in a real terminal: a return typed at launch reaches the app as a line feed (ctrl+j).
    app = workspace(sample_vault, watch=False)
    _burst(app, [("slash", "/")] + [(c, c) for c in "dodo"] + [("ctrl+j", "\n")])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.main.current_path == "wiki/characters/dodo.md", "the first result opened", 20)
        assert len(app.screen_stack) == 1 and app.early_keys.held == 0


async def test_a_ctrl_j_typed_once_the_app_runs_stays_a_ctrl_j(sample_vault):
    from wikitui.ui.early_keys import LAUNCH_READ

    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.pause(LAUNCH_READ)
        await pilot.press("f5")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "agent-input", "the agent's input")
        await pilot.press(*"one", "ctrl+j", *"two")
        assert app.focused.value == "one\ntwo"
