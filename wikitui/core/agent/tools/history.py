"""The ``history`` tool (DESIGN §15): a page's versions and the log.md entries that touched it; read-only.

The versions come from git when the vault is a repository, else from wikitui's
records (:mod:`wikitui.core.changes.versions`); with ``at`` the tool gives the
page's text as it was on that day instead, numbered like ``read``; with ``find`` it says
which version first held a phrase (and which dropped it): "when did we start believing X,
and from which source" is one call (an ingest's log entry names its source).
"""

from __future__ import annotations

from typing import Any

from wikitui.core.agent.numbered import numbered
from wikitui.core.agent.tools.registry import Arg, tool


def _describe_history(arg: Arg, args: dict[str, Any]) -> str:
    what = f"looked at the history of {arg('path')}"
    if arg("find"):
        return what + f" for {arg('find')!r}"
    return what + (f" on {arg('at')}" if arg("at") else "")


def _version_line(v) -> str:
    what = f"{v.op} | {v.title}" if v.op else v.title
    bits = [v.when, what + (" (deleted the page)" if v.text is None else ""), f"by {v.who}"]
    bits += [f"changeset {v.changeset}"] if v.changeset else []
    bits += [f"log: {v.log_entry}"] if v.log_entry else []
    return " — ".join(bits)


def _first_holding(rel: str, versions: list, phrase: str) -> str:
    """When ``phrase`` first appeared in the page, each time it was dropped or came back, and whether it is there now."""
    needle = " ".join(phrase.split()).casefold()
    lines = [f"{rel}: {phrase!r} in its {len(versions)} versions, oldest first"]
    held = False
    for v in reversed(versions):  # oldest first
        has = v.text is not None and needle in " ".join(v.text.split()).casefold()
        if has != held:
            lines.append(("- first appears: " if has and len(lines) == 1 else "- back: " if has else "- dropped: ")
                         + _version_line(v))
            held = has
    if len(lines) == 1:
        lines.append("- no version holds it")
    else:
        lines.append("The page holds it now." if held else "The page no longer holds it.")
    return "\n".join(lines)


@tool("read", _describe_history)
def history(box, path: str, at: str = "", find: str = "", limit: int = 20) -> str:
    """A page's versions, newest first (date, author or model, changeset, log entry), and the log.md entries
    naming it. With `at`, the page's text as it was on that day instead. With `find`, the version that first
    held a phrase (and any that dropped it): when a claim entered the page, and the entry (an ingest names
    its source) that put it there.

    Args:
        path: The page's path, title or alias (or the path of a page since deleted).
        at: A day (YYYY-MM-DD, or 7d for a week ago): return the page's text then ("" for the list).
        find: A phrase (case and spacing ignored): say which version first held it ("" for the list).
        limit: Most versions and log entries to list (1-100).
    """
    from wikitui.core.changes.versions import history_path, page_versions, text_at
    from wikitui.core.vault.dates import parse_day
    from wikitui.core.vault.log_entries import read_log

    if find.strip():
        rel = history_path(box.vault, box.graph, path)
        return _first_holding(rel, page_versions(box.vault, rel), find.strip())
    if at.strip():
        text, version = text_at(box.vault, box.graph, path, parse_day(at))
        head = f"{version.path} as it was on {at.strip()} (version of {version.when}, {version.who})"
        return numbered(head, text, 0, 400, box.max_result_chars - 400)
    rel = history_path(box.vault, box.graph, path)
    limit = max(1, min(limit, 100))
    versions = page_versions(box.vault, rel)
    lines = [f"{rel}: {len(versions)} version{'s' if len(versions) != 1 else ''}, newest first"]
    for i, v in enumerate(versions[:limit], 1):
        lines.append(f"{i}. " + _version_line(v))
    if len(versions) > limit:
        lines.append(f"[{len(versions) - limit} older versions not shown; raise limit]")
    entries = [e for e in read_log(box.vault) if rel in e.pages]
    lines.append(f"Log entries naming it ({len(entries)}):")
    for entry in entries[-limit:][::-1]:
        lines.append(f"- {entry.heading}" + (f" (changeset {entry.changeset})" if entry.changeset else ""))
    if not versions and not entries:
        lines.append("No recorded history: the page was never changed through wikitui or git.")
    return "\n".join(lines)
