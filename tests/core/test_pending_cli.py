"""``wikitui pending list|show|apply|reject`` and ``wikitui undo`` through the command line (DESIGN §6, §10).

Each test runs the command on a copy of the sample vault, in process (``tests.cli_run``);
one call of each command (``ingest``, ``pending``, ``undo``, ``ask``) runs the real
``wikitui`` script in a subprocess instead. The pending changeset comes from a headless
``ingest`` against the fake model server (a subprocess inherits the environment that
points litellm at it).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli_run import real_wikitui, run_wikitui
from tests.core.test_headless import git, ingest_script
from tests.fakeserver import text, tool_call

CAUCUS = "wiki/themes/caucus-race.md"
DODO = "wiki/characters/dodo.md"


def wikitui(vault: Path, *argv: str, real: bool = False) -> subprocess.CompletedProcess:
    """``wikitui ARGV --vault VAULT`` run from the vault's parent: in process, or (``real``) the real script."""
    return (real_wikitui if real else run_wikitui)([*argv, "--vault", str(vault)], cwd=vault.parent)


def one_line(stderr: str) -> str:
    assert stderr.startswith("wikitui: error: ") and stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    return stderr[len("wikitui: error: "):-1]


def propose(fake_llm, vault: Path, *, real: bool = False) -> str:
    """A pending changeset made by a headless ingest (not applied); returns its id."""
    fake_llm.script(*ingest_script())
    proc = wikitui(vault, "ingest", "raw/chapter-03.md", real=real)
    assert proc.returncode == 0, proc.stderr
    (pending,) = list((vault / ".wikitui/pending").glob("cs-*.json"))
    return pending.stem


def test_list_show_apply_then_undo_without_git(fake_llm, sample_vault):
    dodo_before = (sample_vault / DODO).read_text()
    cs_id = propose(fake_llm, sample_vault, real=True)  # the real process of `ingest`

    listed = wikitui(sample_vault, "pending", "list", "--json")
    assert listed.returncode == 0 and listed.stderr == ""
    (item,) = json.loads(listed.stdout)
    assert list(item) == ["id", "op", "title", "created", "files", "hunks"]
    assert item["id"] == cs_id and item["op"] == "ingest" and item["created"][:4].isdigit()
    assert item["files"] == [{"path": CAUCUS, "op": "new", "hunks": 1}, {"path": DODO, "op": "edit", "hunks": 2}]

    human = wikitui(sample_vault, "pending")  # `list` is the default action
    assert human.returncode == 0 and human.stdout.startswith(cs_id) and "2 files" in human.stdout

    short = cs_id.rsplit("-", 1)[1][:4]  # the random part, abbreviated
    shown = wikitui(sample_vault, "pending", "show", short)
    assert shown.returncode == 0 and f"+++ b/{CAUCUS}" in shown.stdout
    patch = sample_vault.parent / "pending.patch"
    patch.write_text(shown.stdout)
    check = subprocess.run(["git", "apply", "--check", str(patch)], cwd=sample_vault, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr

    shown_json = json.loads(wikitui(sample_vault, "pending", "show", cs_id, "--json").stdout)
    assert shown_json["id"] == cs_id and shown_json["patch"] == shown.stdout
    assert shown_json["files"] == item["files"]

    applied = wikitui(sample_vault, "pending", "apply", "latest", "--json", real=True)  # of `pending`
    assert applied.returncode == 0, applied.stderr
    doc = json.loads(applied.stdout)
    assert list(doc) == ["changeset", "files", "commit"]
    assert doc == {"changeset": cs_id, "files": [CAUCUS, DODO], "commit": None}
    assert (sample_vault / CAUCUS).exists() and "[[Caucus-Race]]" in (sample_vault / DODO).read_text()
    assert "[[Caucus-Race]]" in (sample_vault / "wiki/index.md").read_text()  # the TUI's apply: index.md too
    assert json.loads(wikitui(sample_vault, "pending", "list", "--json").stdout) == []

    undone = wikitui(sample_vault, "undo", "--json", real=True)  # of `undo`
    assert undone.returncode == 0, undone.stderr
    doc = json.loads(undone.stdout)
    assert list(doc) == ["changeset", "files", "commit"]
    assert doc["changeset"] == cs_id and doc["commit"] is None and set(doc["files"]) == {CAUCUS, DODO}
    assert not (sample_vault / CAUCUS).exists() and (sample_vault / DODO).read_text() == dodo_before

    again = wikitui(sample_vault, "undo")
    assert again.returncode == 1 and again.stdout == "" and "nothing to undo" in one_line(again.stderr)


def test_apply_after_the_page_was_edited_is_a_conflict_that_writes_nothing(fake_llm, sample_vault):
    cs_id = propose(fake_llm, sample_vault)
    dodo = sample_vault / DODO
    dodo.write_text(dodo.read_text().replace("Its remedy is the Caucus-race.", "Its cure is a long race."))
    index_before = (sample_vault / "wiki/index.md").read_bytes()

    proc = wikitui(sample_vault, "pending", "apply", cs_id, "--json")
    assert proc.returncode == 4 and proc.stdout == ""
    line = one_line(proc.stderr)
    assert line.startswith(f"{DODO}: ") and "nothing was written" in line
    assert "Its cure is a long race." in dodo.read_text()
    assert not (sample_vault / CAUCUS).exists()
    assert (sample_vault / "wiki/index.md").read_bytes() == index_before
    assert [c["id"] for c in json.loads(wikitui(sample_vault, "pending", "list", "--json").stdout)] == [cs_id]


def test_apply_of_a_page_locked_since_the_proposal_says_it_was_refused(fake_llm, sample_vault):
    cs_id = propose(fake_llm, sample_vault)
    dodo = sample_vault / DODO
    dodo.write_text(dodo.read_text().replace("type: entity\n", "type: entity\nllm: locked\n", 1))
    locked = dodo.read_bytes()

    proc = wikitui(sample_vault, "pending", "apply", cs_id)
    assert proc.returncode == 0, proc.stderr
    assert f"wikitui: {DODO}: refused by policy `llm: locked`" in proc.stderr
    assert dodo.read_bytes() == locked and (sample_vault / CAUCUS).exists()  # the other file still applies


def test_reject_drops_the_changeset_and_writes_nothing(fake_llm, sample_vault):
    cs_id = propose(fake_llm, sample_vault)
    before = {p: p.read_bytes() for p in (sample_vault / "wiki").rglob("*") if p.is_file()}
    proc = wikitui(sample_vault, "pending", "reject", cs_id[:-2], "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"changeset": cs_id, "rejected": True}
    assert json.loads(wikitui(sample_vault, "pending", "list", "--json").stdout) == []
    assert {p: p.read_bytes() for p in (sample_vault / "wiki").rglob("*") if p.is_file()} == before
    gone = wikitui(sample_vault, "pending", "show", cs_id)
    assert gone.returncode == 2 and "no changeset is pending" in one_line(gone.stderr)


def test_ids_that_name_nothing_or_several_are_user_errors(fake_llm, sample_vault):
    first = propose(fake_llm, sample_vault)
    second = propose_again(fake_llm, sample_vault, first)
    ambiguous = wikitui(sample_vault, "pending", "apply", "cs-")
    assert ambiguous.returncode == 2 and ambiguous.stdout == ""
    message = one_line(ambiguous.stderr)
    assert "matches 2 pending changesets" in message and first in message and second in message
    unknown = wikitui(sample_vault, "pending", "show", "zzzz")
    assert unknown.returncode == 2 and "no pending changeset matches 'zzzz'" in one_line(unknown.stderr)
    hostile = wikitui(sample_vault, "pending", "show", "../../etc/passwd\udcff")
    assert hostile.returncode == 2 and "no pending changeset matches" in one_line(hostile.stderr)
    missing = wikitui(sample_vault, "pending", "apply")
    assert missing.returncode == 2 and "needs a changeset id" in one_line(missing.stderr)
    assert not (sample_vault / CAUCUS).exists()


def test_undo_after_the_new_page_was_edited_is_a_conflict_that_writes_nothing(fake_llm, sample_vault):
    cs_id = propose(fake_llm, sample_vault)
    applied = wikitui(sample_vault, "pending", "apply", cs_id)
    assert applied.returncode == 0 and applied.stdout == f"{CAUCUS}\n{DODO}\n"  # the files, for a pipe
    assert f"applied {cs_id}: 2 written, 0 deleted" in applied.stderr
    caucus = sample_vault / CAUCUS
    caucus.write_text(caucus.read_text() + "\nEverybody has won, and all must have prizes.\n")
    dodo_applied = (sample_vault / DODO).read_bytes()
    proc = wikitui(sample_vault, "undo", "--json")
    assert proc.returncode == 4 and proc.stdout == ""
    assert one_line(proc.stderr).startswith(f"{CAUCUS}: was edited since")
    assert "all must have prizes" in caucus.read_text() and (sample_vault / DODO).read_bytes() == dodo_applied


def propose_again(fake_llm, vault: Path, first: str) -> str:
    fake_llm.script(*ingest_script())
    assert wikitui(vault, "ingest", "raw/chapter-03.md").returncode == 0
    ids = {p.stem for p in (vault / ".wikitui/pending").glob("cs-*.json")}
    (second,) = ids - {first}
    return second


def test_ingest_apply_json_then_undo_in_a_git_vault(fake_llm, sample_vault):
    for args in (("init", "-q"), ("config", "user.email", "t@example.com"), ("config", "user.name", "Tester"),
                 ("add", "-A"), ("commit", "-qm", "initial")):
        git(sample_vault, *args)
    fake_llm.script(*ingest_script())
    proc = wikitui(sample_vault, "ingest", "raw/chapter-03.md", "--apply", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)  # one document, nothing else on stdout
    assert list(doc) == ["plan", "changeset", "applied", "held", "tokens", "cost"]
    assert doc["plan"] == "Plan: create [[Caucus-Race]]; link it from [[Dodo]]."
    assert list(doc["changeset"]) == ["id", "files"]
    assert doc["changeset"]["files"] == [{"path": CAUCUS, "op": "new", "hunks": 1},
                                         {"path": DODO, "op": "edit", "hunks": 2}]
    assert doc["applied"] is True
    assert set(doc["tokens"]) == {"in", "out"} and doc["tokens"]["in"] > 0 and doc["tokens"]["out"] > 0
    assert isinstance(doc["cost"], float)
    assert "Plan: create" in proc.stderr  # the agent's talk is progress, on stderr
    applied_head = git(sample_vault, "rev-parse", "HEAD").strip()

    undone = wikitui(sample_vault, "undo", "--json")
    assert undone.returncode == 0, undone.stderr
    out = json.loads(undone.stdout)
    assert out["changeset"] == doc["changeset"]["id"] and set(out["files"]) == {CAUCUS, DODO}
    assert out["commit"] == git(sample_vault, "rev-parse", "HEAD").strip() != applied_head
    assert "undo" in git(sample_vault, "log", "-1", "--format=%s")
    assert not (sample_vault / CAUCUS).exists()


def test_ingest_json_pending_and_nothing_proposed(fake_llm, sample_vault):
    fake_llm.script(*ingest_script())
    proc = wikitui(sample_vault, "ingest", "raw/chapter-03.md", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["applied"] is False and not (sample_vault / CAUCUS).exists()
    (pending,) = json.loads(wikitui(sample_vault, "pending", "list", "--json").stdout)
    assert doc["changeset"] == {"id": pending["id"], "files": pending["files"]}


    fake_llm.script(text("Plan: nothing new here."), text("Nothing to change."))
    nothing = wikitui(sample_vault, "ingest", "raw/chapter-02.md", "--json")
    assert nothing.returncode == 1  # nothing proposed, as without --json
    doc = json.loads(nothing.stdout)
    assert doc["plan"] == "Plan: nothing new here." and doc["changeset"] is None and doc["applied"] is False


def test_ask_file_json(fake_llm, sample_vault):
    answer = "Probably not [[Knave of Hearts]]; see [[Queen of Hearts]] and [[Nobody Here]]."
    # The unresolved citation goes back to the model once; it answers the same, so it stays unresolved.
    fake_llm.script(tool_call("search", query="tarts"), text(answer), text(answer))
    # The real process of `ask`.
    proc = wikitui(sample_vault, "ask", "Did the Knave steal the tarts?", "--file", "--json", real=True)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert list(doc) == ["answer", "citations", "unresolved", "changeset", "tokens", "cost"]
    assert doc["answer"].startswith("Probably not [[Knave of Hearts]]")
    knave, queen, nobody = doc["citations"]
    assert knave["target"] == "Knave of Hearts" and knave["path"].endswith(".md")
    assert queen["target"] == "Queen of Hearts" and queen["path"].endswith(".md")
    assert nobody == {"target": "Nobody Here", "path": None} and doc["unresolved"] == ["Nobody Here"]
    (pending,) = json.loads(wikitui(sample_vault, "pending", "list", "--json").stdout)
    assert doc["changeset"] == pending["id"] and pending["op"] == "query"
    assert set(doc["tokens"]) == {"in", "out"}
