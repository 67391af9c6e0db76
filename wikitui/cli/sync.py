"""``wikitui sync``: the vault's git upstream brought in, ours pushed (DESIGN §14).

stdout carries what came in and went out (or one JSON document); a conflict is
listed with how to resolve it, and exits 4 with nothing written or pushed.
"""

from __future__ import annotations

import argparse
import sys

from wikitui.cli.common import dump, open_workspace


def cmd_sync(args: argparse.Namespace) -> int:
    """``wikitui sync [--take CHOICE PATH] [--no-push] [--json]``."""
    from wikitui.core.sync.run import resolve, sync

    ws = open_workspace(args)
    if args.take:
        choice, path = args.take
        state = resolve(ws.vault, path.replace("\\", "/"), choice)
        left = state.open_paths()
        print(f"wikitui: {path}: {choice}" + (f"; still to resolve: {', '.join(left)}" if left else ""),
              file=sys.stderr)
        if left:
            return 4
    result = sync(ws.vault, push=not args.no_push)
    if args.json:
        dump(result.as_dict())
        return 4 if result.conflicts else 0
    for note in result.notes:
        print(f"wikitui: {note}", file=sys.stderr)
    if result.conflicts:
        print(f"{len(result.conflicts)} conflict(s) with {result.upstream}: nothing was written or pushed")
        for c in result.conflicts:
            print(f"\n  {c.path}: {c.why}")
            for region in c.regions[:3]:
                print("    " + region.rstrip("\n").replace("\n", "\n    "))
        first = result.conflicts[0].path
        print(f"\nResolve each with `wikitui sync --take ours|theirs|file PATH` (file: the page as you edit it), "
              f"e.g. `wikitui sync --take theirs {first}`, or in the workspace's review.")
        return 4
    if result.incoming:
        print(f"{len(result.incoming)} commit(s) came in from {result.upstream}, newest first:")
        for commit in result.incoming:
            paths = commit.paths
            pages = ", ".join(paths[:4]) + (f" and {len(paths) - 4} more" if len(paths) > 4 else "")
            print(f"  {commit.date[:10]}  {commit.author}: {commit.subject}" + (f"  ({pages})" if pages else ""))
    if result.index_regenerated:
        print("index.md's catalog was regenerated over the merged pages")
    if result.pushed:
        print(f"pushed {len(result.outgoing)} commit(s) to {result.upstream}")
    if not result.incoming and not result.pushed:
        print(f"up to date with {result.upstream}")
    return 0
