"""The running workspace says in .wikitui/live that it keeps the index current (`wikitui search` then skips its scan)."""

from __future__ import annotations

import os

from wikitui.core.live import heartbeat

from tests.ui.workspace_helpers import wait_for, wait_ready, workspace


async def test_the_workspace_claims_the_live_file_once_its_index_is_current_and_drops_it_on_quit(sample_vault):
    app = workspace(sample_vault)
    vault = app.workspace.vault
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await wait_for(pilot, lambda: heartbeat.is_live(vault), "the live file", 10)
        assert heartbeat.read(vault)["pid"] == os.getpid()
        await pilot.press("ctrl+q")
    assert not (sample_vault / ".wikitui/live").exists()


async def test_without_a_watcher_there_is_no_claim(sample_vault):
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.pause(0.3)
        assert not heartbeat.is_live(app.workspace.vault)


async def test_the_workspace_answers_wikitui_search_in_another_terminal_while_it_runs(sample_vault):
    import asyncio
    import sys

    async def search() -> tuple[int, bytes, bytes]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "wikitui", "search", "white rabbit", "--json", "--vault", str(sample_vault),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await proc.communicate()
        return proc.returncode, out, err

    app = workspace(sample_vault)
    vault = app.workspace.vault
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await wait_for(pilot, lambda: "sock" in (heartbeat.read(vault) or {}), "the live file naming its socket", 10)
        sock = heartbeat.read(vault)["sock"]
        during = await search()  # the app's loop keeps running meanwhile: the answer comes from a thread
        assert app.workspace.live_server.answered == 1
        await pilot.press("ctrl+q")
    assert not os.path.exists(sock)
    after = await search()  # no workspace now: the command searches by itself
    assert during == after and during[0] == 0 and b"white-rabbit" in during[1]
