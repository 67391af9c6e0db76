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

    def held_build(root, progress, stop, note=None):
        # The child process reports some progress, then takes its time (a large vault).
        progress(3, 10)
        gate.wait(30)
        return real(root, progress, stop, note)

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
    monkeypatch.setattr(child_process, "run_indexing", lambda root, progress, stop, note=None: (False, "the disk is full"))
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.workspace.index_state.value == "failed", "the build to fail", 20)
        await pilot.press("slash", *"rabbit")
        await wait_for(pilot, lambda: "the disk is full" in _status(app), "the reason")
        assert _status(app).startswith("Search is not available")


async def test_a_source_the_first_build_could_not_convert_is_named_in_a_notice(sample_vault, monkeypatch):
    from tests.core import formats_samples as samples
    from wikitui.core.base.faults import CRASH_CONVERTING_ENV

    samples.make_pdf(sample_vault / "raw" / "broken.pdf", ("Quokka words never indexed",))
    monkeypatch.setenv(CRASH_CONVERTING_ENV, "broken.pdf")  # the index's child inherits it
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.workspace.index_state.value == "ready", "the build", 60)
        await wait_for(pilot, lambda: app._notifications, "the notice", 5)
        [notice] = [n for n in app._notifications if n.title == "Search index"]
        assert notice.message == "broken.pdf could not be converted (the converter stopped: exit status 3)"
        assert notice.severity == "warning"
