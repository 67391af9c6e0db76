"""Answers compound (DESIGN §11, issue 25 point 5): ``/file`` keeps the answer, ``/fold`` folds it into the wiki.

The fold is a turn of its own: the agent is handed the answer and the pages it cites,
and proposes the edits that bring the answer's synthesis into them (search before
create, contradictions in the one callout format). Its proposals are one pending
changeset of their own, reviewed like an ingest's; headless, ``ask --file --fold``
prints both patches, one after the other.
"""

from __future__ import annotations

import io
import json
import subprocess

from tests.core.test_session import Chat, sent
from tests.fakeserver import text, tool_call, tool_calls
from wikitui.core.agent.events import AgentError
from wikitui.core.agent.headless import run_ask
from wikitui.core.agent.prompts import fold as fold_prompt
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.layout import Vault
from wikitui.core.workspace import Workspace

FORMAT = "> [!contradiction] <claim> — [[Other page]] says <other claim> (raw/source.md)"
ANSWER = ("The Caucus-race is the book's first parody of procedure: the [[Dodo]] runs it so that "
          "everybody wins, as the trial later makes law absurd (raw/chapter-03.md).")
OLD = "all procedure and no point (see [[Nonsense and Logic]])."
NEW = ("all procedure and no point (see [[Nonsense and Logic]]). It is the first of the book's mock "
       "institutions; the trial of the Knave is the last (raw/chapter-03.md).")


def fold_script() -> list:
    """The ask (a search, an answer citing the Dodo), then the fold (a read, an edit, a summary)."""
    return [
        tool_call("search", query="caucus race"),
        text(ANSWER),
        tool_call("read", path="wiki/characters/dodo.md"),
        tool_calls(("propose_edit", {"path": "wiki/characters/dodo.md", "reason": "the answer's synthesis",
                                     "edits": [{"old": OLD, "new": NEW}]})),
        text("wiki/characters/dodo.md: the race as the first mock institution."),
    ]


def git(root, *args) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def test_ask_file_fold_joins_the_folds_edits_of_the_cited_pages_to_the_filed_answer(fake_llm, sample_vault):
    fake_llm.script(*fold_script())
    out, err = io.StringIO(), io.StringIO()
    code = run_ask(Workspace.open(sample_vault), "What is the Caucus-race a parody of?", file=True, fold=True,
                   out=out, err=err)
    assert code == 0, err.getvalue()
    assert fake_llm.remaining == 0 and len(fake_llm.requests) == 5
    (pending,) = PendingStore(Vault.open(sample_vault)).list()  # one changeset: the filed answer and the fold
    answer_page, dodo = pending.files
    assert answer_page.action == "create" and answer_page.path.startswith("wiki/answers/")
    assert dodo.path == "wiki/characters/dodo.md" and dodo.action == "edit"
    assert "first of the book's mock institutions" in dodo.new_text  # the fold's edit of the cited page
    assert "Filed answer: [[answers/" in dodo.new_text  # and the filed answer's link, in the same change
    assert pending.title.startswith("Fold in: What is the Caucus-race")
    assert f"changeset {pending.id} (2 files) is pending" in err.getvalue()
    # The fold was handed the answer, the pages it cites and where the answer is filed.
    message = fake_llm.requests[2]["messages"][-1]["content"]
    assert ANSWER in message and "- wiki/characters/dodo.md ([[Dodo]])" in message
    assert f"The answer is filed as {answer_page.path}" in message
    assert "Task: fold an answer into the wiki" in fake_llm.requests[2]["messages"][0]["content"]
    # stdout: the answer, then the one patch; the fold's own talk went to stderr.
    stdout = out.getvalue()
    assert stdout.startswith(ANSWER + "\n") and "mock institution." not in stdout
    assert stdout.count("+++ b/wiki/characters/dodo.md") == 1
    git(sample_vault, "init", "-q")
    patch = sample_vault.parent / "fold.patch"
    patch.write_text(stdout[stdout.index("diff --git"):])
    git(sample_vault, "apply", "--check", str(patch))


def test_ask_fold_alone_leaves_the_folds_changeset_pending_and_json_names_it(fake_llm, sample_vault):
    fake_llm.script(*fold_script())
    out, err = io.StringIO(), io.StringIO()
    code = run_ask(Workspace.open(sample_vault), "What is the Caucus-race a parody of?", fold=True, as_json=True,
                   out=out, err=err)
    assert code == 0, err.getvalue()
    document = json.loads(out.getvalue())
    (pending,) = PendingStore(Vault.open(sample_vault)).list()
    assert [f.path for f in pending.files] == ["wiki/characters/dodo.md"]
    assert document["changeset"] == pending.id and document["answer"] == ANSWER


def test_a_failed_fold_exits_3_and_the_filed_answer_stays_pending(fake_llm, sample_vault):
    fake_llm.script(*fold_script()[:2])  # the script ends before the fold: the server answers 400
    out, err = io.StringIO(), io.StringIO()
    code = run_ask(Workspace.open(sample_vault), "What is the Caucus-race a parody of?", file=True, fold=True,
                   out=out, err=err)
    assert code == 3, err.getvalue()
    (pending,) = PendingStore(Vault.open(sample_vault)).list()
    assert pending.files[0].path.startswith("wiki/answers/")
    assert "Traceback" not in err.getvalue()


async def test_fold_needs_an_answer_that_cites_a_page(fake_llm, sample_vault):
    fake_llm.script(text("Nobody knows."))
    chat = Chat(sample_vault)
    done = await chat.session.fold_answer()
    assert done.failed and "ask a question first" in chat.of(AgentError)[-1].message
    await chat.session.ask("Who knows?")
    done = await chat.session.fold_answer()
    assert done.failed and "cites no wiki page" in chat.of(AgentError)[-1].message
    assert len(fake_llm.requests) == 1  # no model call for a fold with nothing to fold into


async def test_the_fold_prompt_asks_for_edits_search_before_create_and_the_callout(fake_llm, sample_vault):
    fake_llm.script(text(ANSWER), text("Nothing new for the pages."))
    chat = Chat(sample_vault)
    await chat.session.ask("What is the Caucus-race a parody of?")
    done = await chat.session.fold_answer()
    assert not done.failed and done.changeset is None
    system = sent(fake_llm, 1)[0]["content"]
    assert fold_prompt.fold_task() in system
    for words in ("Read each cited page first", "propose_edit", "search", "update the page you find instead",
                  "never overwrite the page's claim", FORMAT):
        assert words in system, words
    assert "The answer is not filed as a page." in sent(fake_llm, 1)[-1]["content"]


def test_a_fold_with_nothing_new_leaves_the_filed_answer_pending_as_it_was(fake_llm, sample_vault):
    fake_llm.script(text(ANSWER), tool_call("read", path="wiki/characters/dodo.md"),
                    text("The Dodo's page already says all of it."))
    out, err = io.StringIO(), io.StringIO()
    code = run_ask(Workspace.open(sample_vault), "What is the Caucus-race a parody of?", file=True, fold=True,
                   out=out, err=err)
    assert code == 0, err.getvalue()
    (pending,) = PendingStore(Vault.open(sample_vault)).list()
    assert [f.path for f in pending.files][0].startswith("wiki/answers/")
    assert "the fold proposed no changes" in err.getvalue()
    assert f"the filed answer: changeset {pending.id}" in err.getvalue()
    assert out.getvalue().count("diff --git") == len(pending.files)
