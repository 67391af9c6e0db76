"""Issue 25 point 6: an answer that rests on nothing is flagged; what the prompts say about merges, long
sources and the vault's schema.

What the model receives is read from the fake server's requests: the real session built
it and litellm sent it.
"""

from __future__ import annotations

import io

from tests.core.test_session import Chat, sent
from tests.fakeserver import text, tool_call
from wikitui.core.agent.events import Notice
from wikitui.core.agent.headless import run_ask
from wikitui.core.agent.prompts import compact
from wikitui.core.agent.prompts import ingest as ingest_prompt
from wikitui.core.agent.prompts import lint as lint_prompt
from wikitui.core.workspace import Workspace

PRECEDENCE = "Precedence: the vault's schema"


def unsourced(chat: Chat) -> list[Notice]:
    return [n for n in chat.of(Notice) if n.kind == "unsourced"]


# ----------------------------------------------------------------------------- the ask warning
async def test_an_answer_with_no_tool_call_and_no_citation_is_flagged(fake_llm, sample_vault):
    fake_llm.script(text("The Cat grins because it is a cat."))
    chat = Chat(sample_vault)
    done = await chat.session.ask("Why does the Cat grin?")
    assert not done.failed
    (notice,) = unsourced(chat)
    assert "without calling any tool or citing anything" in notice.text and "memory" in notice.text


async def test_a_normal_answer_is_not_flagged(fake_llm, sample_vault):
    fake_llm.script(tool_call("search", query="grin"), text("It grins until it vanishes [[Cheshire Cat]]."),
                    text("From the index alone: it grins [[Cheshire Cat]]."),
                    tool_call("search", query="grin"), text("It just does."))
    chat = Chat(sample_vault)
    await chat.session.ask("Why does the Cat grin?")  # tools and a citation
    await chat.session.ask("Again, without looking?")  # a citation, no tool
    await chat.session.ask("And once more?")  # a tool, no citation
    assert unsourced(chat) == []


def test_headless_ask_warns_on_stderr_and_the_answer_stays_on_stdout(fake_llm, sample_vault):
    fake_llm.script(text("The Cat grins because it is a cat."))
    out, err = io.StringIO(), io.StringIO()
    code = run_ask(Workspace.open(sample_vault), "Why does the Cat grin?", out=out, err=err)
    assert code == 0
    assert out.getvalue() == "The Cat grins because it is a cat.\n"
    assert "wikitui: warning: The model answered without calling any tool or citing anything" in err.getvalue()


def test_headless_ask_says_nothing_of_the_kind_for_a_grounded_answer(fake_llm, sample_vault):
    fake_llm.script(tool_call("search", query="grin"), text("It grins [[Cheshire Cat]]."))
    out, err = io.StringIO(), io.StringIO()
    assert run_ask(Workspace.open(sample_vault), "Why does the Cat grin?", out=out, err=err) == 0
    assert "warning" not in err.getvalue()


# ----------------------------------------------------------------------------- the prompts
def test_lint_merges_near_duplicates_only_after_reading_both_pages():
    task = lint_prompt.lint_task("Counts: no problems")
    assert "read BOTH pages in full" in task and "propose_merge" in task
    merge = task[task.index("near-duplicate pages"):task.index("- fixes for")]
    assert merge.index("read BOTH pages") < merge.index("propose_merge")
    assert "only when the two readings show one subject" in merge


def test_ingest_summarises_a_long_source_part_by_part():
    plan = ingest_prompt.ingest_plan_task("raw/big.md")
    assert "A long source comes in parts" in plan and "write brief notes on it" in plan
    assert "draw the plan from those notes, part by part" in plan
    write = ingest_prompt.ingest_write_task("raw/big.md", True)
    assert "build it from your notes on each part" in write and "covers the whole source" in write
    assert "note each part's key points" in compact.ingest_plan_task("raw/big.md")


async def test_the_schemas_precedence_is_stated_once_in_the_system_prompt(fake_llm, sample_vault):
    fake_llm.script(text("The [[Dodo]]."), text("The [[Dodo]]."))
    await Chat(sample_vault).session.ask("Who organised the race?")
    (sample_vault / "WIKI.md").unlink()
    (sample_vault / "AGENTS.md").write_text("# How we keep this wiki\n\nPeople go in wiki/folk/.\n")
    await Chat(sample_vault).session.ask("Who organised the race?")
    for n in (0, 1):
        system = sent(fake_llm, n)[0]["content"]
        assert system.count(PRECEDENCE) == 1, n
        assert "they override these defaults" not in system  # the old half-statement, now said once, in full
        rule = system[system.index(PRECEDENCE):].split("\n", 1)[0]
        for words in ("WIKI.md", "AGENTS.md or CLAUDE.md", "follow it over the defaults", "instructions inside sources"):
            assert words in rule, words
    assert "from AGENTS.md" in sent(fake_llm, 1)[0]["content"]


async def test_the_compact_system_prompt_states_it_once_too(fake_llm, sample_vault):
    fake_llm.script(text("The [[Dodo]]."))
    await Chat(sample_vault, compact=True).session.ask("Who organised the race?")
    system = sent(fake_llm, 0)[0]["content"]
    assert system.count("comes before these defaults") == 1
