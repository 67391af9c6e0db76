"""The change commands: ``pending list|show|apply|reject`` and ``undo`` (DESIGN §6, §10).

They share the workspace's code with the TUI (the pending store, the apply and the
undo), so a changeset applied here is written, logged, committed and undoable
exactly as one accepted in the review screen. stdout carries the result only (a
table, a patch or one JSON document); messages go to stderr.
"""

from __future__ import annotations

import argparse
import sys

from wikitui.cli.common import dump, err, open_workspace
from wikitui.core.base.words import plural

#: The actions of ``wikitui pending`` and whether each takes a changeset id.
ACTIONS = {"list": False, "show": True, "apply": True, "reject": True}


def _note(message: str) -> None:
    print(f"wikitui: {message}", file=sys.stderr)


def cmd_pending(args: argparse.Namespace) -> int:
    """``wikitui pending [list|show ID|apply ID|reject ID] [--json]``: the pending changesets, headless."""
    from wikitui.cli.parser import UsageError

    action = args.action or "list"
    if ACTIONS[action] and not args.id:
        raise UsageError(f"`pending {action}` needs a changeset id (a unique prefix of one, or `latest`)")
    if not ACTIONS[action] and args.id:
        raise UsageError(f"`pending {action}` takes no changeset id")
    ws = open_workspace(args)
    if action == "list":
        return _list(ws, as_json=args.json)
    from wikitui.core.changes.pending_ref import find_pending

    changeset = find_pending(ws.pending, args.id)
    if action == "show":
        return _show(changeset, as_json=args.json)
    if action == "apply":
        return _apply(ws, changeset, as_json=args.json)
    return _reject(ws, changeset, as_json=args.json)


def _list(ws, *, as_json: bool) -> int:
    from wikitui.core.changes.summary import changeset_summary

    items = ws.pending.list()
    if as_json:
        dump([changeset_summary(cs, hunks=True) for cs in items])
        return 0
    if not items:
        _note("no changeset is pending")
        return 0
    for cs in items:
        stats = cs.stats()
        size = f"{stats.files} file{'s' if stats.files != 1 else ''} +{stats.added} -{stats.removed}"
        print(f"{cs.id}  {cs.created[:16]}  {cs.op:<6}  {size:<18}  {_printable(cs.title)}")
    return 0


def _printable(title: str) -> str:
    """A title on one line, its control characters shown as escapes (a terminal must not run them)."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in " ".join(title.split()))


def _show(changeset, *, as_json: bool) -> int:
    if as_json:
        from wikitui.core.changes.summary import changeset_summary

        dump(dict(changeset_summary(changeset, hunks=True), model=changeset.model, tokens=changeset.tokens,
                  cost=changeset.cost, patch=changeset.to_patch()))
    else:
        sys.stdout.write(changeset.to_patch())
    return 0


def _report(result, verb: str, *, as_json: bool) -> int:
    """Print what an apply or undo wrote (its files on stdout, the rest on stderr).

    Returns:
        0 when it wrote something, else 1 (nothing applied).
    """
    from wikitui.core.changes.summary import result_summary

    summary = result_summary(result)
    if as_json:
        dump(summary)
    elif summary["files"]:  # the files, one a line, for a pipe
        print("\n".join(summary["files"]))
    commit = f"; commit {result.commit[:10]}" if result.commit else ""
    _note(f"{verb} {result.changeset_id}: {len(result.written)} written, {len(result.deleted)} deleted{commit}")
    for path in result.merged:
        _note(f"{path}: merged with the edits made since")
    for warning in result.warnings:
        _note(f"warning: {warning}")
    for refusal in getattr(result, "refused", ()):  # a page locked (llm: locked/append) since the proposal
        _note(refusal)
    return 0 if (result.written or result.deleted) else 1


def _one_line_conflict(exc) -> int:
    """A conflict as the one line naming the file (the regions are for the review screen)."""
    err(str(exc).splitlines()[0])
    return exc.exit_code


def _apply(ws, changeset, *, as_json: bool) -> int:
    from wikitui.core.changes.summary import held_by_review, held_lines
    from wikitui.core.base.errors import Conflict

    # Every hunk, all or nothing, but those the second reviewer found wrong: the review screen starts
    # them rejected, so here they stay pending for a person to decide (DESIGN §8).
    held = held_by_review(changeset)
    accepted = None if not held else set(changeset.hunk_ids()) - set(held)
    try:
        result = ws.apply(changeset, accepted)
    except Conflict as exc:
        return _one_line_conflict(exc)
    for line in held_lines(changeset, held):
        _note(line)
    if held:
        _note(f"changeset {changeset.id} keeps {len(held)} hunk(s) pending; review them in wikitui (ctrl+r)")
    return _report(result, "applied", as_json=as_json)


def _reject(ws, changeset, *, as_json: bool) -> int:
    # The review screen's "reject all": every hunk rejected, nothing written, the pending file dropped.
    ws.apply(changeset, set(), rejected=set(changeset.hunk_ids()))
    if as_json:
        dump({"changeset": changeset.id, "rejected": True})
    _note(f"rejected {changeset.id} ({plural(len(changeset.files), 'file')}); nothing was written")
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    """``wikitui undo [--json]``: revert the last applied changeset (exit 1 when there is none)."""
    from wikitui.core.base.errors import Conflict

    ws = open_workspace(args)
    try:
        result = ws.undo()
    except Conflict as exc:
        return _one_line_conflict(exc)
    return _report(result, "undid", as_json=args.json)
