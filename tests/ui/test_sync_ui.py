"""Sync from the workspace: the palette's "Sync with upstream" (issue 26.1), with the same merge as ``wikitui sync``."""

from __future__ import annotations

import pytest

from tests.core.changes_util import git, read
from tests.core.test_sync import apply_edit, sides, sync  # noqa: F401 - sides is a fixture
from tests.ui.workspace_helpers import wait_for, wait_ready, workspace


def _notices(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]  # type: ignore[attr-defined]


async def test_the_palette_syncs_and_shows_what_came_in(sides):  # noqa: F811
    remote, alice, bob = sides
    apply_edit(alice, "wiki/concepts/Attention.md", "See [[Notes]].", "See [[Notes]] (Alice).", "Alice's note")
    assert sync(alice)[0] == 0
    apply_edit(bob, "wiki/notes.md", "Line 3 of", "Line three of", "Bob's fix")
    app = workspace(bob, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+p", *"sync with")
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("came in" in n for n in _notices(app)), "the sync's notice", 60)
        assert any("pushed" in n for n in _notices(app))
        graph = app.main.workspace.graph
        assert graph is not None and "(Alice)" in read(bob, "wiki/concepts/Attention.md")
    assert git(remote, "rev-parse", "main") == git(bob, "rev-parse", "HEAD")  # Bob's fix went out


async def test_a_conflict_opens_for_the_person_to_resolve_and_nothing_is_pushed_until_then(sides):  # noqa: F811
    from tests.ui.workspace_helpers import screen_text
    from wikitui.ui.screens.sync_conflicts import SyncConflictsScreen

    remote, alice, bob = sides
    apply_edit(alice, "wiki/notes.md", "Line 3 of", "Line three of", "Alice's fix")
    assert sync(alice)[0] == 0
    pushed_by_alice = git(remote, "rev-parse", "main")
    apply_edit(bob, "wiki/notes.md", "Line 3 of", "Line 3 (third) of", "Bob's fix")
    before = read(bob, "wiki/notes.md")
    app = workspace(bob, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.action_sync()
        await wait_for(pilot, lambda: isinstance(app.screen, SyncConflictsScreen), "the conflicts", 60)
        conflicts = app.screen
        await wait_for(pilot, lambda: "Line three of" in screen_text(app), "theirs' lines shown", 30)
        assert "Line 3 (third) of" in screen_text(app) and "wiki/notes.md" in screen_text(app)
        assert read(bob, "wiki/notes.md") == before and git(remote, "rev-parse", "main") == pushed_by_alice
        await pilot.press("enter")  # not yet: one is left
        await wait_for(pilot, lambda: any("Still to resolve" in n for n in _notices(app)), "the refusal", 30)
        assert isinstance(app.screen, SyncConflictsScreen)
        await pilot.press("t")  # take Alice's line
        await wait_for(pilot, lambda: app.screen.resolved == {"wiki/notes.md": "theirs"}, f"the choice {_notices(app)}", 30)
        assert "take theirs" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: git(remote, "rev-parse", "main") == git(bob, "rev-parse", "HEAD"),
                       "the push", 60)
    text = read(bob, "wiki/notes.md")
    assert "Line three of" in text and "Line 3 (third)" not in text and "<<<<<<<" not in text
    # Pushed by a sync as the app quits, the screen mounts with its widgets gone: nothing set up, nothing raised.
    assert not app.is_running and not conflicts.query("DataTable")
    assert conflicts.on_mount() is None


async def test_e_resolves_a_conflict_by_hand_in_the_editor(sides, tmp_path, monkeypatch):  # noqa: F811
    import contextlib
    import stat

    from wikitui.ui.screens.sync_conflicts import SyncConflictsScreen

    remote, alice, bob = sides
    apply_edit(alice, "wiki/notes.md", "Line 3 of", "Line three of", "Alice's fix")
    assert sync(alice)[0] == 0
    apply_edit(bob, "wiki/notes.md", "Line 3 of", "Line 3 (third) of", "Bob's fix")
    editor = tmp_path / "fake-editor"
    editor.write_text("#!/bin/sh\nsed -i 's/Line 3 (third) of/Line three (third) of/' \"$1\"\n", encoding="utf-8")
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("VISUAL", str(editor))
    app = workspace(bob, watch=False, index=False)

    @contextlib.contextmanager
    def suspend():  # the headless test driver cannot suspend; a terminal can
        yield

    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        monkeypatch.setattr(app, "suspend", suspend)
        app.main.action_sync()
        await wait_for(pilot, lambda: isinstance(app.screen, SyncConflictsScreen), "the conflicts", 60)
        await pilot.press("e")
        await wait_for(pilot, lambda: app.screen.resolved == {"wiki/notes.md": "file"}, "taken as edited", 30)
        await pilot.press("enter")
        await wait_for(pilot, lambda: git(remote, "rev-parse", "main") == git(bob, "rev-parse", "HEAD"),
                       "the push", 60)
    assert "Line three (third) of" in git(bob, "show", "HEAD:wiki/notes.md")
    assert git(bob, "status", "--porcelain") == ""


async def test_what_came_in_is_shown_as_a_digest_and_marked_in_the_tree_until_opened(sides):  # noqa: F811
    from tests.ui.workspace_helpers import screen_text
    from wikitui.ui.screens.log_rows import LogScreen
    from wikitui.ui.widgets.page_tree import PageTree

    _remote, alice, bob = sides
    apply_edit(bob, "wiki/notes.md", "Line 9 of", "Line nine of", "Bob's own")  # not in the digest: ours
    apply_edit(alice, "wiki/concepts/Attention.md", "See [[Notes]].", "See [[Notes]] (Alice).", "Alice's note")
    assert sync(alice)[0] == 0
    app = workspace(bob, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.action_sync()
        await wait_for(pilot, lambda: isinstance(app.screen, LogScreen) and app.screen.rows, "the digest", 60)
        digest = app.screen
        assert [r.entry.title for r in digest.rows] == ["Alice's note"]  # only what came in
        assert "Came in from origin/main" in screen_text(app) and "Alice" in screen_text(app)
        tree = app.main.query_one(PageTree)
        assert tree.tree.unread == {"wiki/concepts/Attention.md"}
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, LogScreen), "back to the workspace", 30)
        app.main.open_path("wiki/concepts/Attention.md")
        await wait_for(pilot, lambda: not tree.tree.unread, "no longer marked", 30)
    from wikitui.core.sync.unread import read_unread
    from wikitui.core.vault.layout import Vault

    assert read_unread(Vault.open(bob)) == set()


# ------------------------------------------------------------------ [sync] every_minutes (26.6)
def test_the_schedule_waits_its_period_skips_a_busy_workspace_and_keeps_failures_quiet():
    from wikitui.ui.sync_schedule import SyncSchedule

    now = [1000.0]
    started: list[bool] = []
    busy = [False]
    pending = [True]
    schedule = SyncSchedule(start=started.append, busy=lambda: busy[0], has_pending=lambda: pending[0],
                            clock=lambda: now[0])
    intervals = []
    schedule.configure(5, lambda every, fn: intervals.append(every))
    assert intervals == [30.0]
    assert not schedule.check()  # not due yet
    now[0] += 5 * 60
    busy[0] = True
    assert not schedule.check()  # a turn is running: later
    busy[0] = False
    assert schedule.check() and started == [False]  # due; changesets wait for review: no push
    assert not schedule.check()  # one at a time
    assert schedule.finished(failed="could not fetch from origin") is not None  # the first failure: one notice
    now[0] += 5 * 60
    pending[0] = False
    assert schedule.check() and started == [False, True]
    assert schedule.finished(failed="could not fetch from origin") is None  # the same again: quiet
    now[0] += 5 * 60
    assert schedule.check()
    assert schedule.finished(came_in=2) == "Scheduled sync: 2 commit(s) came in."
    off = SyncSchedule(start=started.append, busy=lambda: False, has_pending=lambda: False)
    off.configure(None, lambda every, fn: intervals.append(every))
    assert intervals == [30.0] and not off.check()


def test_sync_every_minutes_is_read_from_the_config(tmp_path, monkeypatch):
    from wikitui.core.config.settings import load_settings

    folder = tmp_path / "v" / ".wikitui"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text("[sync]\nevery_minutes = 15\n", encoding="utf-8")
    assert load_settings(tmp_path / "v").sync_every_minutes == 15.0
    (folder / "config.toml").write_text("[sync]\nevery_minutes = \"often\"\n", encoding="utf-8")
    settings = load_settings(tmp_path / "v")
    assert settings.sync_every_minutes is None and any("sync.every_minutes" in w for w in settings.warnings)


async def test_a_scheduled_sync_brings_commits_in_and_does_not_push_while_a_changeset_waits(sides):  # noqa: F811
    from tests.core.changes_util import open_vault
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.changes.pending import PendingStore

    remote, alice, bob = sides
    apply_edit(alice, "wiki/concepts/Attention.md", "See [[Notes]].", "See [[Notes]] (Alice).", "Alice's note")
    assert sync(alice)[0] == 0
    apply_edit(bob, "wiki/notes.md", "Line 3 of", "Line three of", "Bob's fix")  # committed, not yet pushed
    vault, graph = open_vault(bob)
    b = ChangesetBuilder(vault, graph)
    b.edit("wiki/notes.md", [{"old": "Line 9 of", "new": "Line nine of"}], "pending")
    PendingStore(vault).save(b.build("edit", "Waiting for review", model="m"))
    app = workspace(bob, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        schedule = app.main.sync_schedule
        schedule.seconds, schedule.last = 60.0, -1e9  # as if `every_minutes = 1` and a minute went by
        assert schedule.check()
        await wait_for(pilot, lambda: any("Scheduled sync" in n for n in _notices(app)), "the notice", 60)
        assert "(Alice)" in read(bob, "wiki/concepts/Attention.md")
    assert git(remote, "rev-parse", "main") != git(bob, "rev-parse", "HEAD")  # nothing pushed: a changeset waits


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_the_conflicts_screen_snapshot(snap_compare, sides, size):  # noqa: F811
    from tests.ui.workspace_helpers import screen_text
    from wikitui.ui.screens.sync_conflicts import SyncConflictsScreen

    _remote, alice, bob = sides
    apply_edit(alice, "wiki/notes.md", "Line 3 of", "Line three of", "Alice's fix")
    assert sync(alice)[0] == 0
    apply_edit(bob, "wiki/notes.md", "Line 3 of", "Line 3 (third) of", "Bob's fix")

    async def before(pilot):
        app = pilot.app
        await wait_ready(pilot)
        app.main.action_sync()
        await wait_for(pilot, lambda: isinstance(app.screen, SyncConflictsScreen), "the conflicts", 60)
        await pilot.press("t")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: "take theirs " in screen_text(app), "the column widened to its choice", 30)
        app.clear_notifications()
        await pilot.pause()

    app = workspace(bob, watch=False, index=False, theme="wikitui-dark")
    assert snap_compare(app, terminal_size=size, run_before=before)
