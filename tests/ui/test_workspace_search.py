"""The `/` search screen opened while the first index build runs: progress, then results by themselves."""

from __future__ import annotations

import threading

from textual.widgets import OptionList, Static

from wikitui.core.search import child_process
from wikitui.ui.screens.search import SearchScreen
from wikitui.ui.widgets.index_status import IndexStatus

from tests.ui.workspace_helpers import wait_for, workspace


def _status(app) -> str:
    return str(app.screen.query_one("#search-status", Static).render())


async def test_search_opened_during_the_first_build_shows_progress_then_results(sample_vault, monkeypatch):
    gate = threading.Event()
    real = child_process.run_indexing

    def held_build(root, progress, stop):
        # The child process reports some progress, then takes its time (a large vault).
        progress(3, 10)
        gate.wait(30)
        return real(root, progress, stop)

    monkeypatch.setattr(child_process, "run_indexing", held_build)
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        status = lambda: app.main.query_one(IndexStatus).state  # noqa: E731
        await wait_for(pilot, lambda: status() == "indexing 3/10", "the build's first progress", 20)
        await pilot.press("slash", *"rabbit")
        assert isinstance(app.screen, SearchScreen)
        await wait_for(pilot, lambda: "indexing… 3 of 10" in _status(app), "the build's progress in the search screen")
        assert "not available" not in _status(app)
        results = app.screen.query_one("#search-results", OptionList)
        assert results.option_count == 0

        gate.set()  # the build finishes; nobody presses a key
        await wait_for(pilot, lambda: results.option_count > 0, "results without a key press", 30)
        assert "result" in _status(app)
        assert "rabbit" in str(results.get_option_at_index(0).prompt).lower()


async def test_a_failed_build_says_why_in_the_search_screen(sample_vault, monkeypatch):
    monkeypatch.setattr(child_process, "run_indexing", lambda root, progress, stop: (False, "the disk is full"))
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.workspace.index_state.value == "failed", "the build to fail", 20)
        await pilot.press("slash", *"rabbit")
        await wait_for(pilot, lambda: "the disk is full" in _status(app), "the reason")
        assert _status(app).startswith("Search is not available")
