"""The running workspace says in .wikitui/live that it keeps the index current (`wikitui search` then skips its scan)."""

from __future__ import annotations

import os

from wikitui.core import live

from tests.ui.workspace_helpers import wait_for, wait_ready, workspace


async def test_the_workspace_claims_the_live_file_once_its_index_is_current_and_drops_it_on_quit(sample_vault):
    app = workspace(sample_vault)
    vault = app.workspace.vault
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await wait_for(pilot, lambda: live.is_live(vault), "the live file", 10)
        assert live.read(vault)["pid"] == os.getpid()
        await pilot.press("ctrl+q")
    assert not (sample_vault / ".wikitui/live").exists()


async def test_without_a_watcher_there_is_no_claim(sample_vault):
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.pause(0.3)
        assert not live.is_live(app.workspace.vault)
