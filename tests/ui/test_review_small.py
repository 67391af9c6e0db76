"""Issue 21, point 4: the review at 80x24 says how to apply and leave, `?` and `ctrl+p` know the review.

The footer starts with the keys that end a review (``⏎ apply``, ``esc leave``), then
``a``/``r``; ``?`` opens the help with the review's keys first; a header or a file
entry too long for the screen is cut with an ellipsis; ``ctrl+p`` on the review lists
the review's commands, not the workspace's.
"""

from __future__ import annotations

import pytest

from tests.ui.test_review import ATTENTION, ReviewApp, build_changeset, vault_root  # noqa: F401 - a fixture
from tests.ui.test_review_notes import wait_for_screen
from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace
from wikitui.core.changes.pending import PendingStore
from wikitui.ui.screens.help import HelpScreen
from wikitui.ui.screens.review import ReviewScreen

LONG_TITLE = "BERT paper: Pre-training of Deep Bidirectional Transformers for Language Understanding"
SIZES = [(80, 24), (120, 40)]


def long_titled(root):
    changeset = build_changeset(root)[2]
    changeset.title = LONG_TITLE
    return changeset


@pytest.mark.parametrize("size", SIZES)
async def test_the_footer_starts_with_apply_leave_accept_reject(vault_root, size):
    app = ReviewApp(long_titled(vault_root))
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: screen_text(app).splitlines()[-1].strip(), "the footer's hints")
        footer = screen_text(app).splitlines()[-1]
        assert footer.lstrip().startswith("⏎ apply esc leave a accept r reject ? help")


@pytest.mark.parametrize("size", SIZES)
async def test_a_long_header_is_cut_with_an_ellipsis_and_the_counts_stay_whole(vault_root, size):
    app = ReviewApp(long_titled(vault_root))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        header = screen_text(app).splitlines()[0]
        assert "…" in header and header.rstrip().endswith("6 hunks · 0 accepted · 0 rejected · 6 undecided")
        await pilot.press("a")
        header = screen_text(app).splitlines()[0]
        assert header.rstrip().endswith("6 hunks · 1 accepted · 0 rejected · 5 undecided")


def pending_dodo_edit(root):
    from tests.core.changes_util import open_vault
    from wikitui.core.changes.builder import ChangesetBuilder

    vault, graph = open_vault(root)
    builder = ChangesetBuilder(vault, graph)
    builder.edit("wiki/characters/dodo.md", [{"old": "Its remedy is the Caucus-race.", "new": "Its remedy: a race."}], "")
    changeset = builder.build("edit", "the dodo")
    PendingStore(vault).save(changeset)
    return changeset


@pytest.mark.parametrize("size", SIZES)
async def test_question_mark_opens_the_help_with_the_review_keys_first(sample_vault, size):
    pending_dodo_edit(sample_vault)
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=size) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+r")
        await wait_for_screen(pilot, ReviewScreen)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        shown = screen_text(app)
        assert "Review (ctrl+r)" in shown and "Apply: write the accepted hunks" in shown
        assert app.screen._places[0].title == "Review (ctrl+r)"  # listed first
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "back to the review")


async def test_a_file_changed_on_disk_says_so_with_an_ellipsis_when_narrow(vault_root):
    vault, _graph, changeset = build_changeset(vault_root)
    path = vault_root / ATTENTION
    path.write_text(path.read_text().replace("Attention sentence 3a", "Attention sentence 3a (edited)"))
    app = ReviewApp(changeset, vault=vault)
    async with app.run_test(size=(80, 24)) as pilot:
        files = app.screen.query_one("#review-files")
        await wait_for(pilot, lambda: files.disk_state(0) == "merges", "the disk mark")
        await pilot.pause()
        last = files.entry_text(0).splitlines()[-1].strip()
        assert last.startswith("⚠ changed on disk") and last.endswith("…"), last


async def test_ctrl_p_on_the_review_lists_the_reviews_commands(sample_vault):
    pending_dodo_edit(sample_vault)
    app = workspace(sample_vault)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_ready(pilot)
        main_titles = {c.title for c in app.get_system_commands(app.screen)}
        await pilot.press("ctrl+r")
        await wait_for_screen(pilot, ReviewScreen)
        review = app.screen
        titles = [c.title for c in app.get_system_commands(review)]
        assert {"Apply", "Leave", "Accept", "Reject", "Accept file", "Reason", "Help"} <= set(titles)
        assert "Open index" in main_titles and "Open index" not in titles and "Search" not in titles
        await pilot.press("ctrl+p")
        await pilot.pause(0.3)
        await pilot.press(*"reject file")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is review and review.state.counts()[2] > 0, "the file rejected")
        assert review.state.counts()[3] == 0  # every hunk of the one file rejected, from the palette


def test_snapshot_review_at_80x24(vault_root, snap_compare):
    async def decide(pilot):
        await pilot.press("a", "r")

    assert snap_compare(ReviewApp(long_titled(vault_root)), terminal_size=(80, 24), run_before=decide)
