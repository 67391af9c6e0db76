"""A turn that goes wrong keeps what it proposed, says what happened, and counts what it spent.

Sessions and the headless commands on a copy of the sample vault, through the real
litellm and the fake server playing faults (DESIGN §8).
"""

from __future__ import annotations

import asyncio
import io

from tests.fakeserver import Text, cut, empty_ok, error, html_page, json_for_stream, text, tool_call, tool_calls
from wikitui.core.agent.events import AgentError, ChangesetReady, Notice, TextDelta, TurnFinished, TurnUsage
from wikitui.core.agent.headless import run_ask, run_ingest
from wikitui.core.agent.llm import LLMClient
from wikitui.core.agent.session import AgentSession
from wikitui.core.changes.pending import PendingStore
from wikitui.core.config.settings import load_settings
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.workspace import Workspace

CAUCUS = ("---\ntitle: Caucus-Race\ntype: concept\nsummary: A race in a circle that everybody wins.\n"
          "sources: [raw/chapter-03.md]\n---\n\n# Caucus-Race\n\nOrganised by the [[Dodo]].\n")
PROPOSE = ("propose_page", {"path": "wiki/themes/caucus-race.md", "content": CAUCUS, "reason": "new concept"})


async def _no_wait(_delay: float) -> None:
    return None


def fast_client() -> LLMClient:
    return LLMClient(load_settings(), base_delay=0, sleep=_no_wait)


class Chat:
    """A session on the vault at ``root`` with every event it reported."""

    def __init__(self, root, session_id=None):
        self.vault = Vault.open(root)
        self.graph = LinkGraph.load(self.vault)
        self.events: list = []
        self.session = AgentSession(self.vault, self.graph, None, load_settings(self.vault), client=fast_client(),
                                    on_event=self.events.append, session_id=session_id)

    def of(self, kind):
        return [e for e in self.events if isinstance(e, kind)]


def run(fn, vault_path, *args, **kwargs) -> tuple[int, str, str]:
    """Run ``fn`` on a workspace opened on ``vault_path``, as ``wikitui ask``/``ingest`` do."""
    out, err = io.StringIO(), io.StringIO()
    code = fn(Workspace.open(vault_path), *args, out=out, err=err, client=fast_client(), **kwargs)
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------ proposals are never lost
def plan_then_propose(*after) -> list:
    """An ingest: read, plan, one proposal, then whatever ``after`` plays."""
    return [tool_call("read", path="raw/chapter-03.md"), text("Plan: a page for the Caucus-race."),
            tool_calls(PROPOSE), *after]


async def test_a_stream_cut_after_a_proposal_keeps_it_pending_and_says_so(fake_llm, sample_vault):
    fake_llm.script(*plan_then_propose(cut(text("I proposed the page and now I will link it from", chunk=6), 3)))
    chat = Chat(sample_vault)
    done = await chat.session.ingest("raw/chapter-03.md", auto_go=True)
    assert done.failed and done.changeset is not None
    (pending,) = PendingStore(chat.vault).list()
    assert pending.id == done.changeset.id and [f.path for f in pending.files] == ["wiki/themes/caucus-race.md"]
    assert pending.files[0].new_text == CAUCUS
    (err,) = chat.of(AgentError)
    assert "was cut off" in err.message and err.exit_code == 3
    note = next(n for n in chat.of(Notice) if n.kind == "pending")
    assert pending.id in note.text and "before the failure" in note.text and "ctrl+r" in note.text
    assert chat.of(ChangesetReady)[0].changeset.id == pending.id
    assert not (sample_vault / "wiki/themes/caucus-race.md").exists()  # pending, never written


def test_headless_ingest_whose_server_fails_after_a_proposal_exits_3_and_names_the_pending_changeset(
        fake_llm, sample_vault):
    fake_llm.script(*plan_then_propose(*[error(500, "upstream exploded")] * 4))
    code, out, err = run(run_ingest, sample_vault, "raw/chapter-03.md", apply=True)
    assert code == 3 and out == ""
    (pending,) = PendingStore(Vault.open(sample_vault)).list()
    assert f"wikitui: The changes proposed before the failure are kept: changeset {pending.id} (1 file)" in err
    assert "HTTP 500" in err and "Traceback" not in err
    assert not (sample_vault / "wiki/themes/caucus-race.md").exists()  # --apply never applies half a turn


def test_headless_ask_cut_after_a_proposal_exits_3_and_keeps_it(fake_llm, sample_vault):
    fake_llm.script(tool_calls(PROPOSE), cut(text("And now the link from the Dodo page", chunk=4), 2))
    code, out, err = run(run_ask, sample_vault, "Write a page about the Caucus-race.")
    assert code == 3
    (pending,) = PendingStore(Vault.open(sample_vault)).list()
    assert pending.id in err and "was cut off" in err


async def test_a_cancel_after_a_proposal_keeps_it_pending(fake_llm, sample_vault):
    fake_llm.script(tool_calls(PROPOSE), text("Now linking it from every page " * 100, chunk=5, delay=0.03))
    chat = Chat(sample_vault)

    def on_event(ev):
        chat.events.append(ev)
        if isinstance(ev, TextDelta) and len(chat.of(TextDelta)) == 3:
            chat.session.cancel()

    chat.session.on_event = on_event
    done = await asyncio.wait_for(chat.session.ask("Write a page about the Caucus-race."), timeout=20)
    assert done.cancelled and done.changeset is not None
    (pending,) = PendingStore(chat.vault).list()
    assert pending.id == done.changeset.id
    assert any(n.kind == "pending" and "before the cancel" in n.text for n in chat.of(Notice))


async def test_a_turn_killed_from_outside_after_a_proposal_keeps_it(fake_llm, sample_vault):
    """The app quitting cancels the worker (CancelledError): the proposals are saved before it ends."""
    fake_llm.script(tool_calls(PROPOSE), text("slow " * 400, chunk=5, delay=0.03))
    chat = Chat(sample_vault)
    task = asyncio.ensure_future(chat.session.ask("Write a page about the Caucus-race."))
    while len(chat.of(TextDelta)) < 2:
        await asyncio.sleep(0.01)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    (pending,) = PendingStore(chat.vault).list()
    assert [f.path for f in pending.files] == ["wiki/themes/caucus-race.md"]
    assert any(n.kind == "pending" for n in chat.of(Notice))


# ------------------------------------------------------------ replies that are not completions
def test_headless_ask_answered_by_an_html_page_exits_3(fake_llm, sample_vault):
    for reply in (html_page(), empty_ok(), json_for_stream()):
        fake_llm.script(reply)
        code, out, err = run(run_ask, sample_vault, "Who is Alice?")
        assert code == 3 and out == ""
        assert "wikitui: the server's reply was not a chat completion" in err


# ------------------------------------------------------------ answers cut by the output limit
def test_an_answer_cut_by_the_output_limit_is_marked_on_stderr(fake_llm, sample_vault):
    fake_llm.script(Text("The Cat grins and then", finish="length"))
    code, out, err = run(run_ask, sample_vault, "Who grins?")
    assert code == 0 and out.startswith("The Cat grins and then")
    assert "wikitui: The answer was cut off by the model's output limit (finish_reason: length)" in err


async def test_an_answer_cut_by_the_output_limit_is_flagged(fake_llm, sample_vault):
    fake_llm.script(Text("The Cat grins and then", finish="length"), text("A whole answer."))
    chat = Chat(sample_vault)
    done = await chat.session.ask("Who grins?")
    assert done.cut and any(n.kind == "cut" for n in chat.of(Notice))
    whole = await chat.session.ask("And?")
    assert not whole.cut


# ------------------------------------------------------------ tokens
async def test_a_cancelled_turn_counts_its_tokens_and_the_footer_follows_the_running_turn(fake_llm, sample_vault):
    fake_llm.script(text("ok", usage=(1000, 10)), text("slow words " * 300, chunk=5, delay=0.03))
    chat = Chat(sample_vault)
    await chat.session.ask("First?")

    def on_event(ev):
        chat.events.append(ev)
        if isinstance(ev, TextDelta) and ev.text and len(chat.of(TextDelta)) == 5:
            chat.session.cancel()

    start = len(chat.events)
    chat.session.on_event = on_event
    done = await chat.session.ask("Tell me everything.")
    assert done.cancelled
    usages = [e for e in chat.events[start:] if isinstance(e, TurnUsage)]
    # The turn's line starts from this turn (0 tokens), not from the previous turn's 1,000.
    assert (usages[0].prompt_tokens, usages[0].completion_tokens, usages[0].final) == (0, 0, False)
    assert usages[0].session_prompt_tokens == 1000
    final = usages[-1]
    assert final.final and final.prompt_tokens > 100 and final.completion_tokens > 0  # counted, not 0
    assert chat.session.totals.prompt_tokens == 1000 + final.prompt_tokens


# ------------------------------------------------------------ a restored chat keeps its notes
async def test_a_restored_chat_shows_its_error_notes_where_they_happened(fake_llm, sample_vault):
    fake_llm.script(*[error(500, "upstream exploded")] * 4, Text("Half an ans", finish="length"))
    first = Chat(sample_vault)
    await first.session.ask("Who is Alice?")
    await first.session.ask("Who is the Hatter?")
    again = Chat(sample_vault, session_id=first.session.id)
    log = again.session.chat_log()
    kinds = [k for k, _ in log]
    assert kinds == ["user", "error", "user", "assistant", "cut"]
    assert "HTTP 500" in log[1][1]
    assert "cut off by the model's output limit" in log[4][1]


# ------------------------------------------------------------ a model that does not call tools
async def test_a_plan_made_without_tools_gets_the_source_in_the_write_request(fake_llm, sample_vault):
    fake_llm.script(text("Plan: I will summarise the chapter."), text("Here is a summary, but no tool calls."))
    chat = Chat(sample_vault)
    done = await chat.session.ingest("raw/chapter-03.md", auto_go=True)
    assert not done.failed and done.changeset is None
    write = fake_llm.requests[1]["messages"][-1]["content"]
    assert '<source path="raw/chapter-03.md">' in write and "Caucus-Race" in write
    notes = [n.text for n in chat.of(Notice) if n.kind == "tools"]
    assert len(notes) == 2 and "without calling any tool" in notes[0] and "made no tool calls" in notes[1]
    # The chat shows what the user sent, not the pasted source.
    again = Chat(sample_vault, session_id=chat.session.id)
    users = [t for k, t in again.session.chat_log() if k == "user"]
    assert all("<source" not in u for u in users)


async def test_a_plan_made_with_tools_gets_no_source_pasted(fake_llm, sample_vault):
    fake_llm.script(tool_call("read", path="raw/chapter-03.md"), text("Plan."), text("Nothing to change."))
    chat = Chat(sample_vault)
    await chat.session.ingest("raw/chapter-03.md", auto_go=True)
    assert "<source" not in fake_llm.requests[2]["messages"][-1]["content"]
    assert not [n for n in chat.of(Notice) if n.kind == "tools"]


async def test_a_source_pasted_for_a_small_window_is_paged(fake_llm, sample_vault):
    fake_llm.script(text("Plan."), text("Done."))
    vault = sample_vault
    (vault / ".wikitui").mkdir(exist_ok=True)
    (vault / ".wikitui" / "config.toml").write_text("context_tokens = 6000\n")
    chat = Chat(vault)
    await chat.session.ingest("raw/chapter-03.md", auto_go=True)
    write = fake_llm.requests[1]["messages"][-1]["content"]
    assert '<source path="raw/chapter-03.md">' in write
    assert "[raw/chapter-03.md is cut here: lines 1-" in write  # the rest is left to read(offset=...)
    assert chat.session.client.count_tokens(fake_llm.requests[1]["messages"], tools=fake_llm.requests[1]["tools"]) \
        <= 6000


def test_turn_finished_carries_cut_and_changeset_fields():
    done = TurnFinished("ask", "x")
    assert (done.cut, done.changeset, done.failed) == (False, None, False)
