"""``wikitui lint --challenge PATH`` (issue 28 point 3): new material compared with the wiki, disagreements proposed.

The nightly "question my assumptions" job: the agent reads the material (a note, or every
file of ``raw/inbox/``), compares it with the pages, and proposes contradiction callouts
(DESIGN §11's one format) and updates, left pending; exit codes as ``lint --semantic``'s.
"""

from __future__ import annotations

import json

import pytest

from tests.cli_run import run_wikitui
from tests.fakeserver import error, text, tool_call
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.layout import Vault

CLAIM = "He wakes only to be contrary or to be made to perform."
CALLOUT = ("> [!contradiction] He wakes only to be contrary — [[Mad Hatter]] says he wakes to sing "
           "(raw/inbox/dormouse-notes.md)")


@pytest.fixture
def inbox_vault(sample_vault):
    inbox = sample_vault / "raw" / "inbox"
    inbox.mkdir()
    (inbox / "dormouse-notes.md").write_text("# Notes on the Dormouse\n\nThe Dormouse wakes to sing "
                                             "'Twinkle, twinkle' on his own, not only when pinched.\n")
    (inbox / "hatter-notes.md").write_text("# Notes on the Hatter\n\nThe Hatter's watch runs two days slow.\n")
    return sample_vault


def content(root) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)}


def test_challenge_on_the_inbox_proposes_a_contradiction_callout_pending_and_exits_1(fake_llm, inbox_vault):
    before = content(inbox_vault)
    fake_llm.script(
        tool_call("read", path="raw/inbox/dormouse-notes.md"),
        tool_call("read", path="wiki/characters/dormouse.md"),
        tool_call("propose_edit", path="wiki/characters/dormouse.md", reason="the inbox's notes disagree",
                  edits=[{"old": CLAIM, "new": CLAIM + "\n\n" + CALLOUT + "\n"}]),
        text("Disagreement: [[Dormouse]] says he wakes only when made to; raw/inbox/dormouse-notes.md says he "
             "sings on his own. The Hatter notes agree with [[Hatter's Watch]]."),
    )
    proc = run_wikitui(["lint", "--challenge", "raw/inbox/", "--json", "--vault", str(inbox_vault)])
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["material"] == ["raw/inbox/dormouse-notes.md", "raw/inbox/hatter-notes.md"]
    assert doc["changeset"]["files"][0]["path"] == "wiki/characters/dormouse.md"
    assert "Disagreement" in doc["report"]
    prompt = fake_llm.requests[0]["messages"][0]["content"]
    assert "raw/inbox/dormouse-notes.md" in prompt and "raw/inbox/hatter-notes.md" in prompt
    assert "> [!contradiction] <claim> — [[Other page]] says <other claim> (raw/source.md)" in prompt
    (pending,) = PendingStore(Vault.open(inbox_vault)).list()
    assert pending.id == doc["changeset"]["id"] and CALLOUT in pending.files[0].new_text
    assert pending.title == "Assumptions checked against raw/inbox/" and pending.op == "lint"
    assert content(inbox_vault) == before  # proposed, never applied


def test_challenge_of_one_note_that_agrees_exits_0_with_nothing_pending(fake_llm, inbox_vault):
    fake_llm.script(tool_call("read", path="raw/inbox/hatter-notes.md"),
                    text("No disagreement: the wiki already says the watch runs two days slow."))
    proc = run_wikitui(["lint", "--challenge", "raw/inbox/hatter-notes.md", "--vault", str(inbox_vault)])
    assert proc.returncode == 0, proc.stderr
    assert "No disagreement" in proc.stdout
    assert PendingStore(Vault.open(inbox_vault)).list() == []
    assert "raw/inbox/hatter-notes.md" in fake_llm.requests[0]["messages"][0]["content"]


def test_challenge_exits_3_when_the_model_fails(fake_llm, inbox_vault):
    fake_llm.script(error(401, "invalid api key"))
    proc = run_wikitui(["lint", "--challenge", "raw/inbox", "--vault", str(inbox_vault)])
    assert proc.returncode == 3 and "wikitui:" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("path", ["raw/nowhere.md", "../outside", "raw/empty/"])
def test_challenge_of_nothing_readable_is_a_user_error(fake_llm, inbox_vault, path):
    (inbox_vault / "raw" / "empty").mkdir()
    proc = run_wikitui(["lint", "--challenge", path, "--vault", str(inbox_vault)])
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("wikitui: ") and fake_llm.requests == []


def test_challenge_without_a_model_is_a_user_error(inbox_vault):
    proc = run_wikitui(["lint", "--challenge", "raw/inbox/", "--vault", str(inbox_vault)])
    assert proc.returncode == 2 and "no model configured" in proc.stderr
