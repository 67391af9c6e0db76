"""Following a link on a past day (DESIGN §15, issue 27.3): which page a link names, when it may be gone now.

A link resolves through the link graph as the wiki is now; a page deleted since is
no longer in it, yet the link led to it that day. :func:`page_named_then` finds such
a page among the paths the history knows were deleted (git's deletions, or the
paths wikitui's records hold), by the name a wikilink gives it: the file name without
``.md``, the path, case-insensitively, as links resolve now.
"""

from __future__ import annotations

from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault


def _gone_paths(vault: Vault) -> list[str]:
    """Page paths the history knows of that are not on disk now, newest deletion first."""
    from wikitui.core.changes.git import GitError, is_git_vault, run_git
    from wikitui.core.changes.undo import list_records
    from wikitui.core.changes.versions import unquote_path

    found: list[str] = []
    if is_git_vault(vault):
        try:
            out = run_git(vault, "log", "--diff-filter=D", "--no-renames", "--name-only", "--format=").stdout
            found = [unquote_path(line) for line in out.splitlines() if line.strip()]
        except GitError:
            found = []
    for _rel, record in reversed(list_records(vault)):
        found += [str(item.get("path")) for item in record["files"] if item.get("path")]
    return [p for p in dict.fromkeys(found) if vault.is_page_path(p) and not (vault.root / p).exists()]


def page_named_then(vault: Vault, graph: LinkGraph, name: str, from_path: str = "") -> str | None:
    """The page ``name`` (a wikilink's target) leads to: as links resolve now, else a page since deleted.

    Args:
        vault: The vault.
        graph: Its link graph (as the wiki is now).
        name: The link's target as written (``Hatter``, ``people/Hatter``, ``hatter.md``).
        from_path: The page the link is on (a relative markdown link resolves from its folder).

    Returns:
        The page's vault-relative path, or None when no page now or in the history has that name.
    """
    now = graph.find_page(name, from_path or None)  # a tie goes by the linking page's folder
    if now is not None:
        return now
    want = name.strip().replace("\\", "/").strip("/").casefold().removesuffix(".md")
    if not want:
        return None
    folder = from_path.rsplit("/", 1)[0] + "/" if "/" in from_path else ""
    for path in _gone_paths(vault):
        bare = path.casefold().removesuffix(".md")
        stem = bare.rsplit("/", 1)[-1]
        if want == stem or bare in (want, vault.join_wiki(want).casefold(), (folder + want).casefold()) \
                or bare.endswith("/" + want):
            return path
    return None
