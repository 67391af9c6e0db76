"""Issue 21, point 2: a reason written with ``e`` about a hunk left undecided waits with its hunk.

It is kept in the pending changeset's file (through ``enter`` with other hunks decided,
or ``esc``), survives a quit, shows again when the review reopens, and goes to the
agent only once its hunk is decided.
"""

from __future__ import annotations

from tests.ui.test_chat import ChatHost
from tests.ui.test_review_notes import wait_for_screen
from tests.ui.workspace_helpers import wait_for
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.pending import PendingStore
from wikitui.ui.screens.review import ReviewScreen
from wikitui.ui.widgets.diff_view import DiffView

DODO = "wiki/notes/dodo.md"
ALICE = "wiki/notes/alice.md"


def pending_with_two_hunks(root):
    (root / "wiki/notes").mkdir()
    (root / DODO).write_text("---\ntitle: Dodo notes\n---\n\nIts remedy is the Caucus-race.\n", encoding="utf-8")
    (root / ALICE).write_text("---\ntitle: Alice notes\n---\n\nAlice falls.\n", encoding="utf-8")
    app = ChatHost(root)
    builder = ChangesetBuilder(app.vault, app.graph)
    builder.edit(DODO, [{"old": "Its remedy is the Caucus-race.", "new": "Its remedy is the race."}], "tidy")
    builder.edit(ALICE, [{"old": "Alice falls.", "new": "Alice Liddell falls."}], "full name")
    changeset = builder.build("edit", "two pages")
    PendingStore(app.vault).save(changeset)
    return app, changeset


def reasons_on_disk(root, changeset_id) -> dict[str, str]:
    from wikitui.core.vault.layout import Vault

    rest = PendingStore(Vault.open(root)).load(changeset_id)
    return {f"{fc.path}#{h.id}": h.reason for fc in rest.files for h in fc.hunks if h.reason}


def note_rows(app) -> list[str]:
    return [row.content.plain for row in app.screen.query_one(DiffView)._rows if row.kind == "note"]


async def review(pilot, *keys: str) -> None:
    await pilot.press("ctrl+r")
    await wait_for_screen(pilot, ReviewScreen)
    await pilot.press(*keys)
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, ReviewScreen), "the review to close")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_a_reason_on_a_hunk_left_undecided_is_kept_pending_through_enter_and_a_quit(sample_vault):
    app, changeset = pending_with_two_hunks(sample_vault)
    [first_file, second_file] = changeset.files
    assert len(first_file.hunks) == 1 and len(second_file.hunks) == 1
    async with app.run_test(size=(120, 40)) as pilot:
        # the reason about dodo.md's hunk, which stays undecided; alice.md's hunk accepted
        await review(pilot, "e", *"the race has a page", "enter", "j", "a", "enter")
        assert not app.pane.controller.session or not app.pane.controller.session.feedback_waiting
    assert reasons_on_disk(sample_vault, changeset.id) == {f"{DODO}#f0h0": "the race has a page"}
    again = ChatHost(sample_vault)  # the workspace quit and opened again
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+r")
        await wait_for_screen(pilot, ReviewScreen)
        assert note_rows(again) == ["✎ the race has a page"]
        assert again.screen.state.reasons == {"f0h0": "the race has a page"}


async def test_a_reason_written_before_esc_is_kept_with_its_hunk(sample_vault):
    app, changeset = pending_with_two_hunks(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await review(pilot, "j", "e", *"say Liddell once", "enter", "escape")
    assert reasons_on_disk(sample_vault, changeset.id) == {f"{ALICE}#f1h0": "say Liddell once"}
    again = ChatHost(sample_vault)
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+r")
        await wait_for_screen(pilot, ReviewScreen)
        await pilot.press("j")
        assert note_rows(again) == ["✎ say Liddell once"]


async def test_a_kept_reason_goes_to_the_agent_once_its_hunk_is_decided(sample_vault, fake_llm):
    from tests.fakeserver import text
    from tests.ui.test_chat import turn

    app, changeset = pending_with_two_hunks(sample_vault)
    fake_llm.script(text("Noted."))
    async with app.run_test(size=(120, 40)) as pilot:
        await turn(pilot, "hello")  # a session, to hold the reasons that are due
        await review(pilot, "e", *"the race has a page", "enter", "escape")
        assert not app.pane.controller.session.feedback_waiting
        await review(pilot, "r", "enter")  # the hunk the reason is about is decided now
        assert app.pane.controller.session.feedback_waiting
        assert "the race has a page" in app.pane.controller.session._feedback
