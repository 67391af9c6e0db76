"""The link graph: every page parsed, every link resolved, backlinks indexed.

Resolution follows Obsidian (DESIGN §2): a target resolves case-insensitively by
file stem (a ``folder/`` prefix must match the tail of the path), then by
``title``, then by ``aliases``; a tie goes to an exact vault path, else to the file
in the linking page's own folder, else to the shortest path, then alphabetical
order (:mod:`wikitui.core.vault.names`). A target that names no page resolves to
any other file of the vault (raw sources, attachments). A missing heading or block
still resolves to the page.

The parsed pages are cached under ``.wikitui/cache/`` so a warm start re-reads only
files whose mtime or size changed, and takes the cached resolution as it is when
nothing changed (see :mod:`wikitui.core.vault.graph_cache`); one changed file updates the
graph incrementally.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

from wikitui.core.vault.files import decode_text, read_bytes
from wikitui.core.vault.graph_cache import CACHE_NAME, CACHE_VERSION, CachedGraph, read_cache, write_cache
from wikitui.core.vault.layout import FileStat, Vault
from wikitui.core.vault.links import Link
from wikitui.core.vault.mentions import Mention, unlinked_mentions
from wikitui.core.vault.names import Choice, PageNames
from wikitui.core.vault.page import PageInfo, parse_page

__all__ = ["CACHE_VERSION", "Backlink", "LinkGraph", "Mention"]


#: (path, mtime_ns, size) of a FileStat or a PageInfo: what tells a page changed.
_stat_key = attrgetter("path", "mtime_ns", "size")


def _names_of(info: PageInfo) -> tuple[str, tuple[str, ...]]:
    """The lower-cased title and aliases: what other pages' links resolve by."""
    return info.title.lower(), tuple([a.lower() for a in info.aliases])


#: A memo's "not resolved yet": a string (so the memo's values stay ``str | None``) that no path is (paths have no NUL).
_UNSEEN = "\0unseen"


@dataclass(slots=True)
class Backlink:
    """A link from ``source`` to some page: the link itself and its line of context."""

    source: str
    link: Link


class LinkGraph:
    """All pages of a vault with their links resolved.

    Build one with :meth:`LinkGraph.load`; keep it current with :meth:`refresh`
    (rescan everything cheaply) or :meth:`update_path` (one file changed).
    """

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        #: Pages by vault-relative path.
        self.pages: dict[str, PageInfo] = {}
        #: Raw sources by vault-relative path.
        self.raw_files: dict[str, FileStat] = {}
        #: Other files (attachments, non-markdown) by vault-relative path.
        self.other_files: dict[str, FileStat] = {}
        # Each page's link targets, in the order of its links (a page without links may have none).
        self._resolved: dict[str, list[str | None]] = {}
        # Backlinks by target, kept flat: [source, link, source, link, ...]. A 10,000-page vault
        # has ~55,000 links, and an object each cost a fifth of the resolving time; backlinks()
        # builds Backlink objects for the one page asked about.
        self._backlinks: dict[str, list] = {}
        # What names (stems, titles, aliases, file names) stand for which paths. A warm start
        # that takes the cached resolution leaves them to the first link resolved afterwards.
        self._names = PageNames(vault)
        #: Number of files parsed by the last load or refresh (0 on a fully warm start).
        self.parsed_count = 0

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, vault: Vault, *, use_cache: bool = True, save_cache: bool = True) -> "LinkGraph":
        """Scan the vault, parse what changed since the cache, and resolve every link.

        It allocates many small objects and no cycles: a program loading a large
        vault may pause the garbage collector around it (``wikitui.gc_tuning.paused``).
        """
        graph = cls(vault)
        graph._load(use_cache=use_cache, save_cache=save_cache)
        return graph

    def _load(self, *, use_cache: bool, save_cache: bool) -> None:
        cache = read_cache(self.cache_path, self._layout) if use_cache else None
        pages, raws, others = self.vault.scan()
        self.raw_files = {f.path: f for f in raws}
        self.other_files = {f.path: f for f in others}
        if (
            cache is not None
            and cache.files == (tuple(self.raw_files), tuple(self.other_files))
            and list(map(_stat_key, pages)) == list(map(_stat_key, cache.pages.values()))
        ):
            # Every page's path, mtime and size as when the cache was written (compared in
            # path order, which the cache keeps, without a Python step per page), and the same
            # other files: the same pages, and the same resolution, which depends on nothing else.
            self.pages = cache.pages
            self._resolved, self._backlinks = cache.resolved, cache.backlinks
            self.parsed_count = 0
            return
        cached = cache.pages if cache is not None else {}
        parsed = 0
        get, graph_pages = cached.get, self.pages
        for fs in pages:  # every page's mtime and size checked, warm or not
            info = get(fs.path)
            if info is None or info.mtime_ns != fs.mtime_ns or info.size != fs.size:
                info = self._parse(fs)
                parsed += 1
            graph_pages[fs.path] = info
        self.parsed_count = parsed
        self._rebuild()
        if save_cache:
            self.save_cache()

    def _parse(self, fs: FileStat) -> PageInfo:
        try:
            data = read_bytes(os.path.join(self.vault.root, fs.path), size=fs.size)
        except OSError as exc:
            info = PageInfo(path=fs.path, title=Path(fs.path).stem, mtime_ns=fs.mtime_ns, size=fs.size)
            info.warnings.append(f"cannot read: {exc.strerror or exc}")
            return info
        text, ok = decode_text(data)
        info = parse_page(
            fs.path, text, mtime_ns=fs.mtime_ns, size=fs.size, heading_titles=bool(self.vault.wiki_prefix)
        )
        if not ok:
            info.warnings.append("not valid UTF-8; undecodable bytes shown as \ufffd")
        return info

    # -------------------------------------------------------------------- cache
    @property
    def cache_path(self) -> Path:
        """Where the parsed pages are cached."""
        return self.vault.state_dir / "cache" / CACHE_NAME

    @property
    def _layout(self) -> tuple[str, ...]:
        # Titles and resolution depend on where the wiki and raw folders are, and where site-rooted links start.
        return (self.vault.wiki_prefix, self.vault.raw_prefix, self.vault.link_root)

    def save_cache(self) -> None:
        """Write the parse cache, with the current resolution; a read-only vault just goes without one."""
        pages, paths = self.pages, sorted(self.pages)
        if paths != list(pages):  # pages added since the load come last: the cache keeps path order
            pages = {path: pages[path] for path in paths}
        files = (tuple(sorted(self.raw_files)), tuple(sorted(self.other_files)))
        resolved = {path: targets for path, targets in self._resolved.items() if targets}  # most pages link nowhere
        write_cache(self.cache_path, self._layout, CachedGraph(pages, files, resolved, self._backlinks))

    # --------------------------------------------------------------- resolution
    def _rebuild(self) -> None:
        """Rebuild the name maps and resolve every link."""
        self._names.build(self.pages, self.raw_files, self.other_files)
        self._resolve_all()

    def _resolve_all(self) -> None:
        self._resolved = {}
        self._backlinks = {}
        # A wikilink target names the same candidates from every page; only a tie (a Choice)
        # is settled by the linking page's folder.
        memo: dict[str, str | Choice | None] = {}
        for path, info in self.pages.items():
            self._resolve_page(path, info, memo)

    def _resolve_page(self, path: str, info: PageInfo, memo: dict[str, str | Choice | None] | None = None) -> None:
        if memo is None:
            memo = {}
        names = self._names
        if not names.ready:
            names.build(self.pages, self.raw_files, self.other_files)
        candidates = names.candidates  # called per distinct target of a whole vault: no wrapper
        folder: str | None = None  # the linking page's folder, lower-cased, when a tie needs it
        resolved: list[str | None] = []
        backlinks = self._backlinks
        hit: str | Choice | None
        for link in info.links:
            target = link.target
            if link.kind == "wiki" and target:
                hit = memo.get(target, _UNSEEN)
                if hit is _UNSEEN:
                    hit = memo[target] = candidates(target)
                if isinstance(hit, Choice):  # Choice.pick_in, inlined: once per link of a whole vault
                    if folder is None:
                        folder = path.rpartition("/")[0].lower()
                    hit = hit.by_folder.get(folder) or hit.paths[0]
            else:
                hit = self.resolve(link, path)
            resolved.append(hit)
            if hit is not None:
                flat = backlinks.get(hit)
                if flat is None:
                    backlinks[hit] = [path, link]
                else:
                    flat.append(path)
                    flat.append(link)
        self._resolved[path] = resolved

    def resolve_target(self, target: str, from_path: str | None = None) -> str | None:
        """Resolve a wikilink target (no anchor, no label) to a vault-relative path.

        Args:
            target: The target as written.
            from_path: The page the link is written in: a name several files share
                goes to the one in its folder (None: a name from no page, such as one
                the user typed; the shortest path wins).
        """
        names = self._names
        if not names.ready:
            names.build(self.pages, self.raw_files, self.other_files)
        return names.resolve_target(target, from_path)

    def resolve(self, link: Link, from_path: str) -> str | None:
        """Resolve one link found in ``from_path``; None when unresolved or external."""
        if link.kind == "url":
            return None
        if not link.target:
            return from_path  # [[#Heading]] or [](#heading): this page
        if link.kind == "md":
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), link.target))
            if joined in self.pages or joined in self.raw_files or joined in self.other_files:
                return joined
            rooted = posixpath.normpath(link.target.lstrip("/"))
            if rooted in self.pages or rooted in self.raw_files or rooted in self.other_files:
                return rooted
        return self.resolve_target(link.target, from_path)

    def find_page(self, name: str, from_path: str | None = None) -> str | None:
        """A page by vault-relative path, wiki-relative path, title, alias or stem.

        ``from_path``: the page the name is written in, when it is a link's (a tie goes
        by its folder); None for a name the user typed.
        """
        n = name.strip().replace("\\", "/")
        for cand in (n, n + ".md", self.vault.join_wiki(n), self.vault.join_wiki(n + ".md")):
            if cand in self.pages:
                return cand
        hit = self.resolve_target(n, from_path)
        return hit if hit in self.pages else None

    # ------------------------------------------------------------------ queries
    def outgoing(self, path: str) -> list[tuple[Link, str | None]]:
        """A page's links in reading order, each with its resolved path (None: unresolved or URL)."""
        info = self.pages.get(path)
        if info is None:
            return []
        return list(zip(info.links, self._resolved.get(path, [])))

    def backlinks(self, path: str) -> list[Backlink]:
        """Links from other pages to ``path`` (self-links excluded), by source path then line."""
        flat = self._backlinks.get(path, [])
        hits = [Backlink(source, link) for source, link in zip(flat[::2], flat[1::2]) if source != path]
        hits.sort(key=lambda b: (b.source, b.link.line, b.link.start))
        return hits

    def unresolved(self) -> list[tuple[str, Link]]:
        """Every link occurrence (not an external URL) whose target resolves to nothing."""
        out = []
        for path, info in self.pages.items():
            for link, target in zip(info.links, self._resolved.get(path, [])):
                if target is None and link.kind != "url":
                    out.append((path, link))
        return out

    def link_count(self) -> int:
        """Number of link occurrences, external URLs excluded."""
        return sum(1 for info in self.pages.values() for link in info.links if link.kind != "url")

    def orphans(self) -> list[str]:
        """Pages no other page links to (links from index.md and log.md do not count)."""
        special = {self.vault.index_path, self.vault.log_path}
        out = []
        for path in self.pages:
            if path in special:
                continue
            if not any(source != path and source not in special for source in self._backlinks.get(path, [])[::2]):
                out.append(path)
        return out

    def unlinked_mentions(self, path: str) -> list[Mention]:
        """Places where another page names ``path``'s title or an alias in plain text (see :mod:`wikitui.core.vault.mentions`)."""
        return unlinked_mentions(self.pages, path, root=self.vault.root, skip=self.vault.log_path)

    # ------------------------------------------------------------ incremental
    def update_path(self, rel: str) -> None:
        """Bring one file's entry up to date after it was created, changed or deleted."""
        # A symlink (or a path through a symlinked folder) is not in the graph, as the scan does not list it.
        plain = self.vault.plain_file(rel)
        is_page = self.vault.is_page_path(rel)
        if plain is None:
            if rel in self.pages:
                del self.pages[rel]
                self._rebuild()
            elif self.raw_files.pop(rel, None) or self.other_files.pop(rel, None):
                self._rebuild()
            return
        fs = FileStat(rel, plain.st_mtime_ns, plain.st_size)
        if not is_page:
            table = self.raw_files if self.vault.is_raw(rel) else self.other_files
            new = rel not in table
            table[rel] = fs
            if new:
                self._rebuild()
            return
        info = self._parse(fs)
        old = self.pages.get(rel)
        self.pages[rel] = info
        if old is None or _names_of(old) != _names_of(info):
            self._rebuild()
            return
        self._resolve_again(rel, info)

    def copy(self) -> "LinkGraph":
        """A graph of the same files to change apart (an overlay of proposals): never saved as the cache."""
        other = type(self)(self.vault)
        other.pages, other.raw_files, other.other_files = dict(self.pages), dict(self.raw_files), dict(self.other_files)
        other._rebuild()
        return other

    def set_texts(self, texts: dict[str, str | None]) -> None:
        """Take these pages as holding ``texts`` (None: gone) rather than what the disk holds.

        For an overlay of proposals (:mod:`wikitui.core.changes.overlay`): one resolution of
        every link when a page's names change (a new page, a deletion, a new title), else
        only the given pages' links are resolved again.
        """
        renamed = False
        for rel, text in texts.items():
            old = self.pages.get(rel)
            if text is None:
                renamed = self.pages.pop(rel, None) is not None or renamed
                continue
            info = parse_page(rel, text, mtime_ns=0, size=len(text.encode("utf-8", "surrogateescape")),
                              heading_titles=bool(self.vault.wiki_prefix))
            self.pages[rel] = info
            renamed = renamed or old is None or _names_of(old) != _names_of(info)
        if renamed:
            self._rebuild()
            return
        for rel, text in texts.items():
            if text is not None:
                self._resolve_again(rel, self.pages[rel])

    def _resolve_again(self, rel: str, info: PageInfo) -> None:
        """Names unchanged: only this page's own links need resolving again."""
        for target in set(t for t in self._resolved.get(rel, []) if t is not None):
            flat = self._backlinks.get(target, [])
            kept: list = []
            for source, link in zip(flat[::2], flat[1::2]):
                if source != rel:
                    kept += (source, link)
            self._backlinks[target] = kept
        self._resolve_page(rel, info)

    def refresh(self) -> set[str]:
        """Rescan the vault and update whatever changed; returns the changed paths."""
        pages, raws, others = self.vault.scan()
        changed: set[str] = set()
        seen = set()
        for fs in pages:
            seen.add(fs.path)
            info = self.pages.get(fs.path)
            if info is None or info.mtime_ns != fs.mtime_ns or info.size != fs.size:
                self.pages[fs.path] = self._parse(fs)
                changed.add(fs.path)
        for gone in set(self.pages) - seen:
            del self.pages[gone]
            changed.add(gone)
        new_raw = {f.path: f for f in raws}
        new_other = {f.path: f for f in others}
        for old, new in ((self.raw_files, new_raw), (self.other_files, new_other)):
            for p in set(old) ^ set(new):
                changed.add(p)
            for p in set(old) & set(new):
                if (old[p].mtime_ns, old[p].size) != (new[p].mtime_ns, new[p].size):
                    changed.add(p)
        self.raw_files, self.other_files = new_raw, new_other
        if changed:
            self._rebuild()
        return changed
