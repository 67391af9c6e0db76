"""``wikitui eval`` as a user runs it: the table, the JSON, the score, progress, time limits and exit codes.

The model is the fake OpenAI-compatible server (real litellm in between). The user's
home, config and vault are snapshotted and must come out byte-identical.
"""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

import pytest

from tests.core import eval_scripts as scripts
from tests.fakeserver import FAKE_MODEL, error, hang, text
from wikitui import cli
from wikitui.core.agent.llm import LLMClient
from wikitui.core.config.settings import load_settings
from wikitui.core.eval import command
from wikitui.core.eval.tasks import GROUPS, TASKS, WORLD_GROUPS

ECONOMY = [t.name for t in TASKS if t.group == "economy"]


def tree(root: Path) -> dict[str, tuple]:
    """Every file and folder under ``root`` with its bytes, mode and mtime (all must stay the same)."""
    out = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        out[path.relative_to(root).as_posix()] = (path.read_bytes() if path.is_file() else None, st.st_mode,
                                                  st.st_mtime_ns)
    return out


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(["eval", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """A temp folder of its own for the eval's vaults, to see that it cleans up after itself."""
    folder = tmp_path / "systmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_a_model_that_says_done_to_everything_scores_zero_and_the_run_finishes(fake_llm, capsys, private_tmp):
    fake_llm.script(*[text("Done.") for _ in range(200)])
    code, out, err = run_cli(capsys, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"model", "score", "groups", "tasks"}
    assert data["model"] == FAKE_MODEL and data["score"] == 0
    assert list(data["groups"]) == list(GROUPS)
    for name, group in data["groups"].items():
        assert group == {"score": 0, "passed": 0, "total": sum(t.group == name for t in TASKS)}
    assert [t["name"] for t in data["tasks"]] == [t.name for t in TASKS]
    for task in data["tasks"]:
        assert set(task) == {"name", "passed", "why", "tokens", "cost", "seconds"}
        assert task["passed"] is False and task["why"] and task["tokens"] > 0 and task["seconds"] > 0
    # Progress went to stderr while it ran, one line per task and its verdict.
    assert f"[1/{len(TASKS)}] ingest-source: ingest raw/real-people.md" in err
    assert f"[{len(TASKS)}/{len(TASKS)}] {TASKS[-1].name}" in err and "FAILED: " in err
    assert list(private_tmp.iterdir()) == []  # the eval's vaults are gone


def test_good_trajectories_score_100_and_the_users_home_config_and_vault_are_untouched(
        fake_llm, capsys, private_tmp, isolated_home, sample_vault, monkeypatch):
    # The model comes from the user's vault config, and the time limit from the user's config: read, never written.
    monkeypatch.delenv("WIKITUI_MODEL")
    (sample_vault / ".wikitui").mkdir()
    (sample_vault / ".wikitui" / "config.toml").write_text(f'model = "{FAKE_MODEL}"\n')
    user_config = isolated_home / ".config" / "wikitui" / "config.toml"
    user_config.parent.mkdir(parents=True)
    user_config.write_text("eval_task_timeout = 120  # seconds\n")
    monkeypatch.chdir(sample_vault)
    home_before, vault_before = tree(isolated_home), tree(sample_vault)
    fake_llm.script(*scripts.all_good())

    code, out, err = run_cli(capsys)
    assert code == 0, err
    assert f"wikitui eval: {len(TASKS)} tasks with {FAKE_MODEL} (at most 120 s each)" in err
    lines = out.splitlines()
    assert lines[0].split() == ["task", "result", "why", "tokens", "cost", "seconds"]
    rows = [line for line in lines if line.split() and line.split()[0] in {t.name for t in TASKS}]
    assert len(rows) == len(TASKS) and all(row.split()[1] == "pass" for row in rows)
    assert f"Score: 100 ({len(TASKS)} of {len(TASKS)} tasks passed) for {FAKE_MODEL}" in out
    groups = next(line for line in lines if line.startswith("Groups: "))
    for name in GROUPS:
        total = sum(t.group == name for t in TASKS)
        assert f"{name} 100 ({total}/{total})" in groups
    assert fake_llm.remaining == 0
    assert tree(isolated_home) == home_before
    assert tree(sample_vault) == vault_before
    assert list(private_tmp.iterdir()) == []


def test_no_model_configured_is_one_line_and_exit_3(capsys):
    code, out, err = run_cli(capsys, "--json")
    assert (code, out) == (3, "")
    assert err.startswith("wikitui: error: no model configured: pass --model") and err.count("\n") == 1


def test_a_model_that_refuses_the_first_request_stops_the_run_with_exit_3(fake_llm, capsys, private_tmp):
    fake_llm.script(error(401, "invalid api key"))
    code, out, err = run_cli(capsys)
    assert (code, out) == (3, "")
    errors = [line for line in err.splitlines() if line.startswith("wikitui: error:")]
    assert len(errors) == 1 and "the model failed at the first task, so the eval stopped" in errors[0]
    assert "Traceback" not in err and len(fake_llm.requests) == 1
    assert list(private_tmp.iterdir()) == []


def test_an_unreachable_server_stops_the_run_with_exit_3(monkeypatch, private_tmp):
    monkeypatch.setenv("WIKITUI_MODEL", FAKE_MODEL)
    monkeypatch.setenv("WIKITUI_API_BASE", f"http://127.0.0.1:{closed_port()}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unreachable")
    out, err = io.StringIO(), io.StringIO()
    code = command.main(only="ask", out=out, err=err, client=fast_client())
    assert (code, out.getvalue()) == (3, "")
    assert "the eval stopped" in err.getvalue() and "Traceback" not in err.getvalue()


def test_a_model_failure_after_the_first_task_fails_that_task_and_the_run_goes_on(fake_llm, capsys):
    fake_llm.script(*scripts.GOOD["economy-tokens"], error(401, "key revoked"), *scripts.GOOD["economy-ingest"])
    code, out, err = run_cli(capsys, "--only", "economy", "--json")
    assert code == 0, err
    tasks = {t["name"]: t for t in json.loads(out)["tasks"]}
    assert list(tasks) == ECONOMY
    assert tasks["economy-rounds"]["passed"] is False and "the model failed" in tasks["economy-rounds"]["why"]
    assert tasks["economy-tokens"]["passed"] and tasks["economy-ingest"]["passed"]
    assert json.loads(out)["score"] == 66.7


@pytest.mark.parametrize("where", ["flag", "config"])
def test_a_task_past_its_time_limit_fails_with_a_clear_why_and_the_run_goes_on(fake_llm, capsys, tmp_path,
                                                                                monkeypatch, where):
    args = ["--only", "economy", "--json"]
    if where == "flag":
        args += ["--task-timeout", "1"]
    else:
        config = tmp_path / "config.toml"
        config.write_text("eval_task_timeout = 1\n")
        monkeypatch.setenv("WIKITUI_CONFIG", str(config))
    # The first task's model never answers; the other two do.
    fake_llm.script(hang(60), *scripts.GOOD["economy-rounds"], *scripts.GOOD["economy-ingest"])
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    tasks = json.loads(out)["tasks"]
    assert tasks[0]["passed"] is False
    assert tasks[0]["why"].startswith("no result within the time limit of 1 s (raise it with --task-timeout")
    assert [t["passed"] for t in tasks[1:]] == [True, True]


@pytest.mark.parametrize("args", [
    ["--task-timeout", "0"], ["--task-timeout", "soon"], ["--task-timeout", "nan"], ["--only", "vibes"],
    ["--vault", "/nonexistent/vault"],
])
def test_user_errors_are_one_line_and_exit_2_and_run_nothing(fake_llm, capsys, args):
    code, out, err = run_cli(capsys, *args)
    assert (code, out) == (2, "")
    assert err.startswith("wikitui: error: ") and err.count("\n") == 1
    assert fake_llm.requests == []


def test_keep_leaves_the_vaults_to_inspect_and_refuses_a_folder_that_exists(fake_llm, capsys, tmp_path):
    kept = tmp_path / "kept"
    fake_llm.script(*[reply for name in ECONOMY for reply in scripts.GOOD[name]])
    code, out, err = run_cli(capsys, "--only", "economy", "--keep", str(kept))
    assert code == 0, err
    assert f"the eval's vaults are in {kept}" in err
    assert sorted(p.name for p in kept.iterdir()) == ["_base", *sorted(ECONOMY)]
    assert (kept / "economy-ingest" / "wiki/sources/queen-of-hearts-rhyme.md").exists()  # applied in its copy
    code, out, err = run_cli(capsys, "--only", "economy", "--keep", str(kept))
    assert code == 2 and "exists already" in err


# ------------------------------------------------------------------------- helpers
def fast_client():
    async def no_wait(_):
        return None

    return LLMClient(load_settings(), base_delay=0, sleep=no_wait)


def closed_port() -> int:
    """A port nothing listens on (bound, then closed)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_cli_lists_eval_in_its_help(capsys):
    assert cli.main(["--help"]) == 0
    assert "eval" in capsys.readouterr().out


# ------------------------------------------------------------------------- nothing scored: exit 3
def _refused_from_now_on(client):
    """A reply that answers, then points ``client`` at a port nothing listens on: every later request is refused."""
    import dataclasses

    from tests.fakeserver import Dynamic, tool_call

    def answer(_body):
        client.settings = dataclasses.replace(client.settings, api_base=f"http://127.0.0.1:{closed_port()}/v1")
        return tool_call("search", query="Dinah")

    return Dynamic(answer)


@pytest.mark.parametrize("kind", ["401", "500", "refused", "cut"])
def test_a_run_in_which_the_model_failed_every_task_exits_3(fake_llm, private_tmp, kind):
    """The first request is answered (so the run does not stop at once), then every task fails by the model."""
    from tests.fakeserver import cut, tool_call

    client = fast_client()
    first = tool_call("search", query="Dinah")
    failures = {"401": lambda: [error(401, "key revoked")],
                "500": lambda: [error(500, "upstream exploded")] * 4,
                "refused": lambda: [],
                "cut": lambda: [cut(text("Dinah is Alice's cat and she", chunk=4), 2)]}[kind]
    if kind == "refused":
        fake_llm.script(_refused_from_now_on(client))
    else:
        fake_llm.script(first, *[reply for _ in range(12) for reply in failures()])
    out, err = io.StringIO(), io.StringIO()
    code = command.main(only="economy", as_json=True, out=out, err=err, client=client)
    assert (code, out.getvalue()) == (3, ""), err.getvalue()
    errors = [line for line in err.getvalue().splitlines() if line.startswith("wikitui: error:")]
    assert len(errors) == 1 and "the model failed in every task, so nothing could be scored" in errors[0]
    assert err.getvalue().count("FAILED: the model failed") == len(ECONOMY)  # each task ran, and said why
    assert "Traceback" not in err.getvalue() and list(private_tmp.iterdir()) == []


# ------------------------------------------------------------------------- the invented world: memory cannot pass
def run_world(capsys) -> dict:
    """The invented world's groups, run one after the other through the CLI: group name to its JSON entry."""
    groups, tasks = {}, {}
    for name in WORLD_GROUPS:
        code, out, err = run_cli(capsys, "--only", name, "--json")
        assert code == 0, err
        data = json.loads(out)
        groups.update(data["groups"])
        tasks.update({t["name"]: t for t in data["tasks"]})
    return {"groups": groups, "tasks": tasks}


def test_on_the_invented_world_good_trajectories_score_100_per_group(fake_llm, capsys, private_tmp):
    fake_llm.script(*scripts.world_replies(scripts.GOOD))
    data = run_world(capsys)
    assert fake_llm.remaining == 0
    assert {name: g["score"] for name, g in data["groups"].items()} == {name: 100 for name in WORLD_GROUPS}


@pytest.mark.parametrize("kind", ["canned", "memory-unplanted", "memory-unread"])
def test_a_canned_reply_or_an_answer_from_memory_scores_zero_on_the_invented_world(fake_llm, capsys, private_tmp,
                                                                                   kind):
    """Canned: one reply for everything, holding every planted value and index.md's titles. From memory: values
    that sound right but were never planted, or the right values (and titles) with nothing read in the task."""
    if kind == "canned":
        fake_llm.script(*scripts.canned_replies())
    else:
        script = scripts.MEMORY_UNPLANTED if kind == "memory-unplanted" else scripts.MEMORY_UNREAD
        fake_llm.script(*scripts.world_replies(script))
    data = run_world(capsys)
    assert fake_llm.remaining == 0  # every scripted reply was played, in its task
    assert set(data["groups"]) == set(WORLD_GROUPS)
    for name, group in data["groups"].items():
        assert group["score"] <= 10, (name, group)  # the bar; in fact each task fails:
    assert [t["name"] for t in data["tasks"].values() if t["passed"]] == []


def test_evidence_given_as_the_propose_tools_argument_passes_and_a_reworded_quote_fails(fake_llm, capsys,
                                                                                         private_tmp):
    """The evidence group through the real propose tools' ``evidence`` argument (issue 25.1 and 25.3 together):
    quotes the source holds at the lines given pass; a reworded one comes back to the model once, and fails."""
    good = scripts.ingest_mill_with_arguments(scripts.mill_page_with_evidence_arguments())
    fake_llm.script(*good, *scripts.GOOD["evidence-quote"])
    code, out, err = run_cli(capsys, "--only", "evidence", "--json")
    assert code == 0, err
    tasks = {t["name"]: t for t in json.loads(out)["tasks"]}
    assert tasks["evidence-ingest"]["passed"], tasks["evidence-ingest"]["why"]
    assert fake_llm.remaining == 0

    reworded = scripts.mill_page_with_evidence_arguments(("Yselde Marrowquin built the mill in 1788",
                                                          "has 14 paddles", "grinds 46 bushels"))
    fake_llm.script(*scripts.ingest_mill_with_arguments(reworded, answers_again=True),
                    *scripts.GOOD["evidence-quote"])
    code, out, err = run_cli(capsys, "--only", "evidence", "--json")
    tasks = {t["name"]: t for t in json.loads(out)["tasks"]}
    assert not tasks["evidence-ingest"]["passed"]
    assert "Yselde Marrowquin built the mill in 1788" in tasks["evidence-ingest"]["why"]
    assert fake_llm.remaining == 0  # the extra answer was asked for: the quote went back to the model once
