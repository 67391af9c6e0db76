"""The chat when a turn goes wrong: what the screen says, what is kept, what is counted.

The chat pane alone (``ChatHost``) against the fake server playing faults, driven with
the keys a person presses.
"""

from __future__ import annotations

from tests.fakeserver import Text, cut, error, html_page, text, tool_calls
from tests.ui.test_chat import ChatHost, notes, send, turn, wait_for
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.layout import Vault
from wikitui.ui.widgets.chat_log import UserLine

CAUCUS = ("---\ntitle: Caucus-Race\ntype: concept\nsummary: A race in a circle that everybody wins.\n---\n\n"
          "# Caucus-Race\n\nOrganised by the [[Dodo]].\n")
PROPOSE = ("propose_page", {"path": "wiki/themes/caucus-race.md", "content": CAUCUS, "reason": "new concept"})


def footer(pane) -> str:
    return str(pane.query_one("#chat-footer").render())


async def test_a_stream_cut_after_a_proposal_shows_the_card_and_says_it_is_kept(fake_llm, sample_vault):
    fake_llm.script(tool_calls(PROPOSE), cut(text("Now I will link it from the Dodo's page.", chunk=5), 3))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await turn(pilot, "Write a page about the Caucus-race.")
        (pending,) = PendingStore(Vault.open(sample_vault)).list()
        assert list(pane.chat_log.cards) == [pending.id]  # the card, ready for ctrl+r
        errors = notes(pane, "error")
        assert any("was cut off" in n for n in errors)
        (kept,) = notes(pane, "plan")
        assert kept.startswith("Kept: The changes proposed before the failure") and pending.id in kept


async def test_esc_after_a_proposal_keeps_it_pending(fake_llm, sample_vault):
    fake_llm.script(tool_calls(PROPOSE), text("And now a long explanation " * 200, chunk=4, delay=0.02))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await send(pilot, "Write a page about the Caucus-race.")
        await wait_for(pilot, lambda: pane.chat_log.answers and pane.chat_log.answers[-1].text, "the words")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not pane.busy, "the cancel")
        (pending,) = PendingStore(Vault.open(sample_vault)).list()
        assert list(pane.chat_log.cards) == [pending.id]
        assert any(n.startswith("Cancelled. What was proposed before is pending") for n in notes(pane, "error"))
        assert any(pending.id in n for n in notes(pane, "plan"))


async def test_an_html_page_instead_of_a_completion_is_an_error_in_the_chat(fake_llm, sample_vault):
    fake_llm.script(html_page())
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        await turn(pilot, "Who is Alice?")
        (message,) = notes(app.pane, "error")
        assert message.startswith("✗ The server's reply was not a chat completion (HTTP 200, text/html)")
        assert not app.pane.chat_log.answers  # not an empty answer


async def test_an_answer_cut_by_the_output_limit_is_marked(fake_llm, sample_vault):
    fake_llm.script(Text("The Cat grins and then", finish="length"))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        await turn(pilot, "Who grins?")
        assert app.pane.chat_log.answers[-1].text == "The Cat grins and then"
        (mark,) = notes(app.pane, "error")
        assert mark.startswith("✂ The answer was cut off by the model's output limit")


async def test_the_footer_shows_the_running_turn_and_a_cancelled_turn_is_counted(fake_llm, sample_vault):
    fake_llm.script(text("ok", usage=(12000, 300)), text("Once upon a time " * 300, chunk=4, delay=0.02))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await turn(pilot, "First?")
        assert "12.0k → 300" in footer(pane)
        await send(pilot, "Tell me a long story")
        await wait_for(pilot, lambda: pane.chat_log.answers[-1].text.startswith("Once"), "the first words")
        shown = footer(pane)
        turn_line = next(line for line in shown.splitlines() if line.startswith("turn"))
        assert "12.0k" not in turn_line and "0 → 0" in turn_line  # this turn, not the previous one
        await pilot.press("escape")
        await wait_for(pilot, lambda: not pane.busy, "the cancel")
        await pilot.pause()
        turn_line = next(line for line in footer(pane).splitlines() if line.startswith("turn"))
        assert "0 → 0" not in turn_line  # the partial answer was paid for: it is counted
        session_line = next(line for line in footer(pane).splitlines() if line.startswith("session"))
        assert "12.0k → 300" not in session_line


async def test_a_restored_chat_keeps_its_error_notes(fake_llm, sample_vault):
    fake_llm.script(*[error(500, "upstream exploded")] * 4)
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        await turn(pilot, "Who is Alice?")
        (before,) = notes(app.pane, "error")
    again = ChatHost(sample_vault)
    async with again.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert [u.text for u in again.pane.chat_log.query(UserLine)] == ["Who is Alice?"]
        assert notes(again.pane, "error") == [before]  # the question is not left seemingly unanswered


async def test_an_answer_whose_stream_ends_without_its_end_is_marked_as_cut(fake_llm, sample_vault):
    from tests.fakeserver import ends_early

    fake_llm.script(ends_early(text("The Cat grins and then it fades away", chunk=5), 3))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        await turn(pilot, "Who grins?")
        assert app.pane.chat_log.answers[-1].text == "The Cat grins a"  # the three chunks that came, kept
        errors = notes(app.pane, "error")
        assert any("was cut off: the connection closed before the stream ended" in n for n in errors)
        assert any(n.startswith("✂ The answer was cut off") for n in errors)


async def test_an_error_that_starts_with_an_address_keeps_it_as_written(fake_llm, sample_vault):
    fake_llm.script(*[error(500, "upstream exploded")] * 4)
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        await turn(pilot, "Who is Alice?")
        (message,) = notes(app.pane, "error")
        assert message.startswith(f"✗ {fake_llm.api_base} failed with HTTP 500"), message  # not "Http://"
