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
            from wikitui.core.base.errors import WikituiError

            raise WikituiError("the agent is not available in this installation of wikitui") from None
        raise
    return headless


def _import_model_library() -> None:
    """Start importing litellm in a thread, so it overlaps loading the vault, its graph and its index.

    litellm's import is most of a headless command's wall time before its first request (see
    ``bench/agent.py``'s ``process start`` rows); importing it from two threads is safe (the import
    lock, and :func:`~wikitui.core.agent.llm.load_litellm`'s own). A failed import is left for the
    request to report. ``bench/agent.py --only-start`` on 2026-12-02: the first request reached the
    server 5,043 ms after the process started, against 5,886 ms without this (medians of 6, load
    2.5-4.8; a 3-run pass at load 3.1-6.2 gave 4,803 against 4,969 ms): both sides are mostly Python
    work under one interpreter lock, so the saving moves with the load.
    """
    import threading

    def load() -> None:
        try:
            from wikitui.core.agent.llm import load_litellm

            load_litellm()
        except Exception:  # noqa: BLE001 - the command's own import raises it, with its message
            pass

    threading.Thread(target=load, name="import litellm", daemon=True).start()


def cmd_ask(args: argparse.Namespace) -> int:
    """``wikitui ask QUESTION [--file] [--fold] [--json]``: headless query through the agent."""
    ws = open_workspace(args)  # a bad vault is reported here, before the agent loads
    _import_model_library()
    return int(_headless().run_ask(ws, args.question, file=args.file, fold=getattr(args, "fold", False),
                                   model=getattr(args, "model", None), as_json=args.json))


def cmd_ingest(args: argparse.Namespace) -> int:
    """``wikitui ingest raw/x [--apply] [--json]``: headless ingest; prints the diffs.

    ``wikitui ingest DIR|GLOB|--new|--resume [--yes] [--max-cost USD] [--json]``: a batch
    (:mod:`wikitui.core.batch`).
    """
    ws = open_workspace(args)
    batch = _batch_request(args)
    _import_model_library()
    if batch is None:
        return int(_headless().run_ingest(ws, args.source, apply=args.apply, model=getattr(args, "model", None),
                                          as_json=args.json))
    return batch(ws)


def _batch_request(args: argparse.Namespace):
    """The batch ``ingest``'s arguments ask for, as a call on the workspace; None for one source."""
    import sys

    from wikitui.cli.parser import UsageError

    source = args.source
    many = args.new or args.resume or (source is not None and _names_many(source, args))
    if not many:
        if source is None:
            raise UsageError("ingest needs a SOURCE, a folder or a glob, --new or --resume")
        return None
    if args.resume and (source is not None or args.new):
        raise UsageError("--resume continues the last batch: give it no SOURCE and no --new")
    if args.new and source is not None:
        raise UsageError("--new takes no SOURCE: it picks every source no page lists in its sources")
    _headless()  # the agent is installed
    from wikitui.core.batch.headless import run_batch

    def confirm(question: str) -> bool:
        sys.stderr.write(question)
        sys.stderr.flush()
        return sys.stdin.readline().strip().lower() in ("y", "yes")

    tty = sys.stdin.isatty() and sys.stderr.isatty()
    return lambda ws: int(run_batch(ws, source, new=args.new, resume=args.resume, yes=args.yes,
                                    max_cost=args.max_cost, model=getattr(args, "model", None), as_json=args.json,
                                    confirm=confirm if tty else None, apply_ok=args.apply))


def _names_many(source: str, args: argparse.Namespace) -> bool:
    """Whether SOURCE is a folder or a glob (a batch) rather than one source."""
    from pathlib import Path

    from wikitui.core.batch.select import is_batch_argument

    if is_batch_argument(source):
        return True
    from wikitui.cli.common import vault_arg

    return (Path(vault_arg(args)) / source).is_dir() or Path(source).is_dir()
