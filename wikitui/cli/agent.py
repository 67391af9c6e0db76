"""The agent's headless commands: ``ask`` and ``ingest`` (the model library loads only here)."""

from __future__ import annotations

import argparse

from wikitui.cli.common import open_workspace


def _headless():
    """The agent's headless entry points (imported only by ``ask`` and ``ingest``)."""
    try:
        from wikitui.core.agent import headless
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("wikitui"):
            from wikitui.core.errors import WikituiError

            raise WikituiError("the agent is not available in this installation of wikitui") from None
        raise
    return headless


def cmd_ask(args: argparse.Namespace) -> int:
    """``wikitui ask QUESTION [--file] [--fold] [--json]``: headless query through the agent."""
    ws = open_workspace(args)  # a bad vault is reported here, before the agent loads
    return int(_headless().run_ask(ws, args.question, file=args.file, fold=getattr(args, "fold", False),
                                   model=getattr(args, "model", None), as_json=args.json))


def cmd_ingest(args: argparse.Namespace) -> int:
    """``wikitui ingest raw/x [--apply] [--json]``: headless ingest; prints the diffs."""
    ws = open_workspace(args)
    return int(_headless().run_ingest(ws, args.source, apply=args.apply, model=getattr(args, "model", None),
                                      as_json=args.json))
