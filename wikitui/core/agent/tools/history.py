"""The ``history`` tool (DESIGN §15): a page's versions and the log.md entries that touched it; read-only.

The versions come from git when the vault is a repository, else from wikitui's
records (:mod:`wikitui.core.changes.versions`); with ``at`` the tool gives the
page's text as it was on that day instead, numbered like ``read``.
"""

from __future__ import annotations

from typing import Any

from wikitui.core.agent.numbered import numbered
from wikitui.core.agent.tools.registry import Arg, tool


def _describe_history(arg: Arg, args: dict[str, Any]) -> str:
    return f"looked at the history of {arg('path')}" + (f" on {arg('at')}" if arg("at") else "")


@tool("read", _describe_history)
def history(box, path: str, at: str = "", limit: int = 20) -> str:
    """A page's versions, newest first (date, author or model, changeset, log entry), and the log.md entries
    naming it. With `at`, the page's text as it was on that day instead.

    Args:
        path: The page's path, title or alias (or the path of a page since deleted).
        at: A day (YYYY-MM-DD, or 7d for a week ago): return the page's text then ("" for the list).
        limit: Most versions and log entries to list (1-100).
    """
    from wikitui.core.changes.versions import history_path, page_versions, text_at
    from wikitui.core.vault.dates import parse_day
    from wikitui.core.vault.log_entries import read_log

    if at.strip():
        text, version = text_at(box.vault, box.graph, path, parse_day(at))
        head = f"{version.path} as it was on {at.strip()} (version of {version.when}, {version.who})"
        return numbered(head, text, 0, 400, box.max_result_chars - 400)
    rel = history_path(box.vault, box.graph, path)
    limit = max(1, min(limit, 100))
    versions = page_versions(box.vault, rel)
    lines = [f"{rel}: {len(versions)} version{'s' if len(versions) != 1 else ''}, newest first"]
    for i, v in enumerate(versions[:limit], 1):
        what = f"{v.op} | {v.title}" if v.op else v.title
        bits = [v.when, what + (" (deleted the page)" if v.text is None else ""), f"by {v.who}"]
        bits += [f"changeset {v.changeset}"] if v.changeset else []
        lines.append(f"{i}. " + " — ".join(bits))
    if len(versions) > limit:
        lines.append(f"[{len(versions) - limit} older versions not shown; raise limit]")
    entries = [e for e in read_log(box.vault) if rel in e.pages]
    lines.append(f"Log entries naming it ({len(entries)}):")
    for entry in entries[-limit:][::-1]:
        lines.append(f"- {entry.heading}" + (f" (changeset {entry.changeset})" if entry.changeset else ""))
    if not versions and not entries:
        lines.append("No recorded history: the page was never changed through wikitui or git.")
    return "\n".join(lines)
