"""What every command shares: the vault it works on, and how it prints."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

PROG = "wikitui"

# Not typing.TYPE_CHECKING: importing typing costs every command ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.workspace import Workspace


def err(message: str) -> None:
    """A user error: one line on stderr."""
    print(f"{PROG}: error: {message}", file=sys.stderr)


def vault_arg(args: argparse.Namespace) -> Path:
    """The folder given with ``--vault``, else the current one."""
    return Path(getattr(args, "vault", None) or os.getcwd())


def open_workspace(args: argparse.Namespace) -> Workspace:
    """The workspace on the vault the command names (nothing loaded yet).

    Raises:
        NotAVault: the folder is missing or not a vault.
    """
    from wikitui.core.workspace import Workspace

    return Workspace.open(vault_arg(args))


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
