"""The second reviewer's notes in the review (DESIGN §11): shown beside their hunks; `wrong` hunks start
rejected, and the person can flip them."""

from __future__ import annotations

from tests.ui.test_review import ATTENTION, TRANSFORMER, ReviewApp, build_changeset, counts, vault_root, where  # noqa: F401 - a fixture
from wikitui.ui.screens.review import ReviewResult
from wikitui.ui.widgets.diff_view import DiffView


def reviewed(root):
    changeset = build_changeset(root)[2]
    notes = {"f0h0": ("ok", "matches the paper"), "f0h1": ("wrong", "BERT is not in the source"),
             "f1h0": ("doubt", "the year is not in the sources shown")}
    for fc in changeset.files:
        for h in fc.hunks:
            if h.id in notes:
                h.review = {"verdict": notes[h.id][0], "note": notes[h.id][1], "model": "openai/second"}
    return changeset


def note_rows(app) -> list[str]:
    return [row.content.plain for row in app.screen.query_one(DiffView)._rows if row.kind == "note"]


async def test_wrong_hunks_start_rejected_and_notes_show_beside_the_hunks(vault_root):
    app = ReviewApp(reviewed(vault_root))
    async with app.run_test(size=(120, 40)) as pilot:
        assert counts(app) == "6 hunks · 0 accepted · 1 rejected · 5 undecided"
        assert note_rows(app) == [
            "✓ review: ok (openai/second) — matches the paper",
            "✗ review: wrong (openai/second) — BERT is not in the source",
        ]
        assert where(app) == (ATTENTION, "f0h0")
        await pilot.press("j", "a")  # the person disagrees with the reviewer: f0h1 accepted after all
        assert counts(app) == "6 hunks · 1 accepted · 0 rejected · 5 undecided"
        assert where(app) == (TRANSFORMER, "f1h0")  # on to the next undecided hunk, in the next file
        assert note_rows(app) == ["? review: doubt (openai/second) — the year is not in the sources shown"]
        await pilot.press("escape")
    assert app.results == [ReviewResult(accepted={"f0h1"}, rejected=set(), reasons={}, applied=False)]


async def test_leaving_at_once_keeps_the_wrong_hunk_rejected(vault_root):
    app = ReviewApp(reviewed(vault_root))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
    assert app.results[0].rejected == {"f0h1"}
