"""The review's mark on a hunk that adds an unresolved link (DESIGN §11).

The hunks are found by :func:`~wikitui.core.agent.citations.hunk_unresolved` in a thread
when the review opens (:func:`find_link_marks`); the diff view shows the mark under the
hunk's header, apart from the user's reason and any reviewer's note.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content

from wikitui.core.vault.visible_text import visible_line


def link_mark(targets: list[str]) -> Content:
    """The line under a hunk's header naming the unresolved links it adds."""
    shown = visible_line(", ".join(f"[[{t}]]" if not t.startswith("raw/") else t for t in targets[:6]))
    more = f" and {len(targets) - 6} more" if len(targets) > 6 else ""
    return Content.styled(f"⚠ adds an unresolved link: {shown}{more}", "bold $text-error")


def find_link_marks(vault: Any, changeset: Any) -> dict[str, list[str]]:
    """{hunk id: unresolved targets it adds}, against the vault's link graph (slow: call it in a thread)."""
    from wikitui.core.agent.citations import hunk_unresolved
    from wikitui.core.vault.graph import LinkGraph

    graph = LinkGraph.load(vault, save_cache=False)  # the app's own graph keeps the cache current
    return hunk_unresolved(changeset, graph)
