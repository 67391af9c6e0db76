"""An answer that rests on nothing (issue 25 point 6): a quiet note under it in the chat, none under a grounded one."""

from __future__ import annotations

from tests.fakeserver import text, tool_call
from tests.ui.test_chat import ChatHost, notes, turn


async def test_a_quiet_note_under_an_answer_with_no_tool_call_and_no_citation(fake_llm, sample_vault):
    fake_llm.script(text("The Cat grins because it is a cat."),
                    tool_call("search", query="grin"), text("It grins [[Cheshire Cat]]."))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await turn(pilot, "Why does the Cat grin?")
        (note,) = [n for n in notes(pane) if "without calling any tool" in n]
        assert note in notes(pane, "note")  # quiet: a note, not an error
        await turn(pilot, "And really?")
        assert len([n for n in notes(pane) if "without calling any tool" in n]) == 1
