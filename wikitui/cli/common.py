"""What every command shares: the vault it works on, and how it prints."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

PROG = "wikitui"

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.workspace import Workspace


def err(message: str) -> None:
    """A user error: one line on stderr."""
    print(f"{PROG}: error: {message}", file=sys.stderr)


def vault_arg(args: argparse.Namespace) -> Path:
    """The folder given with ``--vault``, else the current one."""
    return Path(getattr(args, "vault", None) or os.getcwd())


def open_workspace(args: argparse.Namespace) -> Workspace:
    """The workspace on the vault the command names (nothing loaded yet), an interrupted apply recovered.

    Every command that reads the vault opens it here, so none of them reads half an
    apply a kill left (:meth:`Workspace.open` finishes or rolls it back). A vault that
    cannot be written is read as it is, with one line on stderr saying so.

    Raises:
        NotAVault: the folder is missing or not a vault.
    """
    from wikitui.core.workspace import Workspace

    ws = Workspace.open(vault_arg(args), as_is=bool(getattr(args, "as_is", False)))
    if ws.recovery_problem:
        print(f"{PROG}: note: {ws.recovery_problem}", file=sys.stderr)
    elif ws.recovered is not None and ws.recovered.action in ("rolled back", "completed"):
        r = ws.recovered
        restored = f" ({len(r.restored)} file{'s' if len(r.restored) != 1 else ''} restored)" if r.restored else ""
        print(f"{PROG}: note: an interrupted {r.kind} of {r.changeset_id} was {r.action}{restored}", file=sys.stderr)
    return ws


def load_graph(ws: Workspace):
    """The workspace's link graph, loaded with the garbage collector paused (many objects, no cycles)."""
    from wikitui import gc_tuning

    with gc_tuning.paused():
        return ws.require_graph()


def dump(data: object) -> None:
    """``data`` as indented JSON on stdout (what a terminal would obey escaped: the same data)."""
    import json

    from wikitui.core.vault.visible_text import json_visible

    sys.stdout.write(json_visible(json.dumps(data, ensure_ascii=False, indent=2)) + "\n")
