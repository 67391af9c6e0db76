"""The history commands: ``history PAGE``, ``show PAGE [--at DATE]`` and ``changes --since`` (DESIGN §15).

They only read: git (when the vault is a repository), wikitui's records and log.md.
stdout carries the result (a table, a page's text or one JSON document).
"""

from __future__ import annotations

import argparse
import sys

from wikitui.cli.common import dump, load_graph, open_workspace


def cmd_history(args: argparse.Namespace) -> int:
    """``wikitui history PAGE [--json]``: the page's versions, newest first."""
    from wikitui.core.changes.versions import history_path, page_versions

    ws = open_workspace(args)
    path = history_path(ws.vault, load_graph(ws), args.page)
    versions = page_versions(ws.vault, path)
    if args.json:
        dump({"path": path, "versions": [v.as_dict() for v in versions]})
        return 0
    if not versions:
        print(f"wikitui: {path} has no recorded versions", file=sys.stderr)
        return 0
    print(f"{path} — {len(versions)} version{'s' if len(versions) != 1 else ''}, newest first")
    for v in versions:
        what = f"{v.op} | {v.title}" if v.op else v.title
        print(f"\n{v.when}  {what}{'  (deleted)' if v.text is None else ''}")
        bits = [f"by {v.who}"] + ([f"changeset {v.changeset}"] if v.changeset else [])
        bits += [f"commit {v.commit[:10]}"] if v.commit else []
        print("    " + " · ".join(bits))
        if v.log_entry:
            print(f"    log: {v.log_entry}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """``wikitui show PAGE [--at DATE] [--json]``: the page's text, now or as it was at the end of DATE."""
    from wikitui.core.changes.transaction import text_of
    from wikitui.core.changes.versions import history_path, text_at
    from wikitui.core.vault.dates import parse_day

    ws = open_workspace(args)
    graph = load_graph(ws)
    day = parse_day(args.at) if args.at else None
    meta: dict | None = None
    if day is not None:
        text, version = text_at(ws.vault, graph, args.page, day)
        path, meta = version.path, version.as_dict()
    else:
        path = ws.find_page(args.page)
        text = text_of(ws.vault, path) or ""
    if args.json:
        dump({"path": path, "at": day.isoformat() if day else None, "version": meta, "text": text})
    else:
        sys.stdout.write(text)
    return 0


def cmd_changes(args: argparse.Namespace) -> int:
    """``wikitui changes [--since 7d|DATE] [--json]``: what changed, from log.md and git."""
    from wikitui.core.changes.digest import changes_since
    from wikitui.core.vault.dates import parse_day

    ws = open_workspace(args)
    digest = changes_since(ws.vault, parse_day(args.since))
    if args.json:
        dump(digest.as_dict())
        return 0
    if not digest.changes:
        print(f"wikitui: nothing changed since {digest.since.isoformat()}", file=sys.stderr)
        return 0
    print(f"Since {digest.since.isoformat()}: {len(digest.changes)} change{'s' if len(digest.changes) != 1 else ''}, "
          f"{len(digest.pages)} page{'s' if len(digest.pages) != 1 else ''}")
    for c in digest.changes:
        who = " · ".join(w for w in (c.author, c.model) if w)
        print(f"\n{c.date.isoformat()}  {c.op} | {c.title}" + (f"  ({who})" if who else ""))
        if c.pages:
            print("    pages: " + _listed(c.pages))
        if c.sources and c.op != "ingest":
            print("    sources: " + _listed(c.sources))
        if c.changeset:
            print(f"    changeset: {c.changeset}")
    if digest.sources:
        print("\nSources: " + ", ".join(digest.sources))
    return 0


def _listed(items: list[str], most: int = 8) -> str:
    """The first ``most`` items, then how many more (``--json`` lists them all)."""
    more = f" and {len(items) - most} more" if len(items) > most else ""
    return ", ".join(items[:most]) + more
