"""Benchmark ``wikitui eval``'s own overhead: a full run against the fake OpenAI-compatible server.

The model is the fake server in a process of its own, replaying a good trajectory for
every task (it answers at once), so what is measured is the eval itself: preparing the
planted vault, copying it per task, the agent loop (litellm included), applying the
changesets and the checks. Target: a full run in <= 30 s. Also timed: the run of a model
that answers "Done." to everything (it scores 0), and litellm's one-time import, which a
real run pays once. Scores are printed per group; on the invented world's groups (world,
evidence, long-source) the eval also runs a canned keyword reply and two answer-from-memory
scripts (unplanted values; the right values with nothing read), which must score <= 10 there
(issue 25). Prints JSON; figures taken on a busy machine are noisy (the load average is
printed with them).

Usage: ``.venv/bin/python bench/eval.py [--repeats N]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import loadavg, median  # noqa: E402

from tests.core.eval_scripts import MEMORY_UNPLANTED, MEMORY_UNREAD, all_good, canned_replies, world_replies  # noqa: E402
from tests.fakeserver import FAKE_API_KEY, FAKE_MODEL, text  # noqa: E402
from tests.fakeserver_process import RemoteFakeLLM  # noqa: E402


def _env(fake: RemoteFakeLLM, home: Path) -> None:
    os.environ.update({
        "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
        "WIKITUI_MODEL": FAKE_MODEL, "WIKITUI_API_BASE": fake.api_base, "OPENAI_API_KEY": FAKE_API_KEY,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    })
    os.environ.pop("WIKITUI_CONFIG", None)


def _model_seconds(fake: RemoteFakeLLM, first: int) -> float:
    """Seconds the server spent answering requests ``first``.. (arrival to last byte): the 'model' time."""
    timeline = fake.state()["timeline"][first:]
    return sum(t["finished"] - t["arrived"] for t in timeline if t.get("finished"))


def one_run(fake: RemoteFakeLLM, replies, *, world_only: bool = False) -> dict:
    from wikitui.core.config.settings import load_settings
    from wikitui.core.eval.report import groups, score
    from wikitui.core.eval.runner import run_eval
    from wikitui.core.eval.tasks import TASKS, WORLD_GROUPS

    tasks = tuple(t for t in TASKS if t.group in WORLD_GROUPS) if world_only else TASKS
    first = len(fake.state()["timeline"])
    fake.script(*replies)
    start = time.perf_counter()
    results = run_eval(tasks, load_settings(), timeout=120)
    total = time.perf_counter() - start
    model = _model_seconds(fake, first)
    return {"seconds": total, "model_seconds": model, "score": score(results),
            "groups": {name: g["score"] for name, g in groups(results).items()},
            "tasks": {r.name: r.seconds for r in results}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="full runs of each kind (default 3)")
    args = parser.parse_args()
    fake = RemoteFakeLLM()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-eval-") as tmp:
            _env(fake, Path(tmp))
            from wikitui.core.agent.llm import load_litellm

            t0 = time.perf_counter()
            load_litellm()
            import_seconds = time.perf_counter() - t0
            good = [one_run(fake, all_good()) for _ in range(args.repeats)]
            # Each of these scripts is exactly what its run asks for, so none leaves replies to the next run.
            gamed = {"canned keyword reply": one_run(fake, canned_replies(), world_only=True),
                     "memory, unplanted values": one_run(fake, world_replies(MEMORY_UNPLANTED), world_only=True),
                     "memory, nothing read": one_run(fake, world_replies(MEMORY_UNREAD), world_only=True)}
            done = [one_run(fake, [text("Done.") for _ in range(200)]) for _ in range(args.repeats)]
    finally:
        fake.stop()
    per_task = {name: round(median([run["tasks"][name] for run in good]), 3) for name in good[0]["tasks"]}
    full = median([r["seconds"] for r in good])
    report = {
        "note": "a shared, loaded machine gives noisy figures: compare runs taken together",
        "loadavg": loadavg(),
        "litellm_import_s": round(import_seconds, 2),
        "full_run_s": {"median": round(full, 2), "runs": [round(r["seconds"], 2) for r in good],
                       "target": 30.0, "within_target": full <= 30.0},
        "model_time_s": round(median([r["model_seconds"] for r in good]), 3),
        "eval_overhead_s": round(full - median([r["model_seconds"] for r in good]), 2),
        "score_of_good_trajectories": good[0]["score"],
        "groups_of_good_trajectories": good[0]["groups"],
        "done_model_run_s": round(median([r["seconds"] for r in done]), 2),
        "score_of_done_model": done[0]["score"],
        "groups_of_done_model": done[0]["groups"],
        "world_groups_of_gamed_scripts (each <= 10)": {name: run["groups"] for name, run in gamed.items()},
        "slowest_tasks_s": dict(sorted(per_task.items(), key=lambda kv: -kv[1])[:5]),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
