"""``wikitui inbox``: the configured feeds' new items, or an export's, into raw/inbox/ (DESIGN §9).

stdout carries the new files' paths (or one JSON document); the summary and each
problem (a feed that failed, a page not fetched) are lines on stderr. Exit status 0
when every feed was read, 3 when a feed could not be fetched or read (the others came
in), 2 for an export wikitui does not know or no feeds configured.
"""

from __future__ import annotations

import argparse
import sys

from wikitui.cli.common import dump, open_workspace


#: A long import says how far it got every this many items (on stderr).
PROGRESS_EVERY = 50


def _progress(done: int, total: int) -> None:
    if total > PROGRESS_EVERY and (done % PROGRESS_EVERY == 0 or done == total):
        print(f"wikitui: {done}/{total} items read", file=sys.stderr)


def cmd_inbox(args: argparse.Namespace) -> int:
    """``wikitui inbox [--json] [--no-fetch]`` and ``wikitui inbox import FILE|DIR [--json] [--no-fetch]``."""
    from wikitui.core.config.settings import load_settings, user_config_path
    from wikitui.core.base.errors import ConfigError
    from wikitui.core.inbox.run import fetch_feeds, import_export

    ws = open_workspace(args)
    fetch_pages = not args.no_fetch
    if args.action == "import":
        if not args.path:
            raise ConfigError("`wikitui inbox import` needs the export: a file or a folder")
        report = import_export(ws.vault, args.path, fetch_pages=fetch_pages, progress=_progress)
        failed = False
    else:
        if args.path:
            raise ConfigError(f"unexpected {args.path!r}: `wikitui inbox` fetches the feeds; "
                              "`wikitui inbox import FILE|DIR` reads an export")
        settings = load_settings(ws.vault)
        if not settings.inbox_feeds:
            raise ConfigError("no feeds configured: add them to the vault's .wikitui/config.toml (or to "
                              f"{user_config_path()}) as [inbox] feeds = [\"https://example.com/feed.xml\"]")
        report = fetch_feeds(ws.vault, settings.inbox_feeds, fetch_pages=fetch_pages)
        failed = any(p.startswith("feed ") for p in report.problems)
    if args.json:
        dump(report.as_dict())
        return 3 if failed else 0
    for added in report.added:
        print(added.path)
    for problem in report.problems:
        print(f"wikitui: {problem}", file=sys.stderr)
    print(f"wikitui: {report.summary()}" + (" (not ingested yet: `wikitui ingest --new` takes them)"
                                             if report.added else ""), file=sys.stderr)
    return 3 if failed else 0
