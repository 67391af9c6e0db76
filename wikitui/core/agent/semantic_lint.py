"""The semantic lint without a person at the keyboard: ``wikitui lint --semantic`` and the TUI's background lint.

Both run the same turn as the chat's ``/lint`` (:meth:`AgentSession.lint`): the
deterministic checks, then the model's pass, whose proposals become ONE pending
changeset that is never applied here (DESIGN §6, §11). The turn runs in a session
of its own with no reviewer attached, so nothing pops up and nothing is written to
the wiki; the person reviews the changeset later (``ctrl+r``, ``wikitui pending``).

Exit status of ``lint --semantic``: 0 clean (no deterministic problem and no
proposal), 1 problems remain (deterministic problems, or the model proposed
changes), 3 the model or the network failed (2 for a user error such as no model).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, TextIO

from wikitui.core.agent.events import LintReady, TurnFinished, TurnUsage
from wikitui.core.vault.visible_text import visible_stream
from wikitui.core.base.words import plural

EXIT_CLEAN, EXIT_PROBLEMS, EXIT_MODEL = 0, 1, 3
#: Where the background lint's transcripts go, under ``.wikitui/``.
BACKGROUND_DIR = "background"


@dataclass
class SemanticLint:
    """What one semantic lint found.

    Attributes:
        report: The deterministic checks' ``LintReport`` (None when the turn failed before them).
        done: How the model's turn ended.
        usage: The turn's final tokens and cost (None when no request was made).
    """

    report: Any = None
    done: TurnFinished | None = None
    usage: TurnUsage | None = None

    @property
    def changeset(self):
        """The pending changeset of the model's proposals (None when it proposed nothing)."""
        return self.done.changeset if self.done is not None else None

    @property
    def sources(self):
        """The web sources the model proposed (a pending ``SourceProposal``; None without a search provider)."""
        return self.done.sources if self.done is not None else None

    @property
    def failed(self) -> bool:
        """Whether the model's pass failed or was cancelled."""
        return self.done is None or self.done.failed or self.done.cancelled

    @property
    def problems_remain(self) -> bool:
        """Deterministic problems, or findings the model turned into proposals."""
        return (bool(self.report is not None and self.report.problems) or self.changeset is not None
                or self.sources is not None)


async def semantic_lint(session, on_event=None) -> SemanticLint:
    """Run the deterministic checks and the model's pass on ``session`` (which must have no approver).

    Args:
        session: An :class:`~wikitui.core.agent.session.AgentSession` for the vault.
        on_event: Also called with every session event (the headless printer).
    """
    found = SemanticLint()
    forward = on_event

    def listen(event: Any) -> Any:
        if isinstance(event, LintReady):
            found.report = event.report
        elif isinstance(event, TurnUsage) and event.final:
            found.usage = event
        return forward(event) if forward is not None else None

    session.on_event = listen
    found.done = await session.lint()
    return found


def _problem_line(p) -> str:
    where = f"{p.path}:{p.line}" if p.line else p.path
    return f"{where}: {p.check}: {p.message}"


def _json_result(found: SemanticLint) -> dict:
    report, cs, usage = found.report, found.changeset, found.usage
    return {
        "problems": [p.to_dict() for p in report.problems] if report is not None else [],
        "counts": dict(report.counts) if report is not None else {},
        "report": found.done.text if found.done is not None else "",
        "changeset": None if cs is None else {
            "id": cs.id,
            "files": [{"path": fc.final_path, "op": "new" if fc.action == "create" else fc.action,
                       "hunks": len(fc.hunks)} for fc in cs.files],
        },
        "research": found.sources.id if found.sources is not None else None,
        "tokens": {"in": usage.prompt_tokens if usage else 0, "out": usage.completion_tokens if usage else 0},
        "cost": round(usage.cost, 6) if usage else 0.0,
    }


def run_semantic_lint(workspace, *, as_json: bool = False, model: str | None = None,
                      out: TextIO | None = None, err: TextIO | None = None, client=None) -> int:
    """``wikitui lint --semantic [--json]``: the checks, then the model's pass; its proposals stay pending.

    Without ``as_json``, stdout gets the deterministic problems (as ``wikitui lint``
    prints them) and then the model's report; with it, one JSON object:
    ``{"problems", "counts", "report", "changeset": {"id", "files"} or null, "research": id or null, "tokens",
    "cost"}`` (``research``: the web sources proposed, pending, with a search provider configured).
    Progress and messages go to stderr.

    Returns:
        The exit status (see the module's docstring).
    """
    from wikitui.core.agent.headless import _failure, _run

    # What the model, a page or a source says reaches the terminal shown, never obeyed (DESIGN §8).
    out, err = visible_stream(out or sys.stdout), visible_stream(err or sys.stderr)

    async def body(session, printer) -> int:
        def on_event(event: Any) -> None:
            if isinstance(event, LintReady) and not as_json:
                for p in event.report.problems:
                    out.write(_problem_line(p) + "\n")
                out.flush()
            printer(event)

        found = await semantic_lint(session, on_event)
        if found.failed:
            code = _failure(printer)
            return EXIT_MODEL if code == EXIT_PROBLEMS else code
        cs = found.changeset
        if as_json:
            from wikitui.core.outputs.jsonstream import write_json

            write_json(out, _json_result(found))
        if cs is not None:
            err.write(f"wikitui: the model proposed changes: changeset {cs.id} ({plural(len(cs.files), 'file')}) is "
                      "pending; review it in wikitui (ctrl+r) or with wikitui pending\n")
        from wikitui.core.research.provider import NO_PROVIDER, provider_from

        if provider_from(session.settings.research) is None:  # the report's "sources worth looking for" stay a list
            err.write(f"wikitui: to look for the sources the report names on the web: {NO_PROVIDER}\n")
        total = len(found.report.problems) if found.report is not None else 0
        err.write(f"wikitui: {plural(total, 'problem')} from the checks; "
                  f"{'a pending changeset' if cs else 'no proposal'} from the model\n")
        return EXIT_PROBLEMS if found.problems_remain else EXIT_CLEAN

    return _run(workspace, model, out, err, client, answer_to_out=not as_json, body=body)


async def background_lint(workspace, settings, client=None) -> SemanticLint:
    """The TUI's background lint: the semantic lint in a session of its own, with no reviewer.

    Its proposals are saved as a pending changeset (never applied); the caller shows a notice.

    Args:
        workspace: The open :class:`~wikitui.core.workspace.Workspace` (graph loaded).
        settings: The settings (a model must be configured).
        client: The model client (None: one for ``settings``).
    """
    from wikitui.core.agent.session import AgentSession
    from wikitui.core.agent.transcript import Transcript

    session = AgentSession(workspace.vault, workspace.require_graph(), workspace.search_index, settings,
                           client=client)
    # Its own folder: the chat resumes the latest session of sessions/, which must stay the person's.
    session.transcript = Transcript(workspace.vault.state_dir / BACKGROUND_DIR, None, settings)
    return await semantic_lint(session)
