"""The lint pass's reading plan: which pages the model reads first (DESIGN §12).

A model cannot read a large wiki whole, and sampling pages blindly finds little. The
plan lists the pages where problems are most likely to matter: pages gone stale (a
source they list has changed), then the most-linked pages (the hubs every other page
leans on). The lint prompt carries it; the model follows links from there.
"""

from __future__ import annotations

from wikitui.core.base.words import plural


def pages_to_read(vault, graph, report) -> tuple[list[str], list[tuple[int, str]]]:
    """(the stale pages, (backlinking pages, path) of the others, most-linked first): the plan's order.

    Also the order in which a lint turn's catalog lists entries (:mod:`~wikitui.core.agent.turn_catalog`).
    """
    special = {vault.index_path, vault.log_path}
    stale = list(dict.fromkeys(p.path for p in getattr(report, "problems", []) or []
                               if p.check in ("stale", "stale-claim") and p.path in graph.pages and p.path not in special))
    linked = []
    for path in graph.pages:
        if path in special or path in stale:
            continue
        sources = {b.source for b in graph.backlinks(path) if b.source not in special}
        if sources:
            linked.append((len(sources), path))
    linked.sort(key=lambda item: (-item[0], item[1]))
    return stale, linked


def reading_plan(vault, graph, report, limit: int = 12) -> str:
    """The pages to read first, one line each: stale pages, then the most-linked ones.

    Args:
        vault: The vault (names index.md and log.md, which are left out).
        graph: Its link graph.
        report: The deterministic lint report (its ``stale`` problems come first).
        limit: Most pages listed.

    Returns:
        The plan's lines ("" for a wiki without pages).
    """
    stale, linked = pages_to_read(vault, graph, report)
    lines = [f"- {path} ({graph.pages[path].title}): stale, a source it lists has changed" for path in stale[:limit]]
    for count, path in linked[: max(0, limit - len(lines))]:
        lines.append(f"- {path} ({graph.pages[path].title}): linked from {plural(count, 'page')}")
    if not lines:
        return ""
    head = f"{len(graph.pages)} pages; read these first, then follow their links"
    return head + ":\n" + "\n".join(lines)
