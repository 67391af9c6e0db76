"""``wikitui lint --semantic [--json]``: the checks, then the model's pass (the model library loads only here)."""

from __future__ import annotations

import argparse

from wikitui.cli.common import open_workspace


def cmd_lint_semantic(args: argparse.Namespace) -> int:
    """The deterministic checks, then the model's pass; its proposals stay pending (exit 0, 1, 2 or 3)."""
    ws = open_workspace(args)  # a bad vault is reported here, before the agent loads
    from wikitui.core.agent.semantic_lint import run_semantic_lint

    return int(run_semantic_lint(ws, as_json=bool(args.json), model=getattr(args, "model", None)))
