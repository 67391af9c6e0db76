"""The chat lists an answer's unresolved citations under it (DESIGN §11), after asking the model once."""

from __future__ import annotations

from tests.fakeserver import text
from tests.ui.test_chat import ChatHost, notes, turn


async def test_unresolved_citations_are_noted_under_the_answer(fake_llm, sample_vault):
    bad = "The [[Dodo]] did it ([[Nonexistent Page]], raw/nothere.md)."
    fake_llm.script(text(bad), text(bad))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        await turn(pilot, "Who organised the race?")
        assert len(fake_llm.requests) == 2  # returned to the model once
        assert any("Unresolved citations: Nonexistent Page, raw/nothere.md" in n for n in notes(app.pane))
