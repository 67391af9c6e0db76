"""Sync from the workspace: the palette's "Sync with upstream" (issue 26.1), with the same merge as ``wikitui sync``."""

from __future__ import annotations

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


async def test_a_conflict_is_one_notice_and_nothing_is_written(sides):  # noqa: F811
    _remote, alice, bob = sides
    apply_edit(alice, "wiki/notes.md", "Line 3 of", "Line three of", "Alice's fix")
    assert sync(alice)[0] == 0
    apply_edit(bob, "wiki/notes.md", "Line 3 of", "Line 3 (third) of", "Bob's fix")
    before = read(bob, "wiki/notes.md")
    app = workspace(bob, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.action_sync()
        await wait_for(pilot, lambda: any("conflict" in n for n in _notices(app)), "the conflict notice", 60)
        assert any("wiki/notes.md" in n and "nothing was written" in n for n in _notices(app))
    assert read(bob, "wiki/notes.md") == before


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
