"""A request past its total time limit, in the chat (issue 25 point 4): one clear line naming the limit."""

from __future__ import annotations

from tests.fakeserver import text
from tests.ui.test_chat import ChatHost, notes, turn


async def test_a_trickling_answer_past_the_limit_ends_the_turn_with_a_line_naming_it(fake_llm, sample_vault):
    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui" / "config.toml").write_text("request_timeout_s = 1\n")
    fake_llm.script(text("and the Cat grins again " * 400, chunk=4, delay=0.05))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await turn(pilot, "Tell me everything about the Cat.")
        (line,) = [n for n in notes(pane, "error") if "time limit" in n]
        assert "time limit of 1 s for one request (request_timeout_s)" in line
        assert "max_output_tokens in .wikitui/config.toml" in line  # what to do about it
        assert not pane.busy and fake_llm.requests[0]["max_tokens"] > 0
