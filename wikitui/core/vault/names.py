"""Which names stand for which paths: what a wikilink's target resolves by (DESIGN §2).

A target resolves case-insensitively by file stem (a ``folder/`` prefix must match
the tail of the path), then by ``title``, then by ``aliases``; ties go to the
shortest path, then alphabetical order. A target that names no page resolves to
any other file of the vault (raw sources, attachments) by its file name. A target that
still resolves to nothing is tried once more under the vault's ``link_root`` (a site's
content folder), as a page or as a folder's ``index.md`` / ``_index.md``.
:class:`PageNames` holds the four maps, rebuilt whenever a page's names change.
"""

from __future__ import annotations

import posixpath

from wikitui.core.vault.layout import Vault


def rank(path: str) -> tuple[int, str]:
    """The order ties go in: the shortest path, then alphabetical order."""
    return (len(path), path)


class PageNames:
    """The maps from lower-cased stems, titles, aliases and file names to paths, and resolving by them.

    Args:
        vault: The vault (its wiki folder, for path-qualified targets).
    """

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._by_stem: dict[str, list[str]] = {}
        self._by_title: dict[str, list[str]] = {}
        self._by_alias: dict[str, list[str]] = {}
        self._files_by_name: dict[str, list[str]] = {}
        #: Whether the maps are current (a warm start leaves them to the first link resolved).
        self.ready = False

    def build(self, pages: dict, raw_files: dict, other_files: dict) -> None:
        """The maps from lower-cased stems, titles, aliases and file names to paths."""
        by_stem: dict[str, list[str]] = {}
        by_title: dict[str, list[str]] = {}
        by_alias: dict[str, list[str]] = {}
        for path, info in pages.items():
            by_stem.setdefault(path.rpartition("/")[2][:-3].lower(), []).append(path)
            by_title.setdefault(info.title.lower(), []).append(path)
            if info.aliases:
                for alias in info.aliases:
                    by_alias.setdefault(alias.lower(), []).append(path)
        for d in (by_stem, by_title, by_alias):
            for lst in d.values():
                if len(lst) > 1:
                    lst.sort(key=rank)
        files_by_name: dict[str, list[str]] = {}
        for path in (*raw_files, *other_files):
            files_by_name.setdefault(posixpath.basename(path).lower(), []).append(path)
        for lst in files_by_name.values():
            if len(lst) > 1:
                lst.sort(key=rank)
        self._by_stem, self._by_title, self._by_alias = by_stem, by_title, by_alias
        self._files_by_name = files_by_name
        self.ready = True

    def _tail_match(self, candidates: list[str], base: str, strip_md: bool) -> list[str]:
        out = []
        for cand in candidates:
            c = cand.lower()
            if strip_md and c.endswith(".md"):
                c = c[:-3]
            wrel = self.vault.wiki_relative(cand).lower()
            if strip_md and wrel.endswith(".md"):
                wrel = wrel[:-3]
            if c == base or wrel == base or c.endswith("/" + base):
                out.append(cand)
        return out

    def resolve_target(self, target: str) -> str | None:
        """Resolve a wikilink target (no anchor, no label) to a vault-relative path."""
        t = target.strip().replace("\\", "/").lstrip("/")
        if not t:
            return None
        tl = t.lower()
        base = tl[:-3] if tl.endswith(".md") else tl
        last = base.rsplit("/", 1)[-1]
        cands = self._by_stem.get(last)
        if cands:
            if "/" in base:
                cands = self._tail_match(cands, base, True)
            if cands:
                return cands[0]
        for table in (self._by_title, self._by_alias):
            hit = table.get(tl)
            if hit:
                return hit[0]
        name = tl.rsplit("/", 1)[-1]
        for key, want in ((name, tl), (name + ".md", tl + ".md")):
            files = self._files_by_name.get(key)
            if files:
                if "/" in want:
                    files = self._tail_match(files, want, False)
                if files:
                    return files[0]
        return self._under_link_root(t)

    def _under_link_root(self, target: str) -> str | None:
        """A site-rooted target (``en/concepts/x``, ``en``) under the vault's ``link_root``, or None."""
        root = self.vault.link_root
        if not root or target.lower().startswith(root.lower() + "/"):
            return None  # no root, or tried already
        base = target[:-3] if target.lower().endswith(".md") else target
        for cand in (base, f"{base}/index", f"{base}/_index"):
            hit = self.resolve_target(f"{root}/{cand.strip('/')}")
            if hit is not None:
                return hit
        return None
