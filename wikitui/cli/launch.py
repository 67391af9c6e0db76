"""``wikitui [PATH]``: the workspace in the terminal (the UI loads only here)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from wikitui.cli.common import err


def _has_markdown(folder: Path, limit: int = 10_000) -> bool:
    """Whether ``folder`` holds a markdown file (dot-folders skipped; at most ``limit`` entries looked at)."""
    stack, seen = [folder], 0
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                for entry in it:
                    seen += 1
                    if seen > limit:
                        return False
                    if entry.name.startswith("."):
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(Path(entry.path))
                    elif entry.name.lower().endswith(".md") and entry.is_file(follow_symlinks=False):
                        return True
        except OSError:
            continue
    return False


def _choose(target: Path) -> str:
    """Ask what to do with a folder that is not a vault: "open" (as it is), "init" or "" (nothing)."""
    root = target.resolve()
    if not _has_markdown(target):
        question, choices = f"Initialise a wikitui vault in {root}? [y/N] ", {"y": "init", "yes": "init"}
    else:
        print(f"{root} is not a wikitui vault (no wiki/, WIKI.md, .wikitui/ or .obsidian/).\n"
              "  o  open it as it is: its markdown files read as a wiki; nothing is written to the folder\n"
              "     until you apply a change (wikitui keeps its own state in your cache)\n"
              "  i  initialise a vault here (adds raw/, wiki/, WIKI.md and .wikitui/)\n"
              "  q  quit; nothing written", file=sys.stderr)
        question = "Open it as it is, initialise, or quit? [o/i/Q] "
        choices = {"o": "open", "open": "open", "i": "init", "init": "init"}
    try:
        answer = input(question)
    except EOFError:
        answer = ""
    return choices.get(answer.strip().lower(), "")


def cmd_launch(args: argparse.Namespace) -> int:
    """Open the TUI, offering to open as it is or to initialise a folder that is not a vault."""
    from wikitui.core.vault.layout import Vault, remember_as_is

    if os.environ.get("TERM", "").strip().lower() == "dumb":
        # Textual would take over a terminal that cannot move its cursor and draw nothing readable.
        err("this terminal (TERM=dumb) cannot show the workspace; run it in a full terminal, "
            "or use the commands (`wikitui search`, `wikitui ask`...) or `wikitui serve`")
        return 2
    target = Path(args.path or args.vault or os.getcwd()).expanduser()
    if not target.is_dir():
        err(f"no such folder: {target}")
        return 2
    if Vault.is_vault(target) or Vault.opened_as_is(target):
        pass
    elif getattr(args, "as_is", False):
        remember_as_is(target)
    else:
        if not sys.stdin.isatty():
            err(f"{target} is not a wikitui vault; run `wikitui init {target}` to create one, "
                f"or `wikitui --as-is {target}` to open it as it is")
            return 2
        choice = _choose(target)
        if not choice:
            print("Nothing written.", file=sys.stderr)
            return 1
        if choice == "open":
            remember_as_is(target)  # in the user's cache: the folder itself is left as it is
        else:
            from wikitui.core.vault.create import init_vault

            init_vault(target)
    if args.model:
        # The agent's model resolution reads --model through WIKITUI_MODEL (it comes first).
        os.environ["WIKITUI_MODEL"] = args.model
    from wikitui.ui.app import run_app

    result = run_app(target.resolve())
    return result if isinstance(result, int) else 0
