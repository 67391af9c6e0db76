"""Streams that end wrong, arguments too big to hold, and requests that must stay Unicode (DESIGN §8).

Through the real litellm against the fake server: a stream whose body ends before a
``finish_reason`` or ``[DONE]`` is a cut answer (exit 3, the proposals pending, never
applied); streamed tool arguments are gathered in linear time and capped at the limit
of one call's arguments; no request carries a lone surrogate.
"""

from __future__ import annotations

import json

from tests.core.test_turn_faults import CAUCUS, PROPOSE, Chat, plan_then_propose, run
from tests.fakeserver import ToolCalls, ends_early, text, tool_call, tool_calls
from wikitui.core.agent.argcheck import MAX_ARGUMENTS_CHARS
from wikitui.core.agent.events import AgentError, Notice
from wikitui.core.agent.headless import run_ask, run_ingest
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.layout import Vault


def cut_reply():
    """An answer whose body ends, properly, after three chunks: no finish_reason, no [DONE]."""
    return ends_early(text("I proposed the page and now I will link it from the Dodo's page.", chunk=6), 3)


# ------------------------------------------------------------ a stream without its end is cut
def test_ingest_whose_stream_ends_without_its_end_exits_3_and_keeps_the_proposal_pending(fake_llm, sample_vault):
    fake_llm.script(*plan_then_propose(cut_reply()))
    code, out, err = run(run_ingest, sample_vault, "raw/chapter-03.md")
    assert code == 3, err
    assert out == ""  # no patch printed as if the turn were whole
    (pending,) = PendingStore(Vault.open(sample_vault)).list()
    assert [f.path for f in pending.files] == ["wiki/themes/caucus-race.md"]
    assert "was cut off" in err and f"changeset {pending.id} (1 file) is pending" in err
    assert "The answer was cut off" in err


def test_ingest_apply_never_applies_a_turn_whose_stream_was_cut(fake_llm, sample_vault):
    fake_llm.script(*plan_then_propose(cut_reply()))
    code, out, err = run(run_ingest, sample_vault, "raw/chapter-03.md", apply=True)
    assert code == 3 and out == ""
    assert "was cut off" in err and "applied" not in err.replace("never applied", "")
    assert not (sample_vault / "wiki/themes/caucus-race.md").exists()
    (pending,) = PendingStore(Vault.open(sample_vault)).list()
    assert pending.files[0].new_text == CAUCUS


def test_ask_whose_stream_ends_without_its_end_exits_3_and_says_it_was_cut(fake_llm, sample_vault):
    fake_llm.script(tool_calls(PROPOSE), cut_reply())
    code, out, err = run(run_ask, sample_vault, "Write a page about the Caucus-race.")
    assert code == 3, err
    assert out.startswith("I proposed the pag")  # what was streamed, then the verdict on stderr
    (pending,) = PendingStore(Vault.open(sample_vault)).list()
    assert pending.id in err and "was cut off" in err and "The answer was cut off" in err


def test_a_plain_answer_cut_without_its_end_is_a_failure_not_an_answer(fake_llm, sample_vault):
    fake_llm.script(ends_early(text("The Cat grins and then", chunk=4), 2))
    code, out, err = run(run_ask, sample_vault, "Who grins?")
    assert code == 3 and out.startswith("The Cat")
    assert "was cut off: the connection closed before the stream ended" in err


async def test_the_session_keeps_a_cut_answer_marked_as_cut(fake_llm, sample_vault):
    fake_llm.script(cut_reply())
    chat = Chat(sample_vault)
    done = await chat.session.ask("Who grins?")
    assert done.failed
    (err,) = chat.of(AgentError)
    assert err.exit_code == 3 and "was cut off" in err.message
    assert any(n.kind == "cut" for n in chat.of(Notice))
    again = Chat(sample_vault, session_id=chat.session.id)  # the restored chat shows the words and the mark
    kinds = [k for k, _ in again.session.chat_log()]
    assert kinds == ["user", "assistant", "error", "cut"]


def test_a_cut_before_any_words_is_retried(fake_llm, sample_vault):
    fake_llm.script(ends_early(text("The Cat grins.", chunk=4), 0), text("The Cat grins."))
    code, out, err = run(run_ask, sample_vault, "Who grins?")
    assert code == 0, err
    assert out.startswith("The Cat grins.") and "retrying" in err


# ------------------------------------------------------------ big streamed arguments
def big_page(size: int) -> dict:
    return {"path": "wiki/big.md", "content": "---\ntitle: Big\n---\n" + "x" * size, "reason": "big"}


def tool_results(body: dict) -> dict[str, str]:
    """Tool name -> the result the model got, from a request."""
    names = {c["id"]: c["function"]["name"] for m in body["messages"] if m.get("tool_calls") for c in m["tool_calls"]}
    return {names.get(m["tool_call_id"], "?"): m["content"] for m in body["messages"] if m.get("role") == "tool"}


def test_fifty_megabytes_of_streamed_arguments_end_in_an_error_result_and_the_turn_goes_on(fake_llm, sample_vault):
    # 50 MB in chunks of 500 characters: 100,000 chunks. Gathered with += (each chunk copying all that came
    # before it) this ran past pytest's time limit; gathered as parts, and no longer kept past the limit,
    # it takes seconds.
    fake_llm.script(ToolCalls([("propose_page", big_page(50_000_000))], chunk=500, batch=500),
                    text("Too big; I stop."))
    code, out, err = run(run_ask, sample_vault, "Write a big page.")
    assert code == 0, err
    assert out.startswith("Too big; I stop.")
    result = tool_results(fake_llm.requests[1])["propose_page"]
    assert result.startswith("error: propose_page: the arguments are 50,000,0") and f"{MAX_ARGUMENTS_CHARS:,}" in result
    assert PendingStore(Vault.open(sample_vault)).list() == []
    assert len(json.dumps(fake_llm.requests[1])) < 100_000  # the huge arguments are not sent back


def test_over_limit_arguments_get_an_error_result_and_the_other_call_still_runs(fake_llm, sample_vault):
    # 5 MB of arguments, then a search in the same response.
    fake_llm.script(ToolCalls([("propose_page", big_page(5_000_000)), ("search", {"query": "Dodo"})], chunk=500,
                              batch=200),
                    text("The Dodo organised the race [[Dodo]]."))
    code, out, err = run(run_ask, sample_vault, "Who organised the race?")
    assert code == 0, err
    results = tool_results(fake_llm.requests[1])
    assert results["propose_page"].startswith("error: propose_page: the arguments are 5,000,0")
    assert "at most 4,000,000 are accepted" in results["propose_page"]
    assert not results["search"].startswith("error") and "dodo" in results["search"].lower()


def test_arguments_just_under_the_limit_are_read(fake_llm, sample_vault):
    args = json.dumps(big_page(10))
    pad = " " * (MAX_ARGUMENTS_CHARS - len(args))  # JSON allows the whitespace: exactly at the limit
    fake_llm.script(ToolCalls([("propose_page", args + pad)], chunk=8000), text("Proposed."))
    code, _out, err = run(run_ask, sample_vault, "Write a page.")
    assert code == 0, err
    assert not tool_results(fake_llm.requests[1])["propose_page"].startswith("error")


# ------------------------------------------------------------ requests stay Unicode
HATTER_EMBED = {"path": "wiki/characters/mad-hatter.md", "reason": "embed the chart",
                "edits": [{"old": "# Mad Hatter", "new": "# Mad Hatter\n\n![[assets/tea-parties.png]]"}]}
CHART = {"path": "assets/tea-parties.png", "reason": "asked for a chart", "spec": {
    "kind": "bar", "title": "Tea parties by chapter", "series": [{"name": "parties", "x": ["6", "7"], "y": [0, 3]}]}}


def is_unicode(body: dict) -> bool:
    """Whether a request (as the server parsed it) encodes as UTF-8: no lone surrogate anywhere in it."""
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def test_a_chart_turn_sends_no_lone_surrogate_and_succeeds(fake_llm, sample_vault, monkeypatch):
    from wikitui.core.outputs import charts

    # A picture whose bytes look like links when read as text, with an invalid UTF-8 byte inside one
    # (a real PNG has such runs by chance): decoded exactly, that byte is the lone surrogate '\udc9b'.
    real = charts.render_chart
    monkeypatch.setattr(charts, "render_chart", lambda spec: real(spec) + b"\x00[[Nowhere \x9b]] raw/x\x9by.md\x00")
    assert "# Mad Hatter" in (sample_vault / HATTER_EMBED["path"]).read_text()
    fake_llm.script(tool_calls(("propose_chart", CHART)), tool_calls(("propose_edit", HATTER_EMBED)),
                    text("The chart is on the [[Mad Hatter]]'s page."))
    code, out, err = run(run_ask, sample_vault, "Chart the tea parties on the Hatter's page.")
    assert code == 0, err
    assert all(is_unicode(body) for body in fake_llm.requests)
    assert len(fake_llm.requests) == 3  # nothing in the picture went back to the model as a citation
    assert "Nowhere" not in "".join(fake_llm.prompt_texts()) and "Unresolved" not in err
    (pending,) = PendingStore(Vault.open(sample_vault)).list()
    assert {f.path for f in pending.files} >= {"wiki/assets/tea-parties.png", HATTER_EMBED["path"]}


async def test_no_request_carries_a_lone_surrogate_whatever_the_messages_hold(fake_llm):
    from tests.core.test_turn_faults import fast_client

    fake_llm.script(text("ok"))
    client = fast_client()
    messages = [{"role": "system", "content": "rules"},
                {"role": "user", "content": [{"type": "text", "text": "bytes \udc9b here"}]},
                {"role": "tool", "tool_call_id": "c\ud800", "content": "x\udfffy"}]
    async for _ in client.stream(messages):
        pass
    (body,) = fake_llm.requests
    assert is_unicode(body)
    assert body["messages"][1]["content"][0]["text"] == "bytes \ufffd here"
    assert body["messages"][2]["content"] == "x\ufffdy"
    assert messages[1]["content"][0]["text"] == "bytes \udc9b here"  # the caller's messages are left as they were
