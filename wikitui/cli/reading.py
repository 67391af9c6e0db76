"""The reading commands: ``search``, ``links``, ``lint`` and ``index`` (they never change a page)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import asdict

from wikitui.cli.common import dump, err, load_graph, open_workspace, vault_arg
from wikitui.core.base.words import plural


def cmd_search(args: argparse.Namespace) -> int:
    """``wikitui search QUERY``: ask a running workspace, else update the index incrementally and search it."""
    from wikitui.cli.live_client import ask

    answer = ask(str(vault_arg(args)), args.query, args.scope, args.limit)
    if answer is not None:  # the running workspace's warm index answered
        return _print_hits(args, *answer)
    from wikitui import gc_tuning

    with gc_tuning.off():
        ws = open_workspace(args)
        with ws:
            # A running workspace's watcher keeps the index current: no walk of the vault then,
            # unless this command just recovered an interrupted apply (the watcher may not have seen it yet).
            current = ws.kept_current_elsewhere() and ws.recovered is None
            stats = None if current else ws.update_index()
            hits = ws.index.search(args.query, scope=args.scope, limit=args.limit)
    notes = list(hits.notes)
    if stats is not None and stats.busy and not notes:
        notes.append("another wikitui process is updating the search index; results may miss its latest changes")
    return _print_hits(args, [{**asdict(h), "score": float(h.score)} for h in hits], notes)


def _print_hits(args: argparse.Namespace, hits: list[dict], notes: list[str]) -> int:
    """Print a search's notes (stderr) and hits, the same whichever process searched."""
    for note in notes:  # on stderr, so --json output stays one JSON document
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        dump([{k: h[k] for k in ("path", "kind", "title", "score", "snippet")} for h in hits])
        return 0
    if not hits:
        print(f"No matches for {args.query!r}.", file=sys.stderr)
        return 0
    blocks = []
    for h in hits:
        where = f"{h['path']}:{h['line']}" if h["line"] else h["path"]
        block = f"{where}  ({h['kind']}, score {h['score']:.2f})\n  {h['title']}"
        if h["snippet"]:
            block += "\n  " + " ".join(h["snippet"].split())
        blocks.append(block)
    print("\n\n".join(blocks))
    return 0


def cmd_links(args: argparse.Namespace) -> int:
    """``wikitui links PAGE``: outgoing links, backlinks and unlinked mentions."""
    ws = open_workspace(args)
    graph = load_graph(ws)
    path = ws.find_page(args.page)
    # One row per link or mention and line: rows that would repeat the same line and
    # context (450,000 links on one 5 MB line) are listed once.
    outgoing = list(dict.fromkeys(
        (link.target + (f"#{link.anchor}" if link.anchor else ""), target, link.line)
        for link, target in graph.outgoing(path)
    ))
    backlinks = list(dict.fromkeys((b.source, b.link.line, b.link.context) for b in graph.backlinks(path)))
    unlinked = [(m.path, m.line, m.context) for m in graph.unlinked_mentions(path)]
    if args.json:
        from wikitui.core.outputs.jsonstream import write_json

        write_json(sys.stdout, {
            "path": path,
            "outgoing": ({"target": t, "path": p, "line": n} for t, p, n in outgoing),
            "backlinks": ({"path": p, "line": n, "context": c} for p, n, c in backlinks),
            "unlinked": ({"path": p, "line": n, "context": c} for p, n, c in unlinked),
        })
        return 0
    print(f"{path} — {graph.pages[path].title}")
    print(f"\nOutgoing ({len(outgoing)})")
    for target, resolved, line in outgoing:
        print(f"  {line:>4}  {target} → {resolved or 'unresolved'}")
    for label, rows in (("Backlinks", backlinks), ("Unlinked mentions", unlinked)):
        print(f"\n{label} ({len(rows)})")
        for source, line, context in rows:
            print(f"  {source}:{line}  {context}")
    return 0


def cmd_lint(args: argparse.Namespace) -> int:
    """``wikitui lint``: exit status 1 when any problem is found."""
    if getattr(args, "challenge", None) is not None:
        from wikitui.cli.semantic import cmd_lint_challenge

        return cmd_lint_challenge(args)
    if getattr(args, "semantic", False):
        from wikitui.cli.semantic import cmd_lint_semantic

        return cmd_lint_semantic(args)
    from wikitui.core.vault.lint import run_lint

    ws = open_workspace(args)
    report = run_lint(ws.vault, load_graph(ws))
    if args.json:
        from wikitui.core.outputs.jsonstream import write_json

        write_json(sys.stdout, {"problems": (p.to_dict() for p in report.problems), "counts": report.counts})
    else:
        groups = report.groups()
        total = len(report.problems)
        if groups:  # the counts first, then the findings by kind, the smallest kind first
            counts = ", ".join(f"{len(group)} {check}" for check, group in groups)
            print(f"{total} problem{'s' if total != 1 else ''}: {counts}")
        for check, group in groups:
            print(f"\n{check} ({len(group)})")
            for p in group:
                where = f"{p.path}:{p.line}" if p.line else p.path
                print(f"{where}: {p.check}: {p.message}")
        summary = ", ".join(f"{n} {check}" for check, n in report.counts.items() if n)
        print(f"{total} problem{'s' if total != 1 else ''}" + (f" ({summary})" if summary else ""), file=sys.stderr)
    return 1 if report.problems else 0


def cmd_index(args: argparse.Namespace) -> int:
    """``wikitui index [--rebuild]``: bring the search index up to date."""
    ws = open_workspace(args)
    progress = _progress_printer() if sys.stderr.isatty() else None
    with ws:
        stats = ws.rebuild_index(progress=progress) if args.rebuild else ws.update_index(progress=progress)
    if progress is not None:
        from wikitui.core.vault.visible_text import unfiltered

        unfiltered(sys.stderr).write("\r\033[K")  # our own code: clears the progress line
    if stats.busy:
        err("another wikitui is writing the search index; try again when it has finished")
        return 1
    for note in stats.notes:  # a source whose conversion was stopped: indexed by its name only
        print(f"wikitui: note: {note}", file=sys.stderr)
    print(_describe_stats(stats, rebuilt=args.rebuild))
    return 0


def _progress_printer() -> Callable[[int, int], None]:
    from wikitui.core.vault.visible_text import unfiltered

    def progress(done: int, total: int) -> None:
        stream = unfiltered(sys.stderr)  # its \r returns to the line's start: ours, not vault text
        stream.write(f"\rindexing {done}/{total}")
        stream.flush()

    return progress


def _describe_stats(stats, *, rebuilt: bool) -> str:
    """One line about an index update (a :class:`wikitui.core.search.results.UpdateStats`)."""
    counts = ", ".join(f"{n} {name}" for name, n in (("added", stats.added), ("updated", stats.updated),
                                                       ("removed", stats.removed)))
    if stats.unchanged:
        counts += f"; {stats.unchanged} touched but unchanged"
    head = "Search index rebuilt" if rebuilt or stats.rebuilt else "Search index up to date"
    return f"{head}: {plural(stats.total, 'file')} ({counts}) in {stats.seconds:.2f} s"
