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


async def test_after_a_citation_retry_the_chat_shows_the_final_answer_once_and_says_it_was_revised(
        fake_llm, sample_vault):
    """Issue 21, point 5: the first answer gives way to the revised one; a quiet note says so."""
    first = "The [[Dodo]] did it, says [[Nonexistent Page]]."
    final = "The [[Dodo]] organised the race (raw/chapter-03.md)."
    fake_llm.script(text(first), text(final))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        await turn(pilot, "Who organised the race?")
        assert len(fake_llm.requests) == 2
        answers = [a.text for a in app.pane.chat_log.answers]
        assert answers == [final]
        assert any(n.startswith("↻ revised: the first answer cited pages that do not exist") for n in notes(app.pane))
        assert not any("Unresolved citations" in n for n in notes(app.pane))


async def test_a_clean_answer_gets_no_revised_note(fake_llm, sample_vault):
    fake_llm.script(text("The [[Dodo]] organised the race."))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        await turn(pilot, "Who organised the race?")
        assert [a.text for a in app.pane.chat_log.answers] == ["The [[Dodo]] organised the race."]
        assert not any("revised" in n for n in notes(app.pane))
