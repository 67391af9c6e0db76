"""``wikitui completion bash|zsh|fish``: a shell completion script, from the argument parsers (shtab).

Subcommands and options come from the parsers themselves; a PAGE (``links``,
``export``) is completed with the vault's page paths, which the script asks for
with the hidden ``wikitui __complete pages [PREFIX]`` (one path a line, from a walk
of the folder: no index, no graph, so it answers fast on a big vault).
"""

from __future__ import annotations

import argparse
import sys

from wikitui.cli.common import PROG

#: What the script runs to list page names (in the current folder's vault).
PAGES_COMMAND = f"{PROG} __complete pages"
#: The commands whose PAGE argument names a page.
PAGE_COMMANDS = ("links", "export", "history", "show")


def completion_script(shell: str) -> str:
    """The completion script for ``shell`` (bash, zsh or fish)."""
    import shtab

    from wikitui.cli.parser import build_parser

    parser = build_parser()
    pages = shtab.cmd(PAGES_COMMAND)
    for action in parser._subparsers._group_actions:  # the subcommands' parsers
        for name, sub in action.choices.items():
            for arg in sub._actions:
                if name in PAGE_COMMANDS and arg.dest == "page":
                    arg.complete = pages
                elif arg.dest in ("vault", "out", "keep"):
                    arg.complete = shtab.DIRECTORY if arg.dest != "out" else shtab.FILE
    return shtab.complete(parser, shell=shell)


def cmd_completion(args: argparse.Namespace) -> int:
    """Print the script for ``args.shell``."""
    sys.stdout.write(completion_script(args.shell))
    return 0


def cmd_complete(argv: list[str]) -> int:
    """``wikitui __complete pages [PREFIX] [--vault PATH]``: page paths, one a line (for the scripts).

    Prints nothing (and exits 0) outside a vault: a completion must never print an error into a prompt.
    """
    if not argv or argv[0] != "pages":
        return 2
    rest = argv[1:]
    vault_path = "."
    if "--vault" in rest:
        i = rest.index("--vault")
        vault_path = rest[i + 1] if i + 1 < len(rest) else "."
        rest = rest[:i] + rest[i + 2:]
    prefix = rest[0] if rest else ""
    from wikitui.core.vault.layout import Vault

    try:
        vault = Vault.open(vault_path)
        pages, _raws, _others = vault.scan()
    except Exception:
        return 0
    out = [fs.path for fs in pages if fs.path.startswith(prefix)]
    if out:
        sys.stdout.write("\n".join(out) + "\n")
    return 0
