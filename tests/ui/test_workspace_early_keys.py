"""Keys typed before a screen is ready are kept and handled in order (a quick typist right after launch)."""

from __future__ import annotations

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
