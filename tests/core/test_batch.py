"""``wikitui ingest DIR|GLOB|--new|--resume`` (issue 23): counts, skips by content hash, the estimate,
one pending changeset per source, the cost cap and ``--resume``, rate limits that pause the queue.

Every batch runs through the CLI in this process (``main([...])``) against the fake
server, with the fake model of :mod:`tests.core.batch_util` that ingests whatever
source a request names.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest

from tests.core.batch_util import batch_files, ingesting, pending_by_source
from tests.core.test_batch_overlay import _source
from tests.fakeserver import error, text
from wikitui.cli import main
from wikitui.core.agent.session import AgentSession
from wikitui.core.agent.transcript import Transcript
from wikitui.core.config.settings import load_settings
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.layout import Vault
from wikitui.core.workspace import Workspace

PAPERS = {"raw/papers/a.md": "# Paper A\n\nAbout apples.\n", "raw/papers/b.md": "# Paper B\n\nAbout bees.\n",
          "raw/papers/c.md": "# Paper C\n\nAbout cats.\n", "raw/notes/d.md": "# Note D\n\nAbout dogs.\n"}


@pytest.fixture
def vault(sample_vault):
    for rel, body in PAPERS.items():
        (sample_vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (sample_vault / rel).write_text(body)
    return sample_vault


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


#: A model name no other test uses: litellm keeps a registered price in caches of its own.
PRICED_MODEL = "openai/fake-priced-model"


@pytest.fixture
def priced(monkeypatch):
    """A price for the model in litellm's map (as a user's custom pricing would), under a name of its own."""
    from wikitui.core.agent.llm import load_litellm

    litellm = load_litellm()
    litellm.register_model({PRICED_MODEL: {"input_cost_per_token": 1e-5, "output_cost_per_token": 2e-5,
                                           "litellm_provider": "openai", "mode": "chat"}})
    monkeypatch.setenv("WIKITUI_MODEL", PRICED_MODEL)
    yield


def test_a_folder_batch_proposes_one_changeset_per_source_and_skips_them_once_ingested(fake_llm, vault):
    fake_llm.script(*ingesting(40))
    code, out, err = cli("ingest", "raw/papers/", "--vault", str(vault), "--yes", "--json")
    assert code == 0, err
    assert "3 source(s) to ingest, 0 skipped" in err and "estimate: about " in err
    assert "cost unknown with openai/fake-model" in err  # no price known for the fake model
    assert "[1/3] raw/papers/a.md" in err and "[3/3] raw/papers/c.md: proposed as cs-" in err
    doc = json.loads(out)
    assert doc["counts"]["proposed"] == 3 and doc["counts"]["queued"] == 0 and doc["started"] is True
    assert doc["estimate"]["cost"] is None and doc["estimate"]["tokens"]["in"] > 0
    by_source = pending_by_source(Vault.open(vault))
    assert sorted(by_source) == ["raw/papers/a.md", "raw/papers/b.md", "raw/papers/c.md"]
    assert all(len(ids) == 1 for ids in by_source.values())
    assert [s["changeset"] for s in doc["sources"]] == [by_source[s["source"]][0] for s in doc["sources"]]
    assert all(s["tokens"]["in"] > 0 for s in doc["sources"])
    [queue] = batch_files(vault)
    assert queue["id"] == doc["batch"] and {e["state"] for e in queue["entries"]} == {"proposed"}

    # Again, before any review: each is pending review at this content, so nothing runs twice.
    code, out, err = cli("ingest", "raw/papers/", "--vault", str(vault), "--yes", "--json")
    assert code == 0 and "0 source(s) to ingest, 3 skipped (3 pending review)" in err
    assert json.loads(out)["counts"]["skipped"] == 3 and len(PendingStore(Vault.open(vault)).list()) == 3

    # Applied, the pages list the sources with their hashes: skipped as ingested and unchanged...
    ws = Workspace.open(vault)
    for cs in PendingStore(ws.vault).list():
        ws.apply(cs)
    code, _, err = cli("ingest", "raw/papers/", "--vault", str(vault), "--yes")
    assert code == 0 and "0 source(s) to ingest, 3 skipped (3 ingested and unchanged)" in err
    # ...until one of them changes: that one is queued again, by its content hash.
    (vault / "raw/papers/b.md").write_text("# Paper B\n\nAbout bees, revised.\n")
    code, out, err = cli("ingest", "raw/papers/", "--vault", str(vault), "--yes", "--json")
    assert code == 0, err
    assert "1 source(s) to ingest, 2 skipped" in err
    doc = json.loads(out)
    assert [(s["source"], s["state"]) for s in doc["sources"]] == [
        ("raw/papers/a.md", "skipped"), ("raw/papers/b.md", "proposed"), ("raw/papers/c.md", "skipped")]
    assert list(pending_by_source(Vault.open(vault))) == ["raw/papers/b.md"]


def test_a_glob_and_new_pick_their_sources(fake_llm, vault):
    fake_llm.script(*ingesting(40))
    code, out, err = cli("ingest", "raw/**/d.md", "--vault", str(vault), "--yes", "--json")
    assert code == 0, err
    assert [(s["source"], s["state"]) for s in json.loads(out)["sources"]] == [("raw/notes/d.md", "proposed")]
    # The sample's chapters are listed by its pages (no hash recorded): ingested and unchanged.
    code, out, err = cli("ingest", "raw/*.md", "--vault", str(vault), "--yes", "--json")
    assert code == 0 and "0 source(s) to ingest, 12 skipped (12 ingested and unchanged)" in err
    # --new: every source no page lists (d.md waits for review, so it is skipped too).
    code, out, err = cli("ingest", "--new", "--vault", str(vault), "--yes", "--json")
    assert code == 0, err
    doc = json.loads(out)
    states = {s["source"]: s["state"] for s in doc["sources"]}
    assert states["raw/notes/d.md"] == "skipped" and states["raw/chapter-01.md"] == "skipped"
    assert [p for p, st in states.items() if st == "proposed"] == ["raw/papers/a.md", "raw/papers/b.md",
                                                                   "raw/papers/c.md"]
    assert sorted(pending_by_source(Vault.open(vault))) == ["raw/notes/d.md", "raw/papers/a.md",
                                                            "raw/papers/b.md", "raw/papers/c.md"]


def test_a_source_ingested_alone_and_pending_review_is_skipped(fake_llm, vault):
    fake_llm.script(*ingesting(40))
    code, _, err = cli("ingest", "raw/papers/b.md", "--vault", str(vault))  # one source, as before
    assert code == 0, err
    [alone] = pending_by_source(Vault.open(vault))["raw/papers/b.md"]
    code, out, err = cli("ingest", "raw/papers", "--vault", str(vault), "--yes", "--json")  # a folder, no slash
    assert code == 0, err
    assert "2 source(s) to ingest, 1 skipped (1 pending review)" in err
    [b] = [s for s in json.loads(out)["sources"] if s["source"] == "raw/papers/b.md"]
    assert b["state"] == "skipped" and b["why"] == f"proposed in {alone}, pending review"
    assert all(len(ids) == 1 for ids in pending_by_source(Vault.open(vault)).values())


def test_user_errors_and_the_confirmation(fake_llm, vault):
    code, _, err = cli("ingest", "raw/nowhere/", "--vault", str(vault), "--yes")
    assert code == 2 and "no such folder: raw/nowhere/" in err and "Traceback" not in err
    code, _, err = cli("ingest", "raw/**/*.pdf", "--vault", str(vault), "--yes")
    assert code == 2 and "no source matches raw/**/*.pdf" in err
    code, _, err = cli("ingest", "raw/papers/", "--vault", str(vault), "--apply")
    assert code == 2 and "--apply on a batch applies only the hunks the second reviewer found ok" in err
    code, _, err = cli("ingest", "--resume", "--vault", str(vault), "--yes")
    assert code == 2 and "no unfinished batch to resume" in err
    # No terminal and no --yes: the plan, then a refusal; nothing spent, no queue written.
    code, out, err = cli("ingest", "raw/papers/", "--vault", str(vault), "--json")
    assert code == 2 and "pass --yes" in err and "3 source(s) to ingest" in err
    doc = json.loads(out)
    assert doc["started"] is False and doc["batch"] is None and doc["counts"]["queued"] == 3
    assert fake_llm.requests == [] and not (vault / ".wikitui/batches").exists()


def test_globs_match_as_a_shell_does_and_the_user_may_say_no(fake_llm, vault):
    from wikitui.core.batch.headless import run_batch
    from wikitui.core.batch.select import glob_regex

    rx = glob_regex("raw/**/*.pdf")
    assert rx.match("raw/a.pdf") and rx.match("raw/x/y/b.PDF") and not rx.match("raw/a.pdf.md")
    assert glob_regex("raw/*.md").match("raw/a.md") and not glob_regex("raw/*.md").match("raw/x/a.md")
    assert glob_regex("raw/chapter-0[1-3].md").match("raw/chapter-02.md")
    asked = []
    err = io.StringIO()
    code = run_batch(Workspace.open(vault), "raw/papers/", err=err, out=io.StringIO(),
                     confirm=lambda q: asked.append(q) or False)
    assert code == 1 and asked == ["Ingest 3 source(s)? [y/N] "] and "not started" in err.getvalue()
    assert fake_llm.requests == [] and not (vault / ".wikitui/batches").exists()


def test_an_unreadable_source_fails_alone_and_the_batch_goes_on(fake_llm, vault):
    for name in ("0.png", "1.png", "2.png"):  # first in the queue: three failures in a row
        (vault / "raw/papers" / name).write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 4)
    fake_llm.script(*ingesting(40))
    code, out, err = cli("ingest", "raw/papers/", "--vault", str(vault), "--yes", "--json")
    assert code == 3, err
    states = {s["source"]: s["state"] for s in json.loads(out)["sources"]}
    assert states == {"raw/papers/0.png": "failed", "raw/papers/1.png": "failed", "raw/papers/2.png": "failed",
                      "raw/papers/a.md": "proposed", "raw/papers/b.md": "proposed", "raw/papers/c.md": "proposed"}


def test_the_estimate_uses_this_vaults_measured_tokens_per_ingest(fake_llm, vault):
    code, out, _ = cli("ingest", "raw/papers/", "--vault", str(vault), "--json")  # the sample's log has 12 ingests
    measured = json.loads(out)["estimate"]
    assert measured["basis"] == "log.md: 12 past ingests"
    assert 3 * 16_889 <= measured["tokens"]["in"] <= 3 * 23_473  # the log's lowest and highest ingest
    assert 3 * 2_500 <= measured["tokens"]["out"] <= 3 * 7_100
    (vault / "wiki/log.md").write_text("# Log\n")
    code, out, _ = cli("ingest", "raw/papers/", "--vault", str(vault), "--json")
    by_size = json.loads(out)["estimate"]
    assert by_size["basis"] == "from sizes" and by_size["tokens"] != measured["tokens"]
    assert by_size["tokens"]["in"] > 3 * 4 * 3000  # four requests a source, each with the prompt


def test_a_cost_cap_stops_the_batch_cleanly_and_resume_goes_on(fake_llm, vault, priced):
    fake_llm.script(*ingesting(60, usage=(1000, 100)))  # $0.012 a request, 4 requests a source
    code, out, err = cli("ingest", "raw/", "--vault", str(vault), "--yes", "--json", "--max-cost", "0.05")
    assert code == 1, err
    assert "about $" in err and "cost cap $0.05" in err and "reached its cost cap" in err
    doc = json.loads(out)
    assert doc["stopped"] == "cost cap" and doc["counts"]["proposed"] == 2 and doc["counts"]["queued"] == 2
    assert doc["spent"]["cost"] == pytest.approx(0.096)
    assert sorted(pending_by_source(Vault.open(vault))) == ["raw/notes/d.md", "raw/papers/a.md"]
    assert "--resume" in err
    # The config's cap, raised: --resume runs the rest, each once.
    (vault / ".wikitui/config.toml").write_text("batch_max_cost = 1.0\n")
    code, out, err = cli("ingest", "--resume", "--vault", str(vault), "--yes", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["counts"]["proposed"] == 4 and doc["counts"]["skipped"] == 12 and doc["counts"]["queued"] == 0
    assert all(len(ids) == 1 for ids in pending_by_source(Vault.open(vault)).values())
    assert len(pending_by_source(Vault.open(vault))) == 4
    code, _, err = cli("ingest", "--resume", "--vault", str(vault), "--yes")
    assert code == 2 and "no unfinished batch" in err


def test_under_a_cap_plans_run_ahead_only_while_the_cap_has_room_for_them(fake_llm, vault, priced):
    # Three turns in flight at once would spend on sources past the cap; the cap holds them back.
    (vault / ".wikitui").mkdir(exist_ok=True)
    (vault / ".wikitui/config.toml").write_text("batch_concurrency = 3\n")
    fake_llm.script(*ingesting(60, usage=(1000, 100)))  # $0.012 a request, 4 requests a source
    code, out, err = cli("ingest", "raw/", "--vault", str(vault), "--yes", "--json", "--max-cost", "0.05")
    assert code == 1, err
    doc = json.loads(out)
    assert doc["stopped"] == "cost cap" and doc["counts"]["proposed"] == 2 and doc["counts"]["queued"] == 2
    assert doc["spent"]["cost"] == pytest.approx(0.096)  # as with one source at a time: nothing spent ahead
    assert len(fake_llm.requests) == 8
    assert sources_of(fake_llm.requests) == ["raw/notes/d.md"] * 4 + ["raw/papers/a.md"] * 4  # one at a time
    # With room for them, plans do run ahead: under a cap of $1, the last source plans while the third is
    # written (the batch's proposed sources say what one costs).
    (vault / ".wikitui/config.toml").write_text("batch_concurrency = 3\nbatch_max_cost = 1.0\n")
    code, out, err = cli("ingest", "--resume", "--vault", str(vault), "--yes", "--json")
    assert code == 0, err
    assert json.loads(out)["counts"]["proposed"] == 4 and len(pending_by_source(Vault.open(vault))) == 4
    resumed = sources_of(fake_llm.requests[8:])
    assert len(resumed) == 8 and resumed.index("raw/papers/c.md") < len(resumed) - resumed[::-1].index("raw/papers/b.md") - 1


def sources_of(requests: list[dict]) -> list[str]:
    """The source each request ingests, in the order the server received them."""
    return [_source(r.get("messages", [])) for r in requests]


def test_the_batchs_sessions_are_kept_apart_so_the_chat_resumes_the_users_own(fake_llm, vault):
    fake_llm.script(text("Alice is the girl who follows the White Rabbit."))
    code, _, err = cli("ask", "Who is Alice?", "--vault", str(vault))
    assert code == 0, err
    [mine] = Transcript.list_sessions(vault / ".wikitui/sessions")
    fake_llm.script(*ingesting(40))
    code, _, err = cli("ingest", "raw/papers/", "--vault", str(vault), "--yes")
    assert code == 0, err
    # The next start resumes the conversation the user had, not the batch's last source.
    assert [s.id for s in Transcript.list_sessions(vault / ".wikitui/sessions")] == [mine.id]
    assert AgentSession.resume(Vault.open(vault), None, None, load_settings(vault)).chat_log()[0] == ("user", "Who is Alice?")
    [queue] = batch_files(vault)
    kept = Transcript.list_sessions(vault / ".wikitui/batches" / queue["id"] / "sessions")
    assert len(kept) == 3 and all(s.first_prompt.startswith("/ingest raw/papers/") for s in kept), kept


def test_a_rate_limit_storm_pauses_the_queue_and_fails_no_source(fake_llm, vault):
    storm = [error(429, "slow down", retry_after=0.01) for _ in range(6)]
    fake_llm.script(*ingesting(2), *storm, *ingesting(3), error(529, "overloaded", retry_after=0.01),
                    *ingesting(10))
    code, out, err = cli("ingest", "raw/papers/", "--vault", str(vault), "--yes", "--json")
    assert code == 0, err
    assert err.count("batch paused 0.0 s") == 7
    doc = json.loads(out)
    assert doc["counts"]["proposed"] == 3 and doc["counts"]["failed"] == 0


def test_rate_limits_past_the_total_deadline_stop_the_batch_with_the_rest_queued(fake_llm, vault, monkeypatch):
    from wikitui.core.batch import runner

    default = runner.PAUSE_DEADLINE
    monkeypatch.setattr(runner, "PAUSE_DEADLINE", 0.1)
    fake_llm.script(*ingesting(4), *[error(429, "slow down", retry_after=0.04) for _ in range(10)], *ingesting(20))
    code, out, err = cli("ingest", "raw/papers/", "--vault", str(vault), "--yes", "--json")
    assert code == 3, err
    assert "rate limited too long" in err and "keeps rate-limiting" in err
    doc = json.loads(out)
    assert doc["stopped"] == "rate limited"
    assert [s["state"] for s in doc["sources"]] == ["proposed", "queued", "queued"]
    monkeypatch.setattr(runner, "PAUSE_DEADLINE", default)  # the storm's last 429s are waited out
    code, out, err = cli("ingest", "--resume", "--vault", str(vault), "--yes", "--json")
    assert code == 0, err
    assert json.loads(out)["counts"]["proposed"] == 3
    assert all(len(ids) == 1 for ids in pending_by_source(Vault.open(vault)).values())


def test_other_model_failures_fail_their_source_and_stop_after_three_in_a_row(fake_llm, vault):
    fake_llm.script(*ingesting(4), *[error(400, "bad request") for _ in range(3)], *ingesting(30))
    (vault / "raw/papers/e.md").write_text("# E\n")
    code, out, err = cli("ingest", "raw/", "--vault", str(vault), "--yes", "--json")
    assert code == 3, err
    doc = json.loads(out)
    states = [(s["source"], s["state"]) for s in doc["sources"] if s["state"] != "skipped"]
    assert states == [("raw/notes/d.md", "proposed"), ("raw/papers/a.md", "failed"), ("raw/papers/b.md", "failed"),
                      ("raw/papers/c.md", "failed"), ("raw/papers/e.md", "queued")]
    assert doc["stopped"] == "failures"
    assert all("bad request" in s["why"] for s in doc["sources"] if s["state"] == "failed")
    # The network is back: --resume retries the failed sources (nothing was proposed for them) and the rest.
    code, out, err = cli("ingest", "--resume", "--vault", str(vault), "--yes", "--json")
    assert code == 0, err
    assert json.loads(out)["counts"]["proposed"] == 5
    assert all(len(ids) == 1 for ids in pending_by_source(Vault.open(vault)).values())


def interrupting(at: set[int]) -> list:
    """The ingesting model, sending this process SIGINT (ctrl+c) as it serves the requests numbered in ``at``."""
    import os
    import signal

    from tests.core.batch_util import answer
    from tests.fakeserver import Dynamic

    def reply(n):
        def fn(body):
            if n in at:
                os.kill(os.getpid(), signal.SIGINT)
            return answer(body)
        return Dynamic(fn)

    return [reply(n) for n in range(1, 41)]


def test_ctrl_c_stops_after_the_current_source_and_twice_stops_now_keeping_its_proposals(fake_llm, vault):
    fake_llm.script(*interrupting({5})[:8])  # the first request of b.md; a and b take four each
    code, out, err = cli("ingest", "raw/papers/", "--vault", str(vault), "--yes", "--json")
    assert code == 130 and "stopping after this source" in err
    doc = json.loads(out)
    assert [(s["source"], s["state"]) for s in doc["sources"]] == [
        ("raw/papers/a.md", "proposed"), ("raw/papers/b.md", "proposed"), ("raw/papers/c.md", "queued")]
    assert doc["stopped"] == "interrupted"
    # Twice, in c.md's last request (after it proposed its page): it stops now; the proposal stays pending.
    fake_llm.script(*interrupting({1, 4}))
    code, out, err = cli("ingest", "--resume", "--vault", str(vault), "--yes", "--json")
    assert code == 130 and "stopping now" in err
    [c] = [s for s in json.loads(out)["sources"] if s["source"] == "raw/papers/c.md"]
    assert c["state"] == "failed" and c["changeset"] and "cancelled" in c["why"]
    assert pending_by_source(Vault.open(vault))["raw/papers/c.md"] == [c["changeset"]]
    assert len(PendingStore(Vault.open(vault)).list()) == 3
