"""The ``wikitui`` command line (DESIGN §6).

``wikitui [PATH]`` opens the TUI; the subcommands (``init``, ``sample``, ``search``, ``links``,
``lint``, ``index``, ``ask``, ``ingest``, ``clip``, ``export``, ``eval``,
``pending``, ``undo``) work headless and print machine-readable
JSON on request. A user error is one line on stderr, ``wikitui: error: ...``, with
the exit status DESIGN §6 assigns (2 user error, 3 model, 4 conflict), never a
traceback.

Start-up time matters (``wikitui search`` is scripted by other tools), so this
package imports only the standard library at the top: a command's module
(``reading``, ``files``, ``agent``, ``launch``) is imported when that command runs,
and it imports the core modules it needs; the UI, Whoosh and litellm only load
when used. Every command works on a :class:`~wikitui.core.workspace.Workspace`.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Callable, Sequence
from typing import cast
from pathlib import Path

from wikitui.cli.common import err
from wikitui.cli.parser import COMMANDS, UsageError, build_parser, command_parser, first_positional, launch_parser

#: Each command's handler, as "module:function" under wikitui.cli (imported when the command runs).
HANDLERS: dict[str, str | Callable[[argparse.Namespace], int]] = {
    "init": "files:cmd_init",
    "sample": "files:cmd_sample",
    "search": "reading:cmd_search",
    "links": "reading:cmd_links",
    "lint": "reading:cmd_lint",
    "index": "reading:cmd_index",
    "ask": "agent:cmd_ask",
    "ingest": "agent:cmd_ingest",
    "clip": "files:cmd_clip",
    "export": "files:cmd_export",
    "eval": "evaluate:cmd_eval",
    "pending": "changes:cmd_pending",
    "undo": "changes:cmd_undo",
    "mcp": "mcp:cmd_mcp",
    "serve": "serve:cmd_serve",
    "completion": "completion:cmd_completion",
    "history": "history:cmd_history",
    "show": "history:cmd_show",
    "changes": "history:cmd_changes",
    "sync": "sync:cmd_sync",
    "inbox": "inbox:cmd_inbox",
    "research": "semantic:cmd_research",
}


def _handler(command: str) -> Callable[[argparse.Namespace], int]:
    handler = HANDLERS[command]
    if callable(handler):
        return handler
    module, _, name = handler.partition(":")
    import importlib

    return getattr(importlib.import_module(f"wikitui.cli.{module}"), name)


def _run(argv: list[str]) -> int:
    if argv[:1] == ["__complete"]:  # hidden: what the completion scripts call for page names
        from wikitui.cli.completion import cmd_complete

        return cmd_complete(argv[1:])
    first = first_positional(argv)
    if first is not None and first not in COMMANDS and not Path(first).expanduser().exists() and "/" not in first:
        raise UsageError(f"no such command or folder: {first!r} (commands: {', '.join(COMMANDS)})")
    if argv and argv[0] in COMMANDS:  # `wikitui search ...`: only that command's parser is needed
        args = command_parser(argv[0]).parse_args(argv[1:])
        args.command = argv[0]
        return _visibly(args)
    if first in COMMANDS or first is None and any(a in ("-h", "--help", "--version") for a in argv):
        args = build_parser().parse_args(argv)
        return _visibly(args)
    from wikitui.cli.launch import cmd_launch

    return cmd_launch(launch_parser().parse_args(argv))


#: Commands whose stdout is not text for a person: the MCP wire, the browser server.
_WIRE = ("mcp", "serve")


def _visibly(args: argparse.Namespace) -> int:
    """Run the command with stdout and stderr showing control characters visibly (DESIGN §8).

    A page, title or source holding ``ESC [ 2 J`` or an OSC 52 clipboard write is printed
    as ``␛[2J``: no command sends vault text to the terminal raw. JSON output escapes
    them itself (the data stays exact); the MCP wire and ``serve`` are not touched.
    """
    if args.command in _WIRE:
        return _handler(args.command)(args)
    from wikitui.core.vault.visible_text import VisibleWriter

    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = VisibleWriter(sys.stdout), VisibleWriter(sys.stderr)
    try:
        return _handler(args.command)(args)
    finally:
        sys.stdout, sys.stderr = saved


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (the console script exits with it)."""
    if argv is None:  # the console script: the process ends with this call
        try:
            return _main(sys.argv[1:])
        finally:
            # Only for the console script: a caller's process lives on.
            from wikitui import gc_tuning

            gc_tuning.freeze()
    return _main(list(argv))


def _main(argv: list[str]) -> int:
    from wikitui.core.base.errors import WikituiError

    for stream in (sys.stdout, sys.stderr):
        try:  # a page title in a terminal that cannot show it must not end in a traceback
            cast(io.TextIOWrapper, stream).reconfigure(errors="backslashreplace")  # AttributeError: another kind
        except (AttributeError, ValueError, OSError):
            pass
    try:
        return _run(argv)
    except UsageError as exc:
        err(str(exc))
        return 2
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except WikituiError as exc:
        err(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``wikitui search x | head``): not an error worth a word.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 0
    except OSError as exc:
        err(f"{str(exc.filename) + ': ' if exc.filename else ''}{exc.strerror or exc}")
        return 2
