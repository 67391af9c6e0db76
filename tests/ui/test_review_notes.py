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


async def test_in_the_chat_a_review_model_marks_a_hunk_wrong_and_it_opens_rejected(fake_llm, sample_vault):
    from tests.core.test_review_model import REVIEWER, judge
    from tests.fakeserver import Dynamic, text, tool_call
    from tests.ui.test_chat import ChatHost, notes, turn
    from wikitui.ui.screens.review import ReviewScreen

    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui/config.toml").write_text(f'review_model = "{REVIEWER}"\n')
    fake_llm.script(
        tool_call("propose_edit", path="wiki/characters/dodo.md", reason="cross-reference",
                  edits=[{"old": "Its remedy is the Caucus-race.", "new": "Its remedy is the [[Caucus-Race]]."}]),
        text("Findings: the Dodo page should link the race."),
        text("The race has no page yet; the link marks it as one to write."),  # its unresolved link, returned once
        Dynamic(judge),
    )
    app = ChatHost(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await turn(pilot, "/lint")
        assert any("1 wrong (they start rejected)" in n and "review: 960 tokens" in n for n in notes(app.pane))
        footer = str(app.pane.query_one("#chat-footer").render())
        assert "review" in footer and "900 → 60" in footer  # the reviewer's usage, apart from the turn's
        await pilot.press("ctrl+r")
        await wait_for_screen(pilot, ReviewScreen)
        assert counts(app) == "2 hunks · 0 accepted · 1 rejected · 1 undecided"
        shown = " ".join(note_rows(app))  # a long note wraps under the hunk's header
        assert "✗ review: wrong (openai/second-opinion) — the source calls it a caucus-race, lower case" in shown
        assert "✓ review: ok (openai/second-opinion) — fine" in shown


async def wait_for_screen(pilot, kind, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not isinstance(pilot.app.screen, kind):
        assert time.monotonic() < deadline, f"timed out waiting for {kind.__name__}"
        await pilot.pause(0.02)


def test_snapshot_review_with_a_second_reviewers_notes(vault_root, snap_compare):
    assert snap_compare(ReviewApp(reviewed(vault_root)), terminal_size=(120, 40))
