"""The chat pane, driven like a person would, against the fake OpenAI-compatible server.

A tiny host app gives the pane what the workspace app gives it (a Workspace, its link graph loaded)
and records the messages the workspace would act on. The model is the real litellm
client talking to ``tests/fakeserver.py`` on 127.0.0.1.
"""

from __future__ import annotations

import time

import pytest

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.pilot import Pilot

from tests.fakeserver import FAKE_API_KEY, error, text, tool_call
from wikitui.core.agent.events import (
    ChangesetReady,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    TurnUsage,
)
from wikitui.core.agent.llm import LLMClient
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.workspace import Workspace
from wikitui.ui.screens.review import screen_reviewer
from wikitui.ui.themes import bundled_theme_dir, load_theme_file
from wikitui.ui.widgets.chat_input import complete
from wikitui.ui.widgets.chat_log import ChatLog, NoteLine, ToolLine, UserLine
from wikitui.ui.widgets.chat_pane import ChatPane


async def _no_wait(_delay: float) -> None:
    return None


def fast_client(settings):
    """The real client, minus the waits between retries."""
    return LLMClient(settings, base_delay=0.01, sleep=_no_wait)


class ChatHost(App):
    """The chat pane alone, with the vault and link graph the workspace would hand it."""

    CSS = "ChatPane { width: 64; }"
    BINDINGS = [Binding("ctrl+r", "review", "Review")]

    def __init__(self, root, *, theme: bool = False) -> None:
        super().__init__()
        self.workspace = Workspace.open(root)
        self.workspace.load_graph()
        self.vault, self.graph = self.workspace.vault, self.workspace.graph
        self.opened: list[tuple[str, str]] = []
        self.applied: list[list[str]] = []
        self._theme = theme

    def compose(self) -> ComposeResult:
        yield ChatPane(self.workspace, reviewer=screen_reviewer(self, self.vault), client_factory=fast_client)

    def on_mount(self) -> None:
        if self._theme:
            theme = load_theme_file(bundled_theme_dir() / "wikitui-dark.toml")
            self.register_theme(theme)
            self.theme = theme.name

    @property
    def pane(self) -> ChatPane:
        return self.query_one(ChatPane)

    def action_review(self) -> None:
        self.pane.action_review()

    def on_chat_pane_open_page(self, message: ChatPane.OpenPage) -> None:
        self.opened.append((message.path, message.anchor))

    def on_chat_pane_changeset_applied(self, message: ChatPane.ChangesetApplied) -> None:
        self.applied.append(message.paths)


async def wait_for(pilot: Pilot, predicate, what: str, timeout: float = 30.0) -> None:
    """Let the app run until ``predicate()`` holds (the first model call imports litellm: seconds)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await pilot.pause(0.02)


async def send(pilot: Pilot, message: str) -> None:
    """Type ``message`` into the chat input (as a paste: fast) and press enter."""
    pane = pilot.app.query_one(ChatPane)
    pane.chat_input.focus()
    pane.chat_input.set_text(message)
    await pilot.press("enter")


async def turn(pilot: Pilot, message: str) -> None:
    """Send ``message`` and wait for the turn to end."""
    pane = pilot.app.query_one(ChatPane)
    await send(pilot, message)
    await wait_for(pilot, lambda: not pane.busy, "the turn to end")
    await pilot.pause()


def notes(pane: ChatPane, kind: str | None = None) -> list[str]:
    return [n.plain for n in pane.chat_log.query(NoteLine) if kind is None or n.kind == kind]


# ---------------------------------------------------------------------------- asking
async def test_a_question_streams_tool_lines_and_an_answer_with_followable_links(fake_llm, sample_vault):
    fake_llm.script(
        tool_call("search", query="late rabbit", usage=(1000, 10)),
        tool_call("read", path="wiki/characters/white-rabbit.md", usage=(2000, 10)),
        text("The **White Rabbit** is always late [[White Rabbit]]; see also [[Hatter's Watch]] "
             "and [[No Such Page]].", usage=(1500, 40)),
    )
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await turn(pilot, "Who is always late?")

        assert [u.text for u in pane.chat_log.query(UserLine)] == ["Who is always late?"]
        tools = list(pane.chat_log.query(ToolLine))
        assert [t.description for t in tools] == ['searched "late rabbit"', "read wiki/characters/white-rabbit.md"]
        assert tools[1].summary.startswith("wiki/characters/white-rabbit.md")
        answer = pane.chat_log.answers[-1]
        assert answer.text.startswith("The **White Rabbit** is always late")
        assert [link.target for link in answer.links] == ["White Rabbit", "Hatter's Watch", "No Such Page"]
        footer = str(pane.query_one("#chat-footer").render())
        assert "openai/fake-model" in footer and "turn" in footer and "4.5k → 60" in footer

        # The links are followable from the keyboard: shift+tab into the log, tab selects, enter opens.
        await pilot.press("shift+tab")
        assert isinstance(app.focused, ChatLog)
        await pilot.press("tab")
        assert pane.chat_log.selected == (answer, 0)
        await pilot.press("enter")
        await pilot.press("tab", "enter")
        assert app.opened == [("wiki/characters/white-rabbit.md", ""), ("wiki/objects/hatters-watch.md", "")]
        # An unresolved link offers to ask the agent for the page instead.
        await pilot.press("tab", "enter")
        assert pane.chat_input.text == "Write the missing page [[No Such Page]]."
        assert len(app.opened) == 2
        # Typing in the log types in the input.
        pane.chat_input.set_text("")
        await pilot.press("shift+tab", "w", "h", "y")
        assert app.focused is pane.chat_input and pane.chat_input.text == "why"


async def test_esc_cancels_a_slow_answer_and_the_chat_stays_usable(fake_llm, sample_vault):
    fake_llm.script(text("Once upon a time " * 200, chunk=4, delay=0.02), text("Short answer."))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await send(pilot, "Tell me a long story")
        await wait_for(pilot, lambda: pane.chat_log.answers and pane.chat_log.answers[-1].text, "the first words")
        assert pane.busy
        await pilot.press("escape")
        await wait_for(pilot, lambda: not pane.busy, "the cancel")
        partial = pane.chat_log.answers[-1].text
        story = "Once upon a time " * 200
        # The cancel may land after the first chunk ("Once"): what was kept is a true prefix of the story.
        assert partial and story.startswith(partial) and len(partial) < len(story)
        assert any(n.startswith("Cancelled.") for n in notes(pane, "error"))
        await turn(pilot, "And a short one?")
        assert pane.chat_log.answers[-1].text == "Short answer."


async def test_without_a_model_the_pane_says_how_to_configure_one(sample_vault):
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        setup = notes(pane, "setup")
        assert len(setup) == 1
        assert "No model configured" in setup[0]
        for how in ("--model", "WIKITUI_MODEL", 'model = "provider/name"', "~/.config/wikitui/config.toml", "OPENAI_API_KEY"):
            assert how in setup[0]
        await send(pilot, "Who is Alice?")
        await pilot.pause()
        assert len(notes(pane, "setup")) == 2 and not pane.busy
        # Commands that need no model still work: undo, and lint's deterministic checks.
        await send(pilot, "/undo")
        await wait_for(pilot, lambda: any("nothing to undo" in n.lower() for n in notes(pane, "error")), "/undo")
        await send(pilot, "/lint")
        await wait_for(pilot, lambda: any(n.startswith("Lint") for n in notes(pane, "plan")) and not pane.busy,
                       "the lint report")
        assert any(n.startswith("Configure a model") for n in notes(pane, "note"))
        assert "no model" in str(pane.query_one("#chat-footer").render())


async def test_a_rejected_key_is_explained_in_the_chat(fake_llm, sample_vault):
    fake_llm.script(error(401, "Incorrect API key provided: sk-test-SECRET123"))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await turn(pilot, "Who is Alice?")
        (message,) = notes(pane, "error")
        assert "rejected" in message and "OPENAI_API_KEY" in message
        assert "Set the key in the environment" in message
        assert FAKE_API_KEY not in message


async def test_a_rate_limit_that_outlasts_the_retries_is_explained(fake_llm, sample_vault):
    fake_llm.script(*[error(429, "slow down", retry_after=0) for _ in range(4)])
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await turn(pilot, "Who is Alice?")
        assert sum("retrying" in n for n in notes(pane, "note")) == 3
        (message,) = notes(pane, "error")
        assert message.startswith("✗ Rate limited by") and "up recalls your message" in message


async def test_a_server_that_is_down_is_explained(fake_llm, sample_vault):
    fake_llm.stop()  # nothing listens on its port any more
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await turn(pilot, "Who is Alice?")
        (message,) = notes(pane, "error")
        assert message.startswith("✗ Cannot reach http://127.0.0.1") and "Check the network" in message


# ---------------------------------------------------------------------------- the input
def test_completion_offers_titles_commands_and_raw_files():
    titles = lambda: ["White Rabbit", "Alice", "The White Rabbit", "Rabbit-Hole"]  # noqa: E731
    raws = lambda: ["raw/chapter-01.md", "raw/chapter-02.md", "raw/notes.txt"]  # noqa: E731
    commands = [("ingest", ""), ("ask", ""), ("go", "")]
    found = complete("See [[rabb", titles=titles)
    assert found.start == len("See [[") and [c.label for c in found.candidates][:2] == ["Rabbit-Hole", "White Rabbit"]
    assert found.candidates[0].insert == "Rabbit-Hole]]"
    assert complete("See [[Alice]] and", titles=titles) is None
    assert [c.insert for c in complete("/in", commands=commands).candidates] == ["/ingest "]
    assert [c.label for c in complete("/ingest chapter", raw_files=raws).candidates] == [
        "raw/chapter-01.md", "raw/chapter-02.md"]
    assert complete("/go", commands=commands) is None  # complete already
    assert complete("/ingest raw/chapter-01.md", raw_files=raws) is None


async def test_the_input_completes_keeps_a_history_and_takes_new_lines(sample_vault):
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        chat_input = app.pane.chat_input
        chat_input.focus()
        await pilot.press(*"who is [[whi")
        assert chat_input.menu_open
        await pilot.press("tab")
        assert chat_input.text == "who is [[White Rabbit]]"
        assert not chat_input.menu_open
        await pilot.press("ctrl+j", *"and why?", "shift+enter", *"ok")
        assert chat_input.text == "who is [[White Rabbit]]\nand why?\nok"
        chat_input.set_text("")
        await pilot.press(*"/ing", "enter")  # enter takes the completion, it does not send
        assert chat_input.text == "/ingest "
        await pilot.press(*"03", "down", "enter")
        assert chat_input.text == "/ingest raw/chapter-03.md"
        assert [u.text for u in app.pane.chat_log.query(UserLine)] == []
        # History: up on the first line recalls what was sent, down comes back to the draft.
        await pilot.press("escape")
        chat_input.set_text("/help")
        await pilot.press("enter")
        await pilot.press(*"draft", "up")
        assert chat_input.text == "/help"
        await pilot.press("down")
        assert chat_input.text == "draft"


async def test_enter_typed_in_one_burst_with_a_command_sends_it(sample_vault):
    """A terminal can deliver "o" and enter in one read: the menu opened for "/g" must not take that enter."""
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        chat_input = app.pane.chat_input
        chat_input.focus()
        await pilot.press("/", "g")
        assert chat_input.menu_open  # "/g" offers /go
        sent: list[str] = []
        original = chat_input.post_message

        def spy(message):
            if isinstance(message, type(chat_input).Submitted):
                sent.append(message.text)
            return original(message)

        chat_input.post_message = spy
        # As the driver does with one read from the terminal: every key is queued before any is handled.
        for key, char in (("o", "o"), ("enter", "\r")):
            event = events.Key(key, char)
            event.set_sender(app)
            app._driver.send_message(event)
        await pilot.pause()
        await pilot.pause()
        assert sent == ["/go"]
        assert chat_input.text == ""


async def test_commands_help_unknown_model_and_clear(fake_llm, sample_vault):
    fake_llm.script(text("Alice is the heroine [[Alice]]."), text("Still Alice."))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await send(pilot, "/help")
        assert "/ingest" in notes(pane, "plan")[-1] and "/undo" in notes(pane, "plan")[-1]
        await send(pilot, "/frobnicate")
        assert notes(pane, "error")[-1].startswith("Unknown command /frobnicate")
        await turn(pilot, "/ask Who is Alice?")
        await send(pilot, "/model openai/other-model")
        assert "openai/other-model" in str(pane.query_one("#chat-footer").render())
        await turn(pilot, "And now?")
        assert [r["model"] for r in fake_llm.requests] == ["fake-model", "other-model"]
        # The second question was asked with the first exchange as context.
        assert "Alice is the heroine" in fake_llm.prompt_texts()[1]
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: not pane.chat_log.answers, "the log to clear")
        assert notes(pane)[-1].startswith("New conversation")


async def test_file_proposes_the_last_answer_as_a_page(fake_llm, sample_vault):
    fake_llm.script(text("The Queen of Hearts shouts *Off with their heads!* [[Queen of Hearts]]."))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await turn(pilot, "What does the Queen shout?")
        await turn(pilot, "/file")
        (card,) = pane.chat_log.cards.values()
        change, cited = card.changeset.files  # the answer, and the page it cites linking it
        assert change.action == "create" and change.path.startswith("wiki/answers/")
        assert cited.path == "wiki/characters/queen-of-hearts.md" and "Filed answer: [[answers/" in cited.new_text
        assert "Off with their heads!" in change.new_text
        assert len(fake_llm.requests) == 1  # filing needs no model call


async def test_the_conversation_is_restored_on_the_next_start(fake_llm, sample_vault):
    fake_llm.script(tool_call("search", query="tarts"), text("The Knave stole them [[Knave of Hearts]]."))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        await turn(pilot, "Who stole the tarts?")
    again = ChatHost(sample_vault)
    async with again.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        log = again.pane.chat_log
        assert [u.text for u in log.query(UserLine)] == ["Who stole the tarts?"]
        assert [t.description for t in log.query(ToolLine)] == ['searched "tarts"']
        assert log.answers[-1].text == "The Knave stole them [[Knave of Hearts]]."
        assert "session" in str(again.pane.query_one("#chat-footer").render())
        # Up recalls the restored question.
        again.pane.chat_input.focus()
        await pilot.press("up")
        assert again.pane.chat_input.text == "Who stole the tarts?"


# ---------------------------------------------------------------------------- streaming
async def test_streaming_renders_in_throttled_steps_and_parses_finished_paragraphs_once(sample_vault):
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        log = app.pane.chat_log
        message = log.start_answer()
        await pilot.pause()
        paragraph = "The Hatter's watch tells the day of the month [[Hatter's Watch]].\n\n"
        for i in range(0, 4 * len(paragraph), 3):
            message.append((paragraph * 4)[i : i + 3])
        # Appends are collected: nothing is parsed until the render interval passes.
        assert len(message.links) == 0
        await wait_for(pilot, lambda: len(message.links) == 4, "the throttled render")
        frozen = message.streamed.frozen[0]
        for i in range(0, 2 * len(paragraph), 3):
            message.append((paragraph * 2)[i : i + 3])
        await wait_for(pilot, lambda: len(message.links) == 6, "the next render")
        assert message.streamed.frozen[0] is frozen  # finished paragraphs are not parsed again while streaming
        message.finish()
        assert len(message.streamed.frozen) == 1 and len(message.links) == 6


# ---------------------------------------------------------------------------- snapshots
PLAN = """## Plan for chapter 1

**Key takeaways**
- Alice follows the [[White Rabbit]] down the rabbit-hole.
- She finds the [[Hall of Doors]] and the `golden key`.

**Pages I will touch**
1. [[Chapter 1: Down the Rabbit-Hole]]: the source summary
2. [[White Rabbit]]: his watch and his hurry
3. A new page [[Curiosity]]
"""


def _feed_plan(pane: ChatPane, chars: int) -> None:
    """The events of an ingest's plan phase, stopped after ``chars`` characters of the plan."""
    c = pane.controller
    pane.chat_log.add_user("/ingest raw/chapter-01.md")
    c.on_event(TurnStarted("ingest-plan", "raw/chapter-01.md"))
    c.on_event(ToolStarted("1", "read", "read raw/chapter-01.md"))
    c.on_event(ToolFinished("1", "read", True, "lines 1-120 of 120", ""))
    c.on_event(ToolStarted("2", "search", 'searched "White Rabbit"'))
    c.on_event(ToolFinished("2", "search", True, "6 hits", ""))
    for i in range(0, chars, 5):
        c.on_event(TextDelta(PLAN[i : min(i + 5, chars)]))
    pane.set_busy(True, "thinking…")


@pytest.fixture
def model_named(monkeypatch):
    """A configured model (never called: the snapshots feed the events themselves)."""
    monkeypatch.setenv("WIKITUI_MODEL", "openai/gpt-4o-mini")


def test_snapshot_chat_mid_stream(sample_vault, model_named, snap_compare):
    async def stream(pilot: Pilot) -> None:
        pane = pilot.app.query_one(ChatPane)
        _feed_plan(pane, 190)
        message = pane.chat_log.answers[-1]
        await wait_for(pilot, lambda: "hall of doors" in " ".join(l.target.lower() for l in message.links), "render")
        await pilot.pause()

    assert snap_compare(ChatHost(sample_vault, theme=True), terminal_size=(64, 30), run_before=stream)


def test_snapshot_changeset_card_in_the_chat(sample_vault, model_named, snap_compare, monkeypatch):
    # The rabbit's page proposes its `updated:` date too (issue 10, point 6): the same day, every day.
    monkeypatch.setattr("wikitui.core.changes.updated.now", lambda: __import__("datetime").datetime(2026, 12, 1, 12, 0))

    async def propose(pilot: Pilot) -> None:
        app = pilot.app
        pane = app.query_one(ChatPane)
        c = pane.controller
        _feed_plan(pane, len(PLAN))
        c.on_event(TurnUsage(prompt_tokens=15900, completion_tokens=450, cost=0.0, session_prompt_tokens=15900,
                             session_completion_tokens=450, session_cost=0.0, requests=3))
        c.on_event(TurnFinished("ingest", PLAN, awaiting_go=True))
        pane.chat_log.add_user("/go")
        builder = ChangesetBuilder(app.vault, app.workspace.graph)
        builder.changeset_id = "cs-20260101-abc123"
        builder.edit("wiki/characters/white-rabbit.md",
                     [{"old": "A white rabbit with pink eyes", "new": "A white rabbit with pink eyes, always late"}],
                     "his hurry")
        builder.new_page("wiki/themes/curiosity.md", "---\ntitle: Curiosity\ntype: concept\nsummary: Why Alice "
                         "follows\n---\n# Curiosity\n\nAlice is curious about the [[White Rabbit]].\n", "new concept")
        changeset = builder.build("ingest", "Ingest raw/chapter-01.md")
        c.on_event(TurnStarted("ingest-write", "raw/chapter-01.md"))
        c.on_event(ToolStarted("3", "propose_edit", "proposed an edit to wiki/characters/white-rabbit.md"))
        c.on_event(ToolFinished("3", "propose_edit", True, "1 edit", ""))
        c.on_event(ToolStarted("4", "propose_page", "proposed wiki/themes/curiosity.md"))
        c.on_event(ToolFinished("4", "propose_page", True, "new page", ""))
        c.on_event(TextDelta("Proposed an edit and a new page, [[Curiosity]]."))
        c.on_event(TurnUsage(prompt_tokens=4200, completion_tokens=310, cost=0.0, session_prompt_tokens=20100,
                             session_completion_tokens=760, session_cost=0.0, requests=2))
        c.on_event(ChangesetReady(changeset))
        c.on_event(TurnFinished("ingest", "", changeset=changeset))
        pane.set_busy(False)
        await pilot.pause()
        assert any("ctrl+r to review" in n.message for n in app._notifications)
        app.clear_notifications()
        await pilot.pause(0.1)

    assert snap_compare(ChatHost(sample_vault, theme=True), terminal_size=(64, 40), run_before=propose)

