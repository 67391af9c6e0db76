"""Headless ``wikitui ask`` and ``wikitui ingest`` (DESIGN §6), used by the CLI.

stdout carries the result only (the answer; the changeset as a unified patch that
``git apply`` accepts), stderr carries progress and messages, so both compose in
pipes. Exit status: 0 ok, 1 nothing proposed or applied, 2 user error, 3 model or
network failure, 4 conflict. With ``as_json`` stdout carries one JSON document
instead (:mod:`~wikitui.core.agent.headless_json`), and the agent's text goes to stderr.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, TextIO

from wikitui.core.agent.events import (
    AgentError,
    Notice,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    TurnUsage,
)
from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.visible_text import visible_stream
from wikitui.core.base.words import plural

EXIT_OK, EXIT_NOTHING, EXIT_USER, EXIT_MODEL, EXIT_CONFLICT = 0, 1, 2, 3, 4


class _Printer:
    """Turns session events into lines: the answer on ``out`` (optional), the rest on ``err``."""

    def __init__(self, out: TextIO, err: TextIO, *, answer_to_out: bool) -> None:
        self.out, self.err = out, err
        self.answer_to_out = answer_to_out
        self.error: AgentError | None = None
        #: The last usage event (its session totals count every turn so far), for the JSON document.
        self.usage: TurnUsage | None = None
        #: An ingest's plan: the text of the turn that ended waiting for /go.
        self.plan = ""
        self._in_text = False
        #: Where stdout is not a terminal (a pipe, a file) the answer is held until its turn ends, so
        #: an answer revised after its citations went back to the model is written once, as revised.
        self._hold = answer_to_out and not _isatty(out)
        self._held: list[str] = []

    def _end_text(self) -> None:
        if self._in_text:
            (self.out if self.answer_to_out else self.err).write("\n")
            self._in_text = False

    def __call__(self, ev: Any) -> None:
        if isinstance(ev, TextDelta) and self._hold and self.answer_to_out:
            self._held.append(ev.text)
            return
        if isinstance(ev, TextDelta):
            stream = self.out if self.answer_to_out else self.err
            stream.write(ev.text)
            stream.flush()
            self._in_text = True
            return
        self._end_text()
        if isinstance(ev, Notice) and ev.kind == "revising" and self._hold:
            self._held.clear()  # the answer that went back is replaced by the one that follows
        if isinstance(ev, (TurnFinished, AgentError)):
            self._write_held()
        if isinstance(ev, TurnUsage):
            self.usage = ev
        elif isinstance(ev, TurnFinished) and ev.awaiting_go:
            self.plan = ev.text
        if isinstance(ev, TurnStarted):
            self.err.write(f"» {ev.op}: {ev.prompt}\n")
        elif isinstance(ev, ToolStarted):
            self.err.write(f"  · {ev.description}\n")
        elif isinstance(ev, ToolFinished) and not ev.ok:
            self.err.write(f"    {ev.summary}\n")
        elif isinstance(ev, Notice) and ev.kind == "revising":
            shown = "; the revised answer replaces it" if self._hold else "; the revised answer follows"
            self.err.write(f"  ! {ev.text}{shown if self.answer_to_out else ''}\n")
        elif isinstance(ev, Notice):
            # What a reader must not miss (a cut answer, proposals kept after a failure) is a
            # "wikitui:" line, as errors are; progress notes stay indented.
            if ev.kind == "note":
                self.err.write(f"  ! {ev.text}\n")
            else:
                self.err.write(f"wikitui: {'warning: ' if ev.kind == 'unsourced' else ''}{ev.text}\n")
        elif isinstance(ev, TurnUsage) and ev.final:
            self.err.write(f"  tokens: in {ev.prompt_tokens:,}, out {ev.completion_tokens:,}; "
                           f"cost ${ev.cost:.4f}\n")
        elif isinstance(ev, AgentError):
            self.error = ev
            self.err.write(f"wikitui: {ev.message}\n")
        self.err.flush()


    def _write_held(self) -> None:
        """Write the answer held for a pipe (the revised one, when its citations went back)."""
        text, self._held = "".join(self._held), []
        if text:
            self.out.write(text if text.endswith("\n") else text + "\n")
            self.out.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or bare stream
        return False


def _open(workspace, model: str | None, err: TextIO):
    """Settings, graph and an up-to-date search index; raises WikituiError for user errors."""
    from wikitui.core.config.settings import load_settings

    settings = load_settings(workspace.vault, model)
    for warning in settings.warnings:
        err.write(f"wikitui: warning: {warning}\n")
    settings.require_model()
    workspace.require_graph()
    stats = workspace.update_index()
    if stats.changed:
        err.write(f"  indexed {plural(stats.changed, 'changed file')}\n")
    return settings


def _run(workspace, model, out, err, client, *, answer_to_out: bool, body) -> int:
    """Start a session on ``workspace`` printing to ``out``/``err``, and run ``body`` to its exit status.

    ``body(session, printer)`` is a coroutine function returning the status; user
    errors become one line on ``err`` with their exit code, ctrl+c cancels the turn (130).
    """
    from wikitui.core.agent.session import AgentSession

    try:
        settings = _open(workspace, model, err)
    except WikituiError as exc:
        err.write(f"wikitui: {exc}\n")
        return exc.exit_code
    printer = _Printer(out, err, answer_to_out=answer_to_out)
    session = AgentSession(workspace.vault, workspace.graph, workspace.index, settings, client=client,
                           on_event=printer)
    try:
        return asyncio.run(body(session, printer))
    except KeyboardInterrupt:
        session.cancel()
        printer._write_held()  # what the model had said so far is still the user's
        err.write("wikitui: cancelled\n")
        return 130


def _failure(printer: _Printer) -> int:
    return printer.error.exit_code if printer.error else EXIT_MODEL


def run_ask(workspace, question: str, *, file: bool = False, fold: bool = False, model: str | None = None,
            out: TextIO | None = None, err: TextIO | None = None, client=None, as_json: bool = False) -> int:
    """Answer ``question`` on stdout; with ``file`` propose the answer as a page (left pending, patch printed).

    Args:
        workspace: The :class:`~wikitui.core.workspace.Workspace` asked (its graph and
            index are loaded and brought up to date here).
        fold: Then fold the answer into the pages it cites (a model turn, as ``/fold``). With ``file``
            its proposals join the filed answer's changeset: one changeset, one patch, left pending.
        as_json: Print ``ask --json``'s document instead of the answer and the patch.

    Returns:
        The exit status: a failed fold is a model failure (3), what was proposed still pending.
    """
    # What the model, a page or a source says reaches the terminal shown, never obeyed (DESIGN §8).
    out, err = visible_stream(out or sys.stdout), visible_stream(err or sys.stderr)

    async def body(session, printer) -> int:
        done = await session.ask(question)
        if done.failed or done.cancelled:
            return _failure(printer)
        if done.changeset is not None:
            err.write(f"wikitui: the agent proposed changes; pending as {done.changeset.id} (review in wikitui)\n")
        shown, status = done.changeset, EXIT_OK
        if file:
            filed = await session.file_answer()
            if filed.failed or filed.changeset is None:
                status = printer.error.exit_code if printer.error else EXIT_NOTHING
                return _ask_json(out, workspace, printer, done.text, shown, status) if as_json else status
            shown = filed.changeset
            if not fold:
                err.write(f"wikitui: the answer is proposed as {shown.files[0].path}; changeset "
                          f"{shown.id} is pending (review it in wikitui with ctrl+r)\n")
        if fold:
            status, folded = await _fold(session, printer, err, join=shown if file else None)
            shown = folded or shown
        if as_json:
            return _ask_json(out, workspace, printer, done.text, shown, status)
        if (file or fold) and shown is not None and shown is not done.changeset:
            out.write(shown.to_patch())
        return status

    return _run(workspace, model, out, err, client, answer_to_out=not as_json, body=body)


async def _fold(session, printer: _Printer, err: TextIO, *, join=None):
    """``ask --fold``: the fold turn, its proposals joining ``join`` (the filed answer's changeset) when given.

    Returns:
        (exit status, the pending changeset that holds the fold's proposals, or None).
    """
    printer._end_text()
    printer.answer_to_out = False  # stdout holds the answer and the patch; the fold's talk goes to stderr
    done = await session.fold_answer(typed="--fold", join=join)
    if done.failed or done.cancelled:
        return _failure(printer), done.changeset  # what was proposed (the filed answer too) is pending
    changeset = done.changeset
    nothing = changeset is None or (join is not None and [f.new_text for f in changeset.files]
                                    == [f.new_text for f in join.files])
    if nothing:
        err.write("wikitui: the fold proposed no changes: the cited pages already say what the answer says\n")
    if changeset is not None:
        what = ("the filed answer" if nothing else "the filed answer and the fold's edits") if join is not None \
            else "the fold's edits"
        err.write(f"wikitui: {what}: changeset {changeset.id} ({plural(len(changeset.files), 'file')}) is pending "
                  "(review it in wikitui with ctrl+r)\n")
    return EXIT_OK, changeset


def _ask_json(out: TextIO, workspace, printer: _Printer, answer: str, changeset, status: int) -> int:
    """Print ``ask --json``'s document; returns ``status``."""
    from wikitui.core.agent.headless_json import ask_document, write_document

    write_document(out, ask_document(answer, workspace.graph, changeset, printer.usage))
    return status


def run_ingest(workspace, source: str, *, apply: bool = False, model: str | None = None,
               out: TextIO | None = None, err: TextIO | None = None, client=None, as_json: bool = False) -> int:
    """Ingest ``source`` (plan and write, no pause); the changeset as a patch on stdout; ``apply`` accepts it all.

    Args:
        workspace: The :class:`~wikitui.core.workspace.Workspace` the source is ingested into.
        as_json: Print ``ingest --json``'s document instead of the patch.

    Returns:
        The exit status.
    """
    # What the model, a page or a source says reaches the terminal shown, never obeyed (DESIGN §8).
    out, err = visible_stream(out or sys.stdout), visible_stream(err or sys.stderr)

    async def body(session, printer) -> int:
        done = await session.ingest(source, auto_go=True)
        if done.failed or done.cancelled:
            return _failure(printer)
        if not as_json:
            return _finish_ingest(done, workspace, apply=apply, out=out, err=err)
        from wikitui.core.agent.headless_json import ingest_document, write_document

        status = _finish_ingest(done, workspace, apply=apply, out=None, err=err)
        applied = apply and status == EXIT_OK
        held: list[str] = []
        if applied and done.changeset is not None:
            from wikitui.core.changes.summary import held_by_review

            held = held_by_review(done.changeset)
        write_document(out, ingest_document(printer.plan, done.changeset, applied, printer.usage, held))
        return status

    return _run(workspace, model, out, err, client, answer_to_out=False, body=body)


def _finish_ingest(done: TurnFinished, workspace, *, apply: bool, out: TextIO | None, err: TextIO) -> int:
    """Print the patch on ``out`` (None: not at all), apply it with ``apply``; the exit status."""
    changeset = done.changeset
    if changeset is None:
        err.write("wikitui: the agent proposed no changes\n")
        return EXIT_NOTHING
    if out is not None:
        out.write(changeset.to_patch())
        out.flush()
    if not apply:
        err.write(f"wikitui: changeset {changeset.id} ({plural(len(changeset.files), 'file')}) is pending; "
                  "review it in wikitui (ctrl+r) or run again with --apply\n")
        return EXIT_OK
    from wikitui.core.changes.summary import held_by_review, held_lines

    # The second reviewer binds here too (DESIGN §8): a hunk it found wrong is not applied but left pending.
    held = held_by_review(changeset)
    try:
        result = workspace.apply(changeset, None if not held else set(changeset.hunk_ids()) - set(held))
    except WikituiError as exc:
        err.write(f"wikitui: {exc}\n")
        return exc.exit_code
    for line in held_lines(changeset, held):
        err.write(f"wikitui: {line}\n")
    if held:
        err.write(f"wikitui: changeset {changeset.id} keeps {len(held)} hunk(s) pending; review them in wikitui "
                  "(ctrl+r) or `wikitui pending show " + changeset.id + "`\n")
    commit = f"; commit {result.commit[:10]}" if result.commit else ""
    err.write(f"wikitui: applied {changeset.id}: {len(result.written)} written, "
              f"{len(result.deleted)} deleted{commit}\n")
    for warning in result.warnings:
        err.write(f"wikitui: warning: {warning}\n")
    for refusal in result.refused:
        err.write(f"wikitui: {refusal}\n")
    return EXIT_OK if (result.written or result.deleted) else EXIT_NOTHING
