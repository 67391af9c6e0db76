"""Headless ``ask`` and ``ingest``: stdout, stderr, exit codes, and a full ingest applied to a git vault."""

from __future__ import annotations

import io
import subprocess

import pytest

from tests.fakeserver import Dynamic, error, text, tool_call, tool_calls
from wikitui.core.agent.headless import run_ask, run_ingest
from wikitui.core.agent.llm import LLMClient
from wikitui.core.changes.pending import PendingStore
from wikitui.core.config.settings import load_settings
from wikitui.core.vault.layout import Vault
from wikitui.core.workspace import Workspace

CAUCUS = ("---\ntitle: Caucus-Race\ntype: concept\nsummary: A race in a circle that everybody wins.\n"
          "tags: [game]\nsources: [raw/chapter-03.md]\ncreated: 2026-11-30\nupdated: 2026-11-30\n---\n\n"
          "# Caucus-Race\n\nOrganised by the [[Dodo]] in [[Chapter 3: A Caucus-Race and a Long Tale]].\n")


def git(root, *args) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def git_vault(sample_vault):
    git(sample_vault, "init", "-q")
    git(sample_vault, "config", "user.email", "t@example.com")
    git(sample_vault, "config", "user.name", "Tester")
    git(sample_vault, "add", "-A")
    git(sample_vault, "commit", "-qm", "initial")
    return sample_vault


def fast_client():
    async def no_wait(_):
        return None

    return LLMClient(load_settings(), base_delay=0, sleep=no_wait)


def run(fn, vault_path, *args, **kwargs) -> tuple[int, str, str]:
    """Run ``fn`` on a workspace opened on ``vault_path``, as ``wikitui ask``/``ingest`` do."""
    out, err = io.StringIO(), io.StringIO()
    code = fn(Workspace.open(vault_path), *args, out=out, err=err, **kwargs)
    return code, out.getvalue(), err.getvalue()


def ingest_script():
    return [
        tool_call("read", path="raw/chapter-03.md"),
        text("Plan: create [[Caucus-Race]]; link it from [[Dodo]]."),
        tool_calls(
            ("propose_page", {"path": "wiki/themes/caucus-race.md", "content": CAUCUS, "reason": "new concept"}),
            ("propose_edit", {"path": "wiki/characters/dodo.md", "reason": "link the race",
                              "edits": [{"old": "Its remedy is the Caucus-race.",
                                         "new": "Its remedy is the [[Caucus-Race]]."}]}),
        ),
        text("Proposed the Caucus-Race page and a link from the Dodo."),
    ]


def test_ingest_apply_writes_pages_index_log_and_a_commit(fake_llm, git_vault):
    fake_llm.script(*ingest_script())
    code, out, err = run(run_ingest, git_vault, "raw/chapter-03.md", apply=True, client=fast_client())
    assert code == 0, err
    assert "+++ b/wiki/themes/caucus-race.md" in out and "[[Caucus-Race]]" in out
    assert "» ingest-plan: raw/chapter-03.md" in err and "· read raw/chapter-03.md" in err
    assert "Plan: create" in err  # the agent's talk goes to stderr, the patch alone to stdout
    assert (git_vault / "wiki/themes/caucus-race.md").read_text().startswith("---\ntitle: Caucus-Race")
    assert "[[Caucus-Race]]" in (git_vault / "wiki/characters/dodo.md").read_text()
    index = (git_vault / "wiki/index.md").read_text()
    assert "[[Caucus-Race]]" in index and "A race in a circle that everybody wins." in index
    log = (git_vault / "wiki/log.md").read_text()
    vault = Vault.open(git_vault)
    assert PendingStore(vault).list() == []  # applied: nothing left pending
    entry = log[log.rindex("## ["):]
    # log.md names the source by its title (its first heading here), not "Ingest raw/chapter-03.md".
    assert entry.startswith("## [") and "] ingest | CHAPTER III. A Caucus-Race and a Long Tale\n" in entry
    assert "openai/fake-model" in entry
    head = git(git_vault, "log", "-1", "--format=%B")
    changeset_id = entry.split("changeset: ")[1].split()[0] if "changeset: " in entry else None
    assert changeset_id and changeset_id in head
    assert git(git_vault, "status", "--porcelain", "--", "wiki") == ""  # all of it committed
    for path in git_vault.rglob("*"):
        if path.is_file():
            assert b"SECRET123" not in path.read_bytes(), path


def test_ingest_without_apply_prints_a_patch_git_accepts(fake_llm, git_vault):
    fake_llm.script(*ingest_script())
    code, out, err = run(run_ingest, git_vault, "raw/chapter-03.md", client=fast_client())
    assert code == 0 and "is pending" in err
    assert not (git_vault / "wiki/themes/caucus-race.md").exists()
    assert len(PendingStore(Vault.open(git_vault)).list()) == 1
    patch = git_vault.parent / "ingest.patch"
    patch.write_text(out)
    git(git_vault, "apply", "--check", str(patch))


def test_ingest_that_proposes_nothing_exits_1(fake_llm, sample_vault):
    fake_llm.script(text("Plan: nothing new here."), text("Nothing to change."))
    code, out, err = run(run_ingest, sample_vault, "raw/chapter-03.md", client=fast_client())
    assert (code, out) == (1, "") and "proposed no changes" in err


def ingest_script_with_a_human_edit(sample_vault) -> list:
    """The ingest's turns, the last one editing the Dodo's page on disk as a human would, mid-turn."""
    dodo = sample_vault / "wiki/characters/dodo.md"

    def human_edits_meanwhile(_body):
        dodo.write_text(dodo.read_text().replace("Its remedy is the Caucus-race.", "Its cure is a race."))
        return text("Proposed.")

    script = ingest_script()
    script[-1] = Dynamic(human_edits_meanwhile)
    return script


def test_a_conflicting_edit_on_disk_exits_4(fake_llm, sample_vault):
    fake_llm.script(*ingest_script_with_a_human_edit(sample_vault))
    code, out, err = run(run_ingest, sample_vault, "raw/chapter-03.md", apply=True, client=fast_client())
    assert code == 4, err
    assert "Its cure is a race." in (sample_vault / "wiki/characters/dodo.md").read_text()  # the human's edit is never overwritten
    assert not (sample_vault / "wiki/themes/caucus-race.md").exists()  # all or nothing


def test_ask_prints_the_answer_and_files_it(fake_llm, sample_vault):
    fake_llm.script(tool_call("search", query="tarts"), text("Probably not [[Knave of Hearts]]."))
    code, out, err = run(run_ask, sample_vault, "Did the Knave steal the tarts?", file=True, client=fast_client())
    assert code == 0, err
    assert out.startswith("Probably not [[Knave of Hearts]].\n")
    assert "+++ b/wiki/answers/did-the-knave-steal-the-tarts-2.md" in out  # the sample already has the first
    assert "· searched \"tarts\"" in err and "is pending" in err
    assert len(PendingStore(Vault.open(sample_vault)).list()) == 1


def test_exit_codes_for_user_and_model_errors(fake_llm, sample_vault, monkeypatch):
    fake_llm.script(*[error(500)] * 4)
    code, out, err = run(run_ask, sample_vault, "hi", client=fast_client())
    assert code == 3 and out == "" and "HTTP 500" in err and "Traceback" not in err
    code, _, err = run(run_ingest, sample_vault, "raw/no-such-chapter.md", client=fast_client())
    assert code == 2 and "no page or file named 'raw/no-such-chapter.md'" in err
    monkeypatch.delenv("WIKITUI_MODEL")
    code, _, err = run(run_ask, sample_vault, "hi")
    assert code == 2 and "no model configured" in err
