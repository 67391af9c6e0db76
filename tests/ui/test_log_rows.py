"""Opening log.md shows its entries as rows: `enter` shows a changeset's diff, `r` proposes its revert and opens
the review, where a later change on the same lines is a conflict; nothing is written until the review is applied
(issue 27.4). A git vault made in a temp dir."""

from __future__ import annotations

import re
import shutil

import pytest

from tests.core.changes_util import git, git_init, make_vault, page, read
from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.workspace import Workspace
from wikitui.ui.screens.conflict import ConflictScreen
from wikitui.ui.screens.log_rows import LogScreen
from wikitui.ui.screens.logged_diff import LoggedDiffScreen
from wikitui.ui.screens.main import MainScreen
from wikitui.ui.screens.review import ReviewScreen
from wikitui.ui.widgets.changeset_files import ChangesetFileList
from wikitui.ui.widgets.diff_view import DiffView
from wikitui.ui.widgets.page_view import PageView

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")

NOTES = page("Notes", "".join(f"Note {i}.\n" for i in range(1, 21)))


def apply_edit(ws: Workspace, old: str, new: str, title: str, model: str) -> str:
    b = ChangesetBuilder(ws.vault, ws.require_graph())
    b.edit("notes.md", [{"old": old, "new": new}], "")
    cs = b.build("edit", title, model=model)
    assert cs is not None
    ws.apply(cs)
    return cs.id


@pytest.fixture
def git_vault(tmp_path, monkeypatch):
    """notes.md in git, then two agent edits: 'Spell five' and a later one, elsewhere or on the same line."""
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Robin")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "robin@example.com")

    def make(later_on_same_line: bool):
        root = make_vault(tmp_path / "v", {"notes.md": NOTES, "other.md": page("Other", "See [[log]].\n")})
        git_init(root)
        ws = Workspace.open(root)
        apply_edit(ws, "Note 5.", "Note five.", "Spell five", "openai/first")
        if later_on_same_line:
            apply_edit(ws, "Note five.", "Note FIVE!", "Shout five", "openai/second")
        else:
            apply_edit(ws, "Note 15.", "Note fifteen.", "Spell fifteen", "openai/second")
        return root

    return make


async def open_log(pilot, app) -> LogScreen:
    await wait_ready(pilot)
    app.main.open_path("wiki/log.md")
    await wait_for(pilot, lambda: isinstance(app.screen, LogScreen) and len(app.screen.rows) == 2, "the log's rows")
    await pilot.pause()
    return app.screen


async def test_log_md_opens_as_rows_enter_shows_the_diff_t_the_raw_text(git_vault):
    root = git_vault(later_on_same_line=False)
    app = workspace(root, watch=False, index=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_log(pilot, app)
        text = screen_text(app)
        assert text.index("Spell fifteen") < text.index("Spell five")  # newest first
        assert "Robin · openai/second" in text and "notes" in text and "edit" in text
        await pilot.press("down", "enter")  # the older entry: Spell five
        await wait_for(pilot, lambda: isinstance(app.screen, LoggedDiffScreen), "the changeset's diff")
        diff = app.screen.query_one(DiffView)
        assert diff.change.base_text == NOTES and diff.change.new_text == NOTES.replace("Note 5.", "Note five.")
        assert "read-only" in screen_text(app) and "Note five." in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back to the rows")
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the page pane")
        assert app.main.current_path == "wiki/log.md"
        await pilot.pause()
        shown = screen_text(app)
        assert "edit | Spell five" in shown and "changeset: cs-" in shown
    assert app.workspace.pending.list() == []



async def test_entries_read_after_the_screen_lost_its_widgets_are_let_go(git_vault):
    """The app quitting removes a screen's widgets before the screen: the entries read meanwhile change nothing."""
    root = git_vault(later_on_same_line=False)
    app = workspace(root, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        screen = await open_log(pilot, app)
        rows = screen.rows
        assert len(rows) == 2
        await screen.query_one("DataTable").remove()
        screen._loaded(list(reversed(rows)))  # (as the reading thread hands them over)
        assert screen.rows == rows  # nothing taken, no NoMatches raised
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, LogScreen), "leaving the log")
    # Mounted as the app quits (a sync's digest pushed at the end of a session): nothing to set up, nothing raised.
    assert not app.is_running and not screen.query("DataTable")
    screen.on_mount()
    assert screen.rows == rows


async def test_esc_goes_back_to_the_page_before_and_a_link_opens_the_rows(git_vault):
    root = git_vault(later_on_same_line=False)
    app = workspace(root, watch=False, index=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/other.md")
        page = app.query_one(PageView)
        await wait_for(pilot, lambda: page.links, "the page's link")
        await pilot.press("tab")
        await wait_for(pilot, lambda: page.selected_link is not None, "the link selected")
        await pilot.press("enter")  # follow [[log]]
        await wait_for(pilot, lambda: isinstance(app.screen, LogScreen), "the rows")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the page pane")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/other.md", "the page before")


async def test_r_proposes_the_revert_merged_with_a_later_change_and_applies_only_when_accepted(git_vault):
    root = git_vault(later_on_same_line=False)
    before = read(root, "wiki/notes.md")
    commits = git(root, "rev-list", "--count", "HEAD")
    app = workspace(root, watch=False, index=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_log(pilot, app)
        await pilot.press("down", "r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review of the revert")
        review = app.screen
        assert review.changeset.id == screen.proposed
        assert review.changeset.title.startswith("revert ") and "(edit | Spell five)" in review.changeset.title
        assert any("Proposed: revert" in n for n in notices(app))
        # Nothing is written while it is reviewed.
        assert read(root, "wiki/notes.md") == before
        assert git(root, "rev-list", "--count", "HEAD") == commits
        await pilot.press("A", "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, ReviewScreen), "the apply")
        expected = NOTES.replace("Note 15.", "Note fifteen.")
        await wait_for(pilot, lambda: read(root, "wiki/notes.md") == expected, "the revert written")
        assert "edit | revert cs-" in read(root, "wiki/log.md")
        assert git(root, "log", "-1", "--format=%s").startswith("wikitui: edit | revert cs-")
        # Back on the rows: the revert's own entry is listed first.
        await wait_for(pilot, lambda: isinstance(app.screen, LogScreen) and len(app.screen.rows) == 3, "the new row")
        assert app.screen.rows[0].entry.title.startswith("revert cs-")


async def test_r_with_a_later_change_on_the_same_lines_names_it_and_the_review_shows_the_conflict(git_vault):
    root = git_vault(later_on_same_line=True)
    before = read(root, "wiki/notes.md")
    app = workspace(root, watch=False, index=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_log(pilot, app)
        await pilot.press("down", "r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review of the revert")
        assert screen.plan is not None and screen.plan.conflicted
        assert any("Later changes on the same lines" in n and "Shout five" in n for n in notices(app))
        files = app.screen.query_one(ChangesetFileList)
        await wait_for(pilot, lambda: "conflict" in files.entry_text(0), "the conflict marked")
        assert "Shout five" in app.screen.query_one(DiffView).change.reason
        await pilot.press("A", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen), "the conflict shown")
        shown = screen_text(app)
        assert "nothing was written" in shown and "Note FIVE!" in shown
        assert read(root, "wiki/notes.md") == before
        assert not re.search(r"revert cs-", read(root, "wiki/log.md"))


def snapshot_vault(root):
    """Fixed dates in log.md, the first entry's and the second's (the rows show no clock)."""
    days = iter(["2026-11-02", "2026-11-08"])
    log = root / "wiki/log.md"
    log.write_text(re.sub(r"^## \[\d{4}-\d{2}-\d{2}\]", lambda _m: f"## [{next(days)}]", read(root, "wiki/log.md"),
                          flags=re.M), encoding="utf-8")


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_log_rows_snapshot(snap_compare, git_vault, size):
    root = git_vault(later_on_same_line=False)
    snapshot_vault(root)

    async def before(pilot):
        await open_log(pilot, pilot.app)
        await pilot.press("down")
        await pilot.app.workers.wait_for_complete()
        pilot.app.clear_notifications()  # the set-up's "search index off" toast times out at its own pace
        await pilot.pause()

    app = workspace(root, watch=False, index=False, theme="wikitui-dark")
    assert snap_compare(app, terminal_size=size, run_before=before)
