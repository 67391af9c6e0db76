"""Another writer on the same vault while the workspace is open (issue 26.5): a cron `ingest --apply`, an MCP
client or a second workspace. Its writes reach this workspace's screen within the watcher's second, and this
workspace's own apply, made after, is planned against what the other wrote: merged, nothing lost."""

from __future__ import annotations

import subprocess

from tests.cli_run import WIKITUI
from tests.core.changes_util import make_vault, open_vault, page, read
from tests.ui.workspace_helpers import wait_for, wait_ready, workspace
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.pending import PendingStore
from wikitui.ui.screens.review import ReviewScreen
from wikitui.ui.widgets.page_view import PageView

#: Seconds a change on disk may take to reach the screen (the spec says about one; the machine may be busy).
LIVE = 5.0
LONG = "".join(f"Line {i} of the notes.\n" for i in range(1, 31))


async def test_another_writers_apply_shows_here_and_our_apply_merges_over_it(tmp_path):
    root = make_vault(tmp_path / "v", {"notes.md": page("Notes", "# Notes\n\n" + LONG)})
    vault, graph = open_vault(root)
    ours = ChangesetBuilder(vault, graph)
    ours.edit("wiki/notes.md", [{"old": "Line 25 of", "new": "Line twenty-five of"}], "ours")
    mine = ours.build("edit", "Ours, reviewed here", model="m")
    PendingStore(vault).save(mine)
    theirs = ChangesetBuilder(vault, graph)
    theirs.edit("wiki/notes.md", [{"old": "Line 3 of", "new": "Line three (cron) of"}], "theirs")
    other = theirs.build("edit", "The cron job's", model="m")
    PendingStore(vault).save(other)

    app = workspace(root, index=False)  # the real file watcher runs
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        page_view = app.query_one(PageView)
        # Another process (cron, MCP, a second workspace) applies its changeset to the same page.
        done = subprocess.run([str(WIKITUI), "pending", "apply", other.id], cwd=root, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        await wait_for(pilot, lambda: "Line three (cron) of" in page_view.document.source, "their write here", LIVE)
        # Our own changeset, proposed before their write, is applied over it: merged, theirs kept.
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.changeset.id == mine.id,
                       "our review", 30)
        await pilot.press("A", "enter")  # accept the file's hunks, then apply
        await wait_for(pilot, lambda: "Line twenty-five of" in read(root, "wiki/notes.md"), "our apply", 30)
    text = read(root, "wiki/notes.md")
    assert "Line three (cron) of" in text and "Line twenty-five of" in text
    log = read(root, "wiki/log.md")
    assert "The cron job's" in log and "Ours, reviewed here" in log
