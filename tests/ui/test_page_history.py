"""`h` on a page opens its history: the versions, any two compared in the diff view, a restore proposed (issue 27.2)."""

from __future__ import annotations

from tests.core.changes_util import make_vault, page
from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.workspace import Workspace
from wikitui.ui.screens.history import HistoryScreen
from wikitui.ui.screens.review import ReviewScreen
from wikitui.ui.widgets.diff_view import DiffView

NOTES = page("Notes", "".join(f"Note {i}.\n" for i in range(1, 11)))


def vault_with_history(tmp_path):
    """No git: two agent edits of notes.md, applied through the workspace."""
    root = make_vault(tmp_path / "v", {"notes.md": NOTES})
    ws = Workspace.open(root)
    for old, new, title in (("Note 5.", "Note five.", "Spell five"), ("Note 7.", "Note seven.", "Spell seven")):
        b = ChangesetBuilder(ws.vault, ws.require_graph())
        b.edit("notes.md", [{"old": old, "new": new}], "")
        ws.apply(b.build("edit", title, model="openai/tester"))
    return root


async def open_history(pilot) -> HistoryScreen:
    """notes.md shown, then ``h``: its history screen, once its three versions are read."""
    app = pilot.app
    await wait_ready(pilot)
    app.main.open_path("wiki/notes.md")
    await pilot.pause()
    await pilot.press("h")
    await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history screen")
    screen = app.screen
    await wait_for(pilot, lambda: len(screen.versions) == 3, "the versions")
    return screen


async def test_h_shows_the_versions_compares_two_and_proposes_a_restore(tmp_path):
    root = vault_with_history(tmp_path)
    app = workspace(root, watch=False, index=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_history(pilot)
        text = screen_text(app)
        assert text.index("Spell seven") < text.index("Spell five") < text.index("before wikitui's records")
        assert "openai/tester" in text
        # The newest version is highlighted: the diff shows what it changed.
        diff = screen.query_one(DiffView)
        assert diff.change.base_text == NOTES.replace("Note 5.", "Note five.")
        assert "Note seven." in diff.change.new_text
        # Mark the newest, go down to the oldest: the diff compares those two.
        await pilot.press("m", "down", "down")
        await pilot.pause()
        assert screen.marked == 0 and screen.highlighted == 2
        assert "◆" in screen_text(app)
        assert diff.change.base_text == NOTES.replace("Note 5.", "Note five.").replace("Note 7.", "Note seven.")
        assert diff.change.new_text == NOTES
        assert "Comparing" in screen_text(app) and "(marked)" in screen_text(app)
        # Restore the oldest: a pending changeset, nothing written.
        await pilot.press("r")
        await wait_for(pilot, lambda: screen.proposed is not None, "the restore proposal")
        assert any("restore version of" in n for n in notices(app))
        pending = app.workspace.pending.load(screen.proposed)
        assert pending.op == "edit" and pending.files[0].reason == "restore version of earlier"
        assert pending.files[0].new_text == NOTES
        assert "Note seven." in (root / "wiki/notes.md").read_text(encoding="utf-8")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HistoryScreen), "the history to close")
        # The restore is reviewed like any proposal: ctrl+r, accept it, apply.
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("A", "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, ReviewScreen), "the apply")
        await wait_for(pilot, lambda: (root / "wiki/notes.md").read_text(encoding="utf-8") == NOTES, "the restore")
        assert "edit | restore version of earlier" in (root / "wiki/log.md").read_text(encoding="utf-8")


async def test_page_history_is_a_palette_command(tmp_path):
    root = vault_with_history(tmp_path)
    app = workspace(root, watch=False, index=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        await pilot.press("ctrl+p", *"page history")
        await wait_for(pilot, lambda: "compare two, restore one" in screen_text(app), "the command")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history screen")
        await wait_for(pilot, lambda: len(app.screen.versions) == 3, "the versions")


async def test_d_shows_the_page_as_it_was_on_a_day_read_only(tmp_path):
    import json

    from wikitui.core.changes.undo import list_records
    from wikitui.ui.screens.dated_page import DatedPageScreen

    root = vault_with_history(tmp_path)
    for (rel, data), day in zip(list_records(Workspace.open(root).vault), ("2026-11-02", "2026-11-08")):
        (root / rel).write_text(json.dumps(dict(data, applied_at=f"{day}T12:00:00")), encoding="utf-8")
    app = workspace(root, watch=False, index=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        await pilot.pause()
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and len(app.screen.versions) == 3,
                       "the versions")
        screen = app.screen
        await pilot.press("d", *"2026-11-05", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DatedPageScreen) and app.screen.heading, "that day")
        await pilot.pause()
        shown = screen_text(app)
        assert "wiki/notes.md as it was on 2026-11-05" in shown and "read-only" in shown
        assert "Note five." in shown and "Note 7." in shown and "Note seven." not in shown
        assert screen.highlighted == 1
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back to the history")
        await pilot.press("d", *"2026-10-01", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DatedPageScreen) and app.screen.heading, "the earliest")
        await pilot.pause()
        shown = screen_text(app)
        assert "Note 5." in shown and "Note five." not in shown and screen.highlighted == 2
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back to the history")
        await pilot.press("d", *"2026-09-01", "enter")  # before any version the records know: the earliest
        await pilot.pause()
        assert (root / "wiki/notes.md").read_text(encoding="utf-8") == NOTES.replace("Note 5.", "Note five.").replace(
            "Note 7.", "Note seven.")


def test_history_screen_snapshot(snap_compare, tmp_path):
    """The history screen with a version marked and another highlighted (fixed dates and ids: no clock shows)."""
    import json

    from wikitui.core.changes.undo import list_records

    root = vault_with_history(tmp_path)
    records = list_records(Workspace.open(root).vault)
    for n, ((rel, data), day) in enumerate(zip(records, ("2026-11-02", "2026-11-08")), 1):
        (root / rel).write_text(json.dumps(dict(data, applied_at=f"{day}T12:00:00", changeset=f"cs-2026110{n}-abc")),
                                encoding="utf-8")

    async def before(pilot):
        app = pilot.app
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        await pilot.pause()
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and len(app.screen.versions) == 3,
                       "the versions")
        await pilot.press("m", "down", "down")
        await app.workers.wait_for_complete()
        app.clear_notifications()  # the set-up's "search index off" toast times out at its own pace
        await pilot.pause()

    app = workspace(root, watch=False, index=False, theme="wikitui-dark")
    assert snap_compare(app, terminal_size=(120, 30), run_before=before)


async def test_versions_read_while_the_app_quit_are_let_go(tmp_path):
    """A thread's result that arrives as the app quits (its widgets already removed) changes nothing and raises nothing."""
    root = vault_with_history(tmp_path)
    app = workspace(root, watch=False, index=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_history(pilot)
        versions = screen.versions
    assert not app.is_running and not screen.query("OptionList")  # quit: the widgets are gone
    assert screen._loaded([]) is None and screen._failed("late") is None
    assert screen.versions == versions
