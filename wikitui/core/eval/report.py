"""The eval's result: the score, a table for people and the JSON for scripts.

The score is the share of tasks passed, 0 to 100: every task counts the same, so a
run with ``--only`` scores its own group. Each group gets its own score the same way
(the invented world's groups are the ones memory cannot pass). ``--json`` prints
``{"model", "score", "groups": {group: {"score", "passed", "total"}},
"tasks": [{"name", "passed", "why", "tokens", "cost", "seconds"}]}``.
"""

from __future__ import annotations

import shutil
import textwrap

from wikitui.core.eval.runner import TaskResult

#: Widest the ``why`` column gets (longer reasons wrap onto more lines).
_WHY_WIDTH = 72


def score(results: list[TaskResult]) -> float:
    """Percent of tasks passed (0.0 for no tasks), to one decimal."""
    if not results:
        return 0.0
    return round(100.0 * sum(r.passed for r in results) / len(results), 1)


def groups(results: list[TaskResult]) -> dict[str, dict]:
    """Each group that ran, in the order it ran: ``{"score", "passed", "total"}``."""
    by_group: dict[str, list[TaskResult]] = {}
    for r in results:
        by_group.setdefault(r.group, []).append(r)
    return {name: {"score": score(rs), "passed": sum(r.passed for r in rs), "total": len(rs)}
            for name, rs in by_group.items()}


def to_json(model: str, results: list[TaskResult]) -> dict:
    """The ``--json`` object."""
    return {"model": model, "score": score(results), "groups": groups(results),
            "tasks": [r.to_dict() for r in results]}


def table(model: str, results: list[TaskResult], width: int | None = None) -> str:
    """A plain-text table (task, result, why, tokens, cost, seconds) and the score line; long reasons wrap."""
    width = width or shutil.get_terminal_size((120, 24)).columns
    name_w = max([len("task"), *(len(r.name) for r in results)])
    fixed = name_w + 6 + 10 + 9 + 8 + 10
    why_w = max(24, min(_WHY_WIDTH, width - fixed))
    head = f"{'task':<{name_w}}  {'result':<6}  {'why':<{why_w}}  {'tokens':>8}  {'cost':>8}  {'seconds':>7}"
    lines = [head, "-" * len(head)]
    for r in results:
        why = textwrap.wrap(" ".join(r.why.split()), why_w, break_on_hyphens=False) or [""]
        lines.append(f"{r.name:<{name_w}}  {'pass' if r.passed else 'FAIL':<6}  {why[0]:<{why_w}}  "
                     f"{r.tokens:>8,}  {'$' + format(r.cost, '.4f'):>8}  {r.seconds:>7.1f}")
        lines.extend(f"{'':<{name_w}}  {'':<6}  {more}" for more in why[1:])
    passed = sum(r.passed for r in results)
    tokens = sum(r.tokens for r in results)
    cost = sum(r.cost for r in results)
    seconds = sum(r.seconds for r in results)
    lines.append("-" * len(head))
    lines.append("Groups: " + ", ".join(f"{name} {g['score']:g} ({g['passed']}/{g['total']})"
                                        for name, g in groups(results).items()))
    lines.append(f"Score: {score(results):g} ({passed} of {len(results)} tasks passed) for {model}; "
                 f"{tokens:,} tokens, ${cost:.4f}, {seconds:.0f} s")
    return "\n".join(lines)
