"""``wikitui eval``: which model can keep this wiki? (DESIGN §12; the model library loads only here)."""

from __future__ import annotations

import argparse
from pathlib import Path


def cmd_eval(args: argparse.Namespace) -> int:
    """``wikitui eval``: score the configured (or ``--model``) model on fixed tasks."""
    from wikitui.core.eval.command import main as eval_main

    vault = getattr(args, "vault", None)
    return eval_main(vault=Path(vault) if vault else None, model=getattr(args, "model", None), only=args.only,
                     as_json=args.json, task_timeout=args.task_timeout, keep=Path(args.keep) if args.keep else None)
