"""``wikitui [PATH]``: the workspace in the terminal (the UI loads only here)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from wikitui.cli.common import err


def cmd_launch(args: argparse.Namespace) -> int:
    """Open the TUI, offering to initialise a folder that is not a vault."""
    from wikitui.core.vault.layout import Vault

    if os.environ.get("TERM", "").strip().lower() == "dumb":
        # Textual would take over a terminal that cannot move its cursor and draw nothing readable.
        err("this terminal (TERM=dumb) cannot show the workspace; run it in a full terminal, "
            "or use the commands (`wikitui search`, `wikitui ask`...) or `wikitui serve`")
        return 2
    target = Path(args.path or args.vault or os.getcwd()).expanduser()
    if not target.is_dir():
        err(f"no such folder: {target}")
        return 2
    if not Vault.is_vault(target):
        if not sys.stdin.isatty():
            err(f"{target} is not a wikitui vault; run `wikitui init {target}` to create one")
            return 2
        try:
            answer = input(f"Initialise a wikitui vault in {target.resolve()}? [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing written.", file=sys.stderr)
            return 1
        from wikitui.core.vault.create import init_vault

        init_vault(target)
    if args.model:
        # The agent's model resolution reads --model through WIKITUI_MODEL (it comes first).
        os.environ["WIKITUI_MODEL"] = args.model
    from wikitui.ui.app import run_app

    result = run_app(target.resolve())
    return result if isinstance(result, int) else 0
