"""What one eval task's run left behind, in the form the checks read.

An :class:`Outcome` holds the model's answer (and an ingest's plan), every tool call
it made (with its arguments, its phase and whether the tool refused it), the
changeset it proposed, the vault's files before the run and after the changeset was
applied in the eval's copy, and the tokens, cost and requests the run spent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from wikitui.core.vault.links import extract_links

#: Files the eval never compares: wikitui's own state (sessions, index, pending changesets).
_STATE = ".wikitui"
#: A raw path as the prompts ask the model to cite it.
_RAW_PATH = re.compile(r"raw/[\w./-]+\.\w+")
#: The first line of a ``read`` result: ``raw/x.md (raw source, read-only) lines 1-40 of 120``.
_READ_HEAD = re.compile(r"^(?P<path>.+?\.\w+)(?: \(.*\))? lines \d+-\d+ of \d+$")
#: One numbered row of a ``read`` result.
_READ_ROW = re.compile(r"^ *(\d+)\t", re.MULTILINE)


@dataclass(slots=True)
class ToolUse:
    """One tool call of the run.

    Attributes:
        phase: ``plan`` (an ingest's plan phase) or ``write`` (everything else).
        name: The tool's name.
        args: Its arguments (``{}`` when they were not a JSON object).
        ok: False when the tool answered with an error (a refused proposal, a missing page).
        result: What the model was told.
    """

    phase: str
    name: str
    args: dict
    ok: bool
    result: str

    @property
    def is_proposal(self) -> bool:
        """Whether this is a ``propose_*`` call (refused or not)."""
        return self.name.startswith("propose_")

    def read_rows(self) -> tuple[str, set[int]] | None:
        """For a ``read`` that answered: the path it read (as the tool resolved it) and the line numbers shown.

        The lines are the numbered rows the model was actually given, so a result cut short
        by the budget counts only what it showed. None for any other call.
        """
        if self.name != "read" or not self.ok:
            return None
        head = _READ_HEAD.match(self.result.split("\n", 1)[0])
        if head is None:
            return None
        return head["path"], {int(n) for n in _READ_ROW.findall(self.result)}

    def paths(self) -> list[str]:
        """The vault paths the call names (``path``, ``new_path``, ``from_path``, ``into_path``)."""
        return [str(self.args[k]) for k in ("path", "new_path", "from_path", "into_path")
                if isinstance(self.args.get(k), str)]


@dataclass
class Outcome:
    """Everything a task's checks may look at.

    Attributes:
        vault: The task's vault (a temporary copy).
        before: Every file of the vault (``.wikitui/`` excluded) before the run: path to bytes.
        after: The same after the changeset was applied (equal to ``before`` when nothing was).
        answer: The model's final answer (for an ingest, the write phase's summary).
        plan: An ingest's plan ("" for other operations).
        calls: The tool calls, in order.
        changeset: The changeset the run proposed, or None.
        apply_error: Why applying the changeset failed, or None.
        graph: The link graph after the apply.
        prompt_tokens: Tokens sent, summed over every request.
        completion_tokens: Tokens received.
        cost: US dollars (0.0 when the model's price is unknown).
        requests: Model requests made.
        error: Why the run failed (a model error), or None.
        count_tokens: Counts a text's tokens as the agent's budgets do (the economy checks use it).
    """

    vault: Any
    before: dict[str, bytes]
    after: dict[str, bytes]
    answer: str = ""
    plan: str = ""
    calls: list[ToolUse] = field(default_factory=list)
    changeset: Any = None
    apply_error: str | None = None
    graph: Any = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    requests: int = 0
    error: str | None = None
    count_tokens: Callable[[str], int] = field(default=lambda text: max(1, len(text) // 4), repr=False)

    # ------------------------------------------------------------ the answer
    def answer_links(self, text: str | None = None) -> list[tuple[str, str | None]]:
        """The ``[[links]]`` of the answer (or of ``text``): (target as written, resolved page path or None)."""
        text = self.answer if text is None else text
        out = []
        for link in extract_links(text):
            if link.kind == "url":
                continue
            out.append((link.target, self.graph.resolve_target(link.target) if link.target else None))
        return out

    def cited_raw(self, text: str | None = None) -> set[str]:
        """The raw paths the answer names (``raw/chapter-06.md``), as written."""
        return set(_RAW_PATH.findall(self.answer if text is None else text))

    # ------------------------------------------------------------ what was read
    def seen_lines(self) -> dict[str, set[int]]:
        """The lines of each file the model read through ``read`` in this task: path to 1-based line numbers."""
        seen: dict[str, set[int]] = {}
        for call in self.calls:
            rows = call.read_rows()
            if rows is not None:
                seen.setdefault(rows[0], set()).update(rows[1])
        return seen

    # ------------------------------------------------------------ the disk
    def text_after(self, path: str) -> str | None:
        """A file's text after the apply (None when it does not exist)."""
        data = self.after.get(path)
        return None if data is None else data.decode("utf-8", "replace")

    def text_before(self, path: str) -> str | None:
        """A file's text before the run (None when it did not exist)."""
        data = self.before.get(path)
        return None if data is None else data.decode("utf-8", "replace")

    def changed(self) -> list[str]:
        """Paths created, changed or removed on disk by the run and its apply."""
        keys = set(self.before) | set(self.after)
        return sorted(p for p in keys if self.before.get(p) != self.after.get(p))

    def created(self) -> list[str]:
        """Paths that exist after the apply and did not before."""
        return sorted(set(self.after) - set(self.before))

    def files(self, action: str) -> list[Any]:
        """The changeset's file changes with this action (``edit``, ``create``, ``delete``, ``move``)."""
        if self.changeset is None:
            return []
        return [fc for fc in self.changeset.files if fc.action == action]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but ``.wikitui/``: vault-relative path to bytes."""
    out: dict[str, bytes] = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if rel == _STATE or rel.startswith(_STATE + "/") or not path.is_file():
            continue
        out[rel] = path.read_bytes()
    return out


def tool_uses(messages: list[dict], plan_count: int = 0) -> list[ToolUse]:
    """The tool calls in a turn's messages; those among the first ``plan_count`` messages are the plan's."""
    results: dict[str, str] = {}
    for message in messages:
        if message.get("role") == "tool":
            results[str(message.get("tool_call_id"))] = str(message.get("content") or "")
    uses = []
    for i, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            fn = call.get("function") or {}
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except (json.JSONDecodeError, TypeError, RecursionError):
                args = {}
            result = results.get(str(call.get("id")), "")
            uses.append(ToolUse("plan" if i < plan_count else "write", str(fn.get("name") or ""),
                                args if isinstance(args, dict) else {}, not result.startswith("error"), result))
    return uses
