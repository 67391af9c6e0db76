"""Running the eval's tasks through the real agent loop, each in its own copy, each with a time limit.

:func:`run_eval` prepares the planted base vault in a temporary folder, then for each
task copies it, runs the operation with an :class:`~wikitui.core.agent.session.AgentSession`
(litellm included), applies what the model proposed in that copy, and scores the
outcome with the task's checks. A task that runs past its time limit is cancelled
and fails with a reason; a model that fails before answering a single request of the
first task stops the run (:class:`RunStopped`): nothing else would be scored. A run in
which the model failed every task (whatever the failure: refused, a server error, no
connection, a cut stream, no answer in time) ends the same way: nothing could be scored.
"""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikitui.core.base.errors import ModelError, WikituiError
from wikitui.core.eval.fixture import PREPARE, task_vault
from wikitui.core.eval.outcome import Outcome, snapshot, tool_uses
from wikitui.core.eval.tasks import Task

#: Seconds a task may take when neither ``--task-timeout`` nor ``eval_task_timeout`` says otherwise.
DEFAULT_TASK_TIMEOUT = 300.0

Progress = Callable[[str], None]


class RunStopped(ModelError):
    """The model failed before answering anything in the first task: the run cannot score a thing."""


@dataclass(slots=True, kw_only=True)
class TaskResult:
    """One task's verdict.

    Attributes:
        name: The task.
        group: Its group.
        passed: Whether every check held.
        why: What went wrong (each failed check, ``; ``-separated), or what passed.
        tokens: Tokens sent and received.
        cost: US dollars (0.0 when the model's price is unknown).
        seconds: Wall-clock seconds of the whole task (copy, model, apply, checks).
        model_failed: The model failed (an error, a cut stream, no answer in time), so nothing
            of the task could be scored; a run where every task is so exits 3.
    """

    name: str
    group: str
    passed: bool
    why: str
    tokens: int
    cost: float
    seconds: float
    model_failed: bool = False

    def to_dict(self) -> dict:
        """The task's entry in ``--json``: ``{"name", "passed", "why", "tokens", "cost", "seconds"}``."""
        return {"name": self.name, "passed": self.passed, "why": self.why, "tokens": self.tokens,
                "cost": round(self.cost, 6), "seconds": round(self.seconds, 2)}


def score(outcome: Outcome, task: Task) -> tuple[bool, str]:
    """Run ``task``'s checks on ``outcome``: (passed, why)."""
    failures = []
    for check in task.checks:
        try:
            why = check(outcome)
        except Exception as exc:  # noqa: BLE001 - odd model output must fail one check, not the run
            why = f"a check could not read the result ({type(exc).__name__}: {exc})"
        if why:
            failures.append(why)
    if failures:
        return False, "; ".join(failures)
    return True, passed_why(len(task.checks))


def passed_why(count: int) -> str:
    """The ``why`` of a passed task with ``count`` checks."""
    return "its one check passed" if count == 1 else f"all {count} checks passed"


class _Events:
    """The session's events: errors kept for the verdict, tool calls passed on as progress."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress
        #: (message, exit status) of each error the session reported.
        self.errors: list[tuple[str, int]] = []

    def __call__(self, ev: Any) -> None:
        from wikitui.core.agent.events import AgentError, ToolStarted

        if isinstance(ev, AgentError):
            self.errors.append((ev.message, ev.exit_code))
        elif isinstance(ev, ToolStarted) and self.progress is not None:
            self.progress(f"    · {ev.description}")


async def _operate(session, task: Task) -> tuple[Any, str, int]:
    """Run the task's operation: (the last TurnFinished, an ingest's plan, messages of the plan phase)."""
    if task.op == "ask":
        return await session.ask(task.prompt), "", 0
    if task.op == "lint":
        return await session.lint(), "", 0
    plan = await session.ingest(task.prompt)
    plan_count = len(session.turns[-1].entries) if session.turns else 0
    if not plan.awaiting_go:
        return plan, plan.text, plan_count
    return await session.go(), plan.text, plan_count


def _apply(ws, changeset) -> str | None:
    try:
        ws.apply(changeset)
    except WikituiError as exc:
        return str(exc).splitlines()[0]
    except (OSError, ValueError) as exc:  # what a model proposed is data: it fails the task, not the run
        return f"{type(exc).__name__}: {exc}"
    return None


async def run_task(task: Task, base: Path, workdir: Path, settings, client, *, timeout: float,
                   progress: Progress | None = None) -> tuple[TaskResult, Outcome | None]:
    """Run one task in a fresh copy of ``base`` under ``workdir``; returns its verdict and outcome.

    The outcome is None when the run failed or timed out (nothing to check).
    """
    from wikitui.core.agent.session import AgentSession
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.workspace import Workspace

    start = time.perf_counter()
    root = task_vault(base, workdir / task.name, task.sources)
    events = _Events(progress)
    with Workspace.open(root) as ws:
        vault, graph = ws.vault, ws.load_graph()
        ws.update_index()
        before = snapshot(root)
        session = AgentSession(vault, graph, ws.index, dataclasses.replace(settings), client=client,
                               on_event=events)
        try:
            done, plan, plan_count = await asyncio.wait_for(_operate(session, task), timeout)
        except TimeoutError:
            done = None
        totals = session.totals

        def verdict(passed: bool, why: str, model_failed: bool = False) -> TaskResult:
            return TaskResult(name=task.name, group=task.group, passed=passed, why=why,
                              tokens=totals.prompt_tokens + totals.completion_tokens, cost=totals.cost,
                              seconds=time.perf_counter() - start, model_failed=model_failed)

        if done is None:
            return verdict(False, f"no result within the time limit of {timeout:g} s (raise it with --task-timeout "
                                  "or eval_task_timeout in the config)", True), None
        if done.failed or done.cancelled:
            why, code = events.errors[-1] if events.errors else ("the turn ended early", 0)
            failed = code == ModelError.exit_code
            if failed and totals.requests == 0:
                # The run decides: at the first task the model is simply not there; later, this task fails.
                raise _NoAnswer(why, verdict(False, f"the model failed: {why}", True))
            return verdict(False, f"the model failed: {why}", failed), None
        apply_error = _apply(ws, done.changeset) if done.changeset is not None else None
    turn = session.turns[-1] if session.turns else None
    outcome = Outcome(
        vault=vault, before=before, after=snapshot(root), answer=done.text or "", plan=plan,
        calls=tool_uses([e.message for e in turn.entries], plan_count) if turn else [],
        changeset=done.changeset, apply_error=apply_error,
        graph=LinkGraph.load(vault, use_cache=False, save_cache=False),
        prompt_tokens=totals.prompt_tokens, completion_tokens=totals.completion_tokens, cost=totals.cost,
        requests=totals.requests, count_tokens=lambda text: client.count_tokens(text=text),
    )
    passed, why = score(outcome, task)
    if apply_error:
        passed, why = False, f"its changeset did not apply: {apply_error}" + ("" if passed else f"; {why}")
    return verdict(passed, why), outcome


class _NoAnswer(Exception):
    """A task failed before the model answered any request (raised only to the run, which decides).

    Args:
        why: The model's error.
        result: The task's verdict should the run go on.
    """

    def __init__(self, why: str, result: TaskResult) -> None:
        super().__init__(why)
        self.result = result


#: The folder each vault's base is prepared in, under the run's folder.
BASE_FOLDERS = {"alice": "_base", "world": "_world"}


async def _run_all(tasks: tuple[Task, ...], settings, client, workdir: Path, timeout: float,
                   progress: Progress | None) -> list[TaskResult]:
    bases: dict[str, Path] = {}  # prepared when a task first needs one: `--only world` never copies Alice
    results: list[TaskResult] = []
    for n, task in enumerate(tasks, 1):
        if task.vault not in bases:
            bases[task.vault] = PREPARE[task.vault](workdir / BASE_FOLDERS[task.vault])
        base = bases[task.vault]
        if progress is not None:
            what = task.prompt if task.op != "lint" else "health check"
            progress(f"[{n}/{len(tasks)}] {task.name}: {task.op} {what}")
        try:
            result, _outcome = await run_task(task, base, workdir, settings, client, timeout=timeout,
                                              progress=progress)
        except _NoAnswer as exc:
            if n == 1:
                raise RunStopped(f"the model failed at the first task, so the eval stopped: {exc}") from None
            result = exc.result
        except (WikituiError, OSError, ValueError) as exc:
            # A long run is not thrown away for one task wikitui itself could not finish; the why says so.
            result = TaskResult(name=task.name, group=task.group, passed=False,
                                why=f"wikitui could not run this task: {type(exc).__name__}: {exc}",
                                tokens=0, cost=0.0, seconds=0.0)
        results.append(result)
        if progress is not None:
            mark = "passed" if result.passed else f"FAILED: {result.why}"
            progress(f"    {mark} ({result.seconds:.1f} s, {result.tokens:,} tokens)")
    if results and all(r.model_failed for r in results):  # not one task could be scored: no score to give
        last = results[-1].why.removeprefix("the model failed: ")
        raise RunStopped(f"the model failed in every task, so nothing could be scored (the last: {last})")
    return results


def run_eval(tasks: tuple[Task, ...], settings, *, client=None, timeout: float = DEFAULT_TASK_TIMEOUT,
             progress: Progress | None = None, keep: Path | None = None) -> list[TaskResult]:
    """Run ``tasks`` in a temporary folder (kept at ``keep`` when given) and return their verdicts.

    Raises:
        NoModelConfigured: No model is configured (before anything is copied).
        RunStopped: The model failed before answering anything in the first task, or failed every task.
    """
    settings.require_model()
    if client is None:
        from wikitui.core.agent.llm import LLMClient

        client = LLMClient(settings)
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=False)
        return asyncio.run(_run_all(tasks, settings, client, keep, timeout, progress))
    with tempfile.TemporaryDirectory(prefix="wikitui-eval-") as tmp:
        return asyncio.run(_run_all(tasks, settings, client, Path(tmp), timeout, progress))
