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
