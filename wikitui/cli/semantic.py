"""``wikitui lint --semantic [--json]``: the checks, then the model's pass (the model library loads only here)."""

from __future__ import annotations

import argparse

from wikitui.cli.common import load_graph, open_workspace


def cmd_lint_semantic(args: argparse.Namespace) -> int:
    """The deterministic checks, then the model's pass; its proposals stay pending (exit 0, 1, 2 or 3)."""
    ws = open_workspace(args)  # a bad vault is reported here, before the agent loads
    from wikitui.core.agent.semantic_lint import run_semantic_lint

    return int(run_semantic_lint(ws, as_json=bool(args.json), model=getattr(args, "model", None)))


def cmd_lint_challenge(args: argparse.Namespace) -> int:
    """``wikitui lint --challenge PATH``: new material compared with the wiki; proposals pending (0, 1, 2 or 3)."""
    ws = open_workspace(args)
    load_graph(ws)
    from wikitui.core.agent.research_headless import run_challenge

    return int(run_challenge(ws, args.challenge, as_json=bool(args.json), model=getattr(args, "model", None)))


#: ``wikitui research``'s actions on a proposal (any other first word starts a topic).
RESEARCH_ACTIONS = ("accept", "reject", "list")


def cmd_research(args: argparse.Namespace) -> int:
    """``wikitui research TOPIC`` (a turn; its URLs stay pending), or ``accept|reject ID [URL...]``, ``list``."""
    ws = open_workspace(args)
    words = list(args.words)
    model = getattr(args, "model", None)
    if words[0] in RESEARCH_ACTIONS and (words[0] == "list" or len(words) > 1):
        from wikitui.core.agent.research_headless import run_research_decision
        from wikitui.core.batch.queue import queue_sources

        def queue(selection: str, paths: list[str]) -> str:
            return queue_sources(ws.vault, paths, selection, model)

        return int(run_research_decision(ws, words[0], words[1] if len(words) > 1 else None, words[2:],
                                         queue=queue if args.ingest else None, as_json=bool(args.json)))
    load_graph(ws)
    from wikitui.core.agent.research_headless import run_research

    return int(run_research(ws, " ".join(words), as_json=bool(args.json), model=model))
