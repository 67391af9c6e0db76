"""An ingest in the real workspace: plan, /go, the card, the review, and what the screen and the disk show.

The app is the one ``wikitui`` runs (:func:`~wikitui.ui.app.make_app`) on a copy of the
sample vault; the model is the real litellm client against the fake server.
"""

from __future__ import annotations

import datetime as _dt
import time

import pytest
from textual.pilot import Pilot

from tests.fakeserver import text, tool_call, tool_calls
from tests.ui.workspace_helpers import notices, screen_text, wait_ready, workspace
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.ui.screens.review import ConflictScreen, ReviewScreen
from wikitui.ui.widgets.chat_log import NoteLine, ToolLine
from wikitui.ui.widgets.chat_pane import ChatPane
from wikitui.ui.widgets.page_view import PageView

RABBIT = "wiki/characters/white-rabbit.md"
ALICE = "wiki/characters/alice.md"
CURIOSITY = "wiki/themes/curiosity.md"
RABBIT_OLD = "A white rabbit with pink eyes"
RABBIT_NEW = "A white rabbit with pink eyes, forever late and forever [[Curiosity|tempting]],"
ALICE_OLD = "The heroine of the book"
ALICE_NEW = "The seven-year-old heroine of the book"
CURIOSITY_PAGE = ("---\ntitle: Curiosity\ntype: theme\nsummary: What sends Alice down the hole, and on.\n"
                  "sources: [raw/chapter-01.md]\n---\n# Curiosity\n\n\"Burning with curiosity\", [[Alice]] follows "
                  "the [[White Rabbit]] down the hole.\n")
#: The sample's pages have `updated:`; each edit proposes today's date as a hunk of its own (issue 10, point 6).
DAY = _dt.datetime(2026, 12, 1, 12, 0)


@pytest.fixture(autouse=True)
def fixed_day(monkeypatch):
    """The proposed `updated:` date, the same every day (snapshots show it)."""
    monkeypatch.setattr("wikitui.core.changes.updated.now", lambda: DAY)


PLAN = ("## Plan\n\n- Chapter 1 is already summarised; I will sharpen [[White Rabbit]] and [[Alice]].\n"
        "- A new theme page, [[Curiosity]].\n")


def ingest_script(fake) -> None:
    """The model's side of an ingest of chapter 1: read, plan; then three proposals and a summary."""
    fake.script(
        tool_call("read", path="raw/chapter-01.md", usage=(3000, 20)),
        text(PLAN, usage=(6000, 80)),
        tool_calls(
            ("propose_edit", {"path": RABBIT, "edits": [{"old": RABBIT_OLD, "new": RABBIT_NEW}],
                              "reason": "his hurry, and what it does to Alice"}),
            ("propose_page", {"path": CURIOSITY, "content": CURIOSITY_PAGE, "reason": "a theme with no page"}),
            ("propose_edit", {"path": ALICE, "edits": [{"old": ALICE_OLD, "new": ALICE_NEW}],
                              "reason": "her age"}),
            usage=(7000, 300),
        ),
        text("Proposed an edit to [[White Rabbit]], a new page [[Curiosity]] and an edit to [[Alice]].",
             usage=(8000, 40)),
    )


async def wait_for(pilot: Pilot, predicate, what: str, timeout: float = 40.0) -> None:
    """Let the app run until ``predicate()`` holds (the first model call imports litellm: seconds)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await pilot.pause(0.02)


async def type_in_chat(pilot: Pilot, message: str) -> None:
    """f5 focuses the agent's input; type (as a paste) and press enter."""
    await pilot.press("f5")
    chat = pilot.app.query_one(ChatPane)
    assert pilot.app.focused is chat.chat_input
    chat.chat_input.set_text(message)
    await pilot.press("enter")


async def ingest_until_card(pilot: Pilot) -> ChatPane:
    """/ingest raw/chapter-01.md, wait for the plan, /go, wait for the card."""
    chat = pilot.app.query_one(ChatPane)
    await type_in_chat(pilot, "/ingest raw/chapter-01.md")
    await wait_for(pilot, lambda: not chat.busy and chat.chat_log.answers, "the plan")
    assert [t.description for t in chat.chat_log.query(ToolLine)] == ["read raw/chapter-01.md"]
    await pilot.pause()
    assert "Plan ready" in screen_text(pilot.app)
    await type_in_chat(pilot, "/go")
    await wait_for(pilot, lambda: not chat.busy and chat.chat_log.cards, "the changeset card")
    await pilot.pause()
    return chat


def read(vault, rel: str) -> str:
    return (vault / rel).read_text(encoding="utf-8")


async def test_ingest_plan_go_review_apply_and_undo(fake_llm, sample_vault):
    ingest_script(fake_llm)
    fake_llm.script(text("Understood: I will leave her age out.", usage=(9000, 12)))
    alice_before = read(sample_vault, ALICE)
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        app.main.open_path(RABBIT)
        chat = await ingest_until_card(pilot)
        assert [t.description for t in chat.chat_log.query(ToolLine)][1:] == [
            f"proposed an edit to {RABBIT}", f"proposed the page {CURIOSITY}", f"proposed an edit to {ALICE}"]
        shown = screen_text(app)
        assert "3 files changed" in shown and "ctrl+r review" in shown
        assert not (sample_vault / CURIOSITY).exists()  # nothing is written before the review

        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        # Accept the rabbit's date and edit and the new page; reject Alice's date and age, telling the agent why.
        await pilot.press("a", "a", "a", "r", "e", *"she is seven only in Through the Looking-Glass", "enter", "r",
                          "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, ReviewScreen), "the apply")
        await wait_for(pilot, lambda: any("Applied 3 hunks" in n for n in notices(app)), "the notice")

        # The disk: accepted text present, rejected absent, the log and the catalog written.
        assert RABBIT_NEW in read(sample_vault, RABBIT)
        assert read(sample_vault, CURIOSITY) == CURIOSITY_PAGE
        assert read(sample_vault, ALICE) == alice_before and ALICE_NEW not in read(sample_vault, ALICE)
        log = read(sample_vault, "wiki/log.md")
        assert "ingest | CHAPTER I. Down the Rabbit-Hole\n" in log.split("\n## ")[-1]  # the source's title
        assert "[[Curiosity]]" in read(sample_vault, "wiki/index.md")
        assert PendingStore(Vault.open(sample_vault)).latest() is None  # the rejected hunk is dropped
        # The screen: the page pane shows the new text, the card says applied, the chat offers /undo.
        await pilot.pause()
        assert "forever late" in screen_text(app)
        assert chat.chat_log.cards[next(iter(chat.chat_log.cards))].status == "applied"
        assert any("Applied 3 hunks" in n.plain and "/undo reverts it" in n.plain
                   for n in chat.chat_log.query(NoteLine))
        assert CURIOSITY in app.workspace.graph.pages

        # The reason waits for the user's next message: applying starts no model call (a paid call).
        await wait_for(pilot, lambda: any("Your reasons will go to the agent with your next message" in n.plain
                                          for n in chat.chat_log.query(NoteLine)), "the note about the reasons")
        await pilot.pause(0.5)
        assert len(fake_llm.requests) == 4 and not chat.busy
        await type_in_chat(pilot, "Thanks. What else could the wiki say about her?")
        await wait_for(pilot, lambda: not chat.busy and len(fake_llm.requests) == 5, "the next turn")
        last_user = [m for m in fake_llm.requests[-1]["messages"] if m["role"] == "user"][-1]["content"]
        assert "she is seven only in Through the Looking-Glass" in last_user and ALICE in last_user
        assert last_user.endswith("Thanks. What else could the wiki say about her?")
        assert chat.chat_log.answers[-1].text == "Understood: I will leave her age out."

        # /undo puts everything back, and the page pane follows.
        await type_in_chat(pilot, "/undo")
        await wait_for(pilot, lambda: any(n.plain.startswith("↶ Undid") for n in chat.chat_log.query(NoteLine)),
                       "the undo")
        assert RABBIT_NEW not in read(sample_vault, RABBIT) and RABBIT_OLD in read(sample_vault, RABBIT)
        assert not (sample_vault / CURIOSITY).exists()
        await pilot.pause()
        assert "forever late" not in screen_text(app)
        assert "undo | CHAPTER I. Down the Rabbit-Hole" in read(sample_vault, "wiki/log.md").split("\n## ")[-1]


async def test_an_edit_on_disk_that_overlaps_is_shown_as_a_conflict(fake_llm, sample_vault):
    ingest_script(fake_llm)
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        chat = await ingest_until_card(pilot)
        # The person edits the same line in an editor before reviewing.
        edited = read(sample_vault, RABBIT).replace(RABBIT_OLD, "A white rabbit with red eyes")
        (sample_vault / RABBIT).write_text(edited, encoding="utf-8")

        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("a", "a", "enter")  # the rabbit's date, then the edit of the line the person changed
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen), "the conflict")
        shown = screen_text(app)
        assert "Conflict" in shown and RABBIT in shown and "red eyes" in shown
        await pilot.press("escape", "escape")  # close the conflict, leave the review
        await wait_for(pilot, lambda: not isinstance(app.screen, (ReviewScreen, ConflictScreen)), "the workspace")
        await wait_for(pilot, lambda: any(n.plain.startswith("Not applied: conflict")
                                          for n in chat.chat_log.query(NoteLine)), "the chat's note")
        # The person's edit is kept and nothing else was written.
        assert read(sample_vault, RABBIT) == edited
        assert not (sample_vault / CURIOSITY).exists()
        assert PendingStore(Vault.open(sample_vault)).latest() is not None


async def test_a_link_left_unresolved_by_a_partial_apply_is_reported(fake_llm, sample_vault):
    fake_llm.script(
        tool_calls(
            ("propose_edit", {"path": RABBIT, "edits": [{"old": RABBIT_OLD, "new": RABBIT_NEW}], "reason": "hurry"}),
            ("propose_page", {"path": CURIOSITY, "content": CURIOSITY_PAGE, "reason": "a theme with no page"}),
        ),
        text("Linked the rabbit to [[Curiosity]]."),
    )
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        chat = app.query_one(ChatPane)
        await type_in_chat(pilot, "/ask Link the rabbit to a page on curiosity")
        await wait_for(pilot, lambda: not chat.busy and chat.chat_log.cards, "the card")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("a", "a", "r", "enter")  # the date and the link, but not the page it points to
        await wait_for(pilot, lambda: any("left unresolved" in n.plain for n in chat.chat_log.query(NoteLine)),
                       "the report")
        note = next(n.plain for n in chat.chat_log.query(NoteLine) if "left unresolved" in n.plain)
        assert f"[[Curiosity]] in {RABBIT}" in note
        assert chat.chat_input.text == f"/ask Mend the unresolved links: [[Curiosity]] in {RABBIT}"


async def test_a_link_in_an_answer_opens_in_the_page_pane(fake_llm, sample_vault):
    fake_llm.script(text("It is the [[Cheshire Cat]], who grins as he vanishes."))
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        chat = app.query_one(ChatPane)
        await type_in_chat(pilot, "Who grins?")
        await wait_for(pilot, lambda: not chat.busy and chat.chat_log.answers, "the answer")
        await pilot.press("shift+tab", "tab", "enter")  # into the log, the first link, follow it
        await wait_for(pilot, lambda: app.main.current_path == "wiki/characters/cheshire-cat.md", "the page")
        assert isinstance(app.focused, PageView)
        assert "Cheshire Cat · entity" in screen_text(app)


async def test_esc_cancels_the_turn_from_any_pane(fake_llm, sample_vault):
    fake_llm.script(text("A very long answer. " * 300, chunk=4, delay=0.02))
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        chat = app.query_one(ChatPane)
        await type_in_chat(pilot, "Tell me everything")
        await wait_for(pilot, lambda: chat.chat_log.answers and chat.chat_log.answers[-1].text, "the first words")
        await pilot.press("f3")
        assert isinstance(app.focused, PageView)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not chat.busy, "the cancel")
        assert any(n.plain.startswith("Cancelled.") for n in chat.chat_log.query(NoteLine))
        assert isinstance(app.focused, PageView)


def test_snapshot_review_opened_from_the_chat(sample_vault, monkeypatch, snap_compare):
    monkeypatch.setenv("WIKITUI_MODEL", "openai/gpt-4o-mini")
    vault = Vault.open(sample_vault)
    builder = ChangesetBuilder(vault, LinkGraph.load(vault))
    builder.changeset_id = "cs-20260101-abc123"
    builder.edit(RABBIT, [{"old": RABBIT_OLD, "new": RABBIT_NEW}], "his hurry")
    builder.new_page(CURIOSITY, CURIOSITY_PAGE, "a theme with no page")
    builder.edit(ALICE, [{"old": ALICE_OLD, "new": ALICE_NEW}], "her age")
    PendingStore(vault).save(builder.build("ingest", "Ingest raw/chapter-01.md"))

    async def review(pilot: Pilot) -> None:
        await wait_ready(pilot)
        assert "ctrl+r review" in screen_text(pilot.app)  # the pending changeset has its card
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReviewScreen), "the review")
        await pilot.press("a")
        pilot.app.clear_notifications()  # "search index off": this test runs without one
        await pilot.pause()

    app = workspace(sample_vault, watch=False, index=False)
    assert snap_compare(app, terminal_size=(120, 36), run_before=review)


async def test_an_apply_reported_while_the_app_closes_is_not_an_error(sample_vault):
    """The apply's message can arrive after the workspace screen went (the user quit as it landed)."""
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        chat = app.query_one(ChatPane)
    assert not app.screen_stack  # closed: no workspace screen to refresh
    app.on_chat_pane_changeset_applied(chat.ChangesetApplied([RABBIT], None))


async def test_a_restored_chat_shows_what_was_typed_and_what_became_of_the_changeset(fake_llm, sample_vault):
    # Issue 21.10: the restored chat showed "The plan is approved. Carry it out now: ..." for /go and the bare
    # path for /ingest, and no card said the ingest had been applied, then undone.
    from wikitui.core.changes.apply import apply_changeset
    from wikitui.ui.widgets.chat_log import UserLine

    ingest_script(fake_llm)

    def typed(chat: ChatPane) -> list[str]:
        return [str(u.text) for u in chat.chat_log.query(UserLine)]

    def statuses(chat: ChatPane) -> list[str]:
        return [card.status for card in chat.chat_log.cards.values()]

    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        chat = await ingest_until_card(pilot)
        assert typed(chat) == ["/ingest raw/chapter-01.md", "/go"] and statuses(chat) == ["pending"]

    vault = Vault.open(sample_vault)  # applied from elsewhere (`wikitui pending apply`)
    apply_changeset(vault, LinkGraph.load(vault), PendingStore(vault).latest())

    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        chat = app.query_one(ChatPane)
        await wait_for(pilot, lambda: chat.chat_log.cards, "the restored card")
        assert typed(chat) == ["/ingest raw/chapter-01.md", "/go"]
        assert statuses(chat) == ["applied"]
        assert "3 files changed" in screen_text(app) and "✓ applied" in screen_text(app)
        assert "The plan is approved" not in screen_text(app)
        await type_in_chat(pilot, "/undo")
        await wait_for(pilot, lambda: any(n.plain.startswith("↶ Undid") for n in chat.chat_log.query(NoteLine)),
                       "the undo")
        assert statuses(chat) == ["undone"]  # the card says so at once

    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        chat = app.query_one(ChatPane)
        await wait_for(pilot, lambda: chat.chat_log.cards, "the restored card")
        assert typed(chat) == ["/ingest raw/chapter-01.md", "/go"]
        assert statuses(chat) == ["undone"]
        await pilot.pause()
        shown = screen_text(app)
        assert "↶ undone" in shown and "ctrl+r review" not in shown
        assert chat.chat_input.sent[-2:] == ["/ingest raw/chapter-01.md", "/go"]
