"""Which names stand for which paths: what a wikilink's target resolves by (DESIGN §2).

A target resolves case-insensitively by file stem (a ``folder/`` prefix must match
the tail of the path), then by ``title``, then by ``aliases``. A target that names
no page resolves to any other file of the vault (raw sources, attachments) by its
file name. When several files match at the first of these that matches any,
Obsidian's own rule decides (observed through its ``getFirstLinkpathDest``): an
exact vault path wins (``[[Obsidian Sync/Security and privacy]]``, or a path relative
to the wiki folder); otherwise the file in the linking page's own folder; otherwise
the shortest path string, then alphabetical order.
A target that still resolves to nothing is tried once more under the vault's
``link_root`` (a site's content folder), as a page or as a folder's ``index.md`` /
``_index.md``.
:class:`PageNames` holds the four maps, rebuilt whenever a page's names change;
:class:`Choice` is a tie the linking page's folder settles.
"""

from __future__ import annotations

import posixpath

from wikitui.core.vault.layout import Vault


def rank(path: str) -> tuple[int, str]:
    """The order ties go in: the shortest path, then alphabetical order."""
    return (len(path), path)


def tail_match(vault: Vault, candidates: list[str], base: str, strip_md: bool) -> tuple[list[str], str | None]:
    """The candidates whose path ends with ``base``, and the first whose whole path is ``base`` (an exact path).

    A path is compared as it is and relative to the wiki folder, lower-cased (without
    ``.md`` when ``strip_md``).
    """
    out = []
    exact = None
    for cand in candidates:
        c = cand.lower()
        if strip_md and c.endswith(".md"):
            c = c[:-3]
        wrel = vault.wiki_relative(cand).lower()
        if strip_md and wrel.endswith(".md"):
            wrel = wrel[:-3]
        if c == base or wrel == base:
            out.append(cand)
            if exact is None:
                exact = cand
        elif c.endswith("/" + base):
            out.append(cand)
    return out, exact


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

    def _at_root(self, paths: list[str]) -> str | None:
        """The first of ``paths`` (all of one name) at the vault's or the wiki folder's root: the exact path."""
        prefix = self.vault.wiki_prefix
        for path in paths:
            slash = path.rfind("/")
            if slash == -1 or (prefix and slash == len(prefix) and path.startswith(prefix)):
                return path
        return None

    def candidates(self, target: str) -> str | Choice | None:
        """What a wikilink target (no anchor, no label) names, before the linking page is known.

        A path when one file wins from every page (the only match, or an exact vault
        path), a :class:`Choice` when the linking page's folder decides, None when
        nothing matches.
        """
        t = target.strip().replace("\\", "/").lstrip("/")
        if not t:
            return None
        tl = t.lower()
        base = tl[:-3] if tl.endswith(".md") else tl
        last = base.rsplit("/", 1)[-1]
        cands = self._by_stem.get(last)
        if cands:
            exact = None
            if "/" in base:
                cands, exact = tail_match(self.vault, cands, base, True)
            elif len(cands) > 1:
                exact = self._at_root(cands)
            if exact is not None:
                return exact
            if cands:
                return cands[0] if len(cands) == 1 else Choice(cands, base, True)
        for table in (self._by_title, self._by_alias):
            hit = table.get(tl)
            if hit:
                return hit[0] if len(hit) == 1 else Choice(hit, "", False)
        name = tl.rsplit("/", 1)[-1]
        for key, want in ((name, tl), (name + ".md", tl + ".md")):
            files = self._files_by_name.get(key)
            if files:
                exact = None
                if "/" in want:
                    files, exact = tail_match(self.vault, files, want, False)
                elif len(files) > 1:
                    exact = self._at_root(files)
                if exact is not None:
                    return exact
                if files:
                    return files[0] if len(files) == 1 else Choice(files, want, False)
        return self._under_link_root(t)

    def _under_link_root(self, target: str) -> str | Choice | None:
        """A site-rooted target (``en/concepts/x``, ``en``) under the vault's ``link_root``, or None."""
        root = self.vault.link_root
        if not root or target.lower().startswith(root.lower() + "/"):
            return None  # no root, or tried already
        base = target[:-3] if target.lower().endswith(".md") else target
        for cand in (base, f"{base}/index", f"{base}/_index"):
            hit = self.candidates(f"{root}/{cand.strip('/')}")
            if hit is not None:
                return hit
        return None

    def resolve_target(self, target: str, from_path: str | None = None) -> str | None:
        """Resolve a wikilink target (no anchor, no label) written in ``from_path`` to a vault-relative path.

        Args:
            target: The target as written.
            from_path: The linking page (None: a link from no page, such as a name typed
                by the user; the shortest path then wins a tie).
        """
        hit = self.candidates(target)
        if hit is None or isinstance(hit, str):
            return hit
        return hit.pick(from_path)


def settle(vault: Vault, paths: list[str], base: str, from_path: str | None, *, strip_md: bool = True) -> str | None:
    """Which of ``paths`` (all named by the target ``base``) a link from ``from_path`` reaches, by Obsidian's rule.

    For code that weighs a vault other than the graph's (a page about to move): an
    exact vault path, else the file in the linking page's folder, else the shortest
    path. ``base`` is the target lower-cased (without ``.md`` when ``strip_md``), or ""
    for a title or an alias.
    """
    if not paths:
        return None
    ordered = sorted(paths, key=rank)
    if base:
        exact = tail_match(vault, ordered, base, strip_md)[1]
        if exact is not None:
            return exact
    return Choice(ordered, base, strip_md).pick(from_path)


class Choice:
    """Several files a target names: the linking page's folder picks one (Obsidian's ``getFirstLinkpathDest``).

    Args:
        paths: The candidates, shortest path first then alphabetical (:func:`rank`).
        base: The target, lower-cased, as a path without ``.md`` (page stems) or with
            its suffix (other files); "" for a title or an alias, which name no folder.
        strip_md: Whether ``paths`` are pages (compared without ``.md``).
    """

    __slots__ = ("paths", "base", "strip_md", "by_folder")

    def __init__(self, paths: list[str], base: str, strip_md: bool) -> None:
        self.paths = paths
        self.base = base
        self.strip_md = strip_md
        #: The candidate a linking page in each folder (vault-relative, lower-cased) reaches,
        #: for the folders that have one: resolving a link is one look-up here.
        self.by_folder = self._folders()

    def pick(self, from_path: str | None) -> str:
        """The candidate in the linking page's own folder, else the first (the shortest path)."""
        if from_path is None:
            return self.paths[0]
        return self.pick_in(posixpath.dirname(from_path).lower())

    def pick_in(self, folder: str) -> str:
        """:meth:`pick` for a linking page in ``folder`` (vault-relative, lower-cased, "" at the root).

        "In the folder" means the target read relative to the folder is the file's
        path: ``[[Note]]`` from ``a/x.md`` is ``a/Note.md``; ``[[b/Note]]`` is ``a/b/Note.md``.
        A title or alias names no path: the file itself must lie in the folder.
        """
        return self.by_folder.get(folder) or self.paths[0]

    def _folders(self) -> dict[str, str]:
        """The folder a linking page must be in for each candidate (the first candidate for a folder wins)."""
        out: dict[str, str] = {}
        base = self.base
        if "/" not in base:  # a bare name (every candidate has it) or a title: the file's own folder
            for path in self.paths:
                folder = path.rpartition("/")[0].lower()
                if folder not in out:
                    out[folder] = path
            return out
        tail = "/" + base
        for path in self.paths:
            p = path.lower()
            if self.strip_md and p.endswith(".md"):
                p = p[:-3]
            if p.endswith(tail):
                out.setdefault(p[: -len(tail)], path)
        return out
