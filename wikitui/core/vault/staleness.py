"""Which raw sources a page draws on, and whether they changed since the page was written.

A page lists its sources in frontmatter (``sources: [raw/x.md]``). Models and people
write them in many ways (``raw/x.md``, ``x.md``, ``[[raw/x.md]]``, ``"[[x]]"``,
``[x](raw/x.md)``), so :func:`clean_source` and :class:`SourceResolver` are tolerant.

:class:`SourceRecords` remembers, per page, the sha256 of each listed source as it
was when wikitui first saw it listed, last wrote the page, or the user marked the
page reviewed (``.wikitui/sources.json``); lint's ``stale`` check and the page
header compare those against the sources' current content (DESIGN §11). A source that a
page's recorded claims cover (:mod:`~wikitui.core.vault.claims`) is judged claim by claim
instead: the page is not stale for it as a whole, and ``stale-claim`` names the claims whose lines changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import unquote

from wikitui.core.vault.files import atomic_write
from wikitui.core.vault.layout import Vault

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.page import PageInfo

RECORDS_FILE = "sources.json"
#: One load-change-save of the records at a time in this process (the TUI checks pages in threads).
_LOCK = threading.RLock()


def clean_source(text: str) -> str:
    """Strip the decoration a source reference may carry, leaving a path-like string.

    ``[[raw/x.md|X]]`` → ``raw/x.md``; ``[X](raw/x%20y.md)`` → ``raw/x y.md``;
    ``<raw/x.md>``, ``./raw/x.md`` and ``/raw/x.md`` → ``raw/x.md``.
    """
    s = text.strip()
    if s.startswith("!"):
        s = s[1:]
    if s.startswith("[") and "](" in s and s.endswith(")"):
        s = unquote(s[s.index("](") + 2 : -1].strip())
    else:
        # ``[[x]]`` quoted, or an unquoted ``- [[x]]`` that YAML read as a nested list.
        wrapped = s.startswith("[")
        s = s.strip("[]'\" \t")
        if wrapped:
            s = s.partition("|")[0].partition("#")[0]
    s = s.strip().strip("<>").replace("\\", "/")
    while s.startswith("./"):
        s = s[2:]
    return s.lstrip("/").strip()


class SourceResolver:
    """Resolve source references to vault-relative file paths, tolerantly.

    Args:
        vault: The vault.
        files: Every candidate file (vault-relative): raw sources first and foremost;
            other non-page files of the vault may be included.
    """

    def __init__(self, vault: Vault, files: Iterable[str]) -> None:
        self.vault = vault
        self._exact: dict[str, str] = {}
        self._by_name: dict[str, list[str]] = {}
        for path in files:
            low = path.lower()
            self._exact.setdefault(low, path)
            if low.endswith(".md"):
                self._exact.setdefault(low[:-3], path)  # [[raw/x]] without the extension
            name = posixpath.basename(low)
            self._by_name.setdefault(name, []).append(path)
            if name.endswith(".md"):
                self._by_name.setdefault(name[:-3], []).append(path)
        for lst in self._by_name.values():
            lst.sort(key=lambda p: (not vault.is_raw(p), len(p), p))

    def resolve(self, reference: str) -> str | None:
        """The file a source reference names, or None.

        Tried in order: the path as written, the path under raw/, then a unique
        tail match of the written path (``book/ch1.md`` for ``raw/book/ch1.md``),
        preferring raw files, then the shortest path. Case-insensitive.
        """
        s = clean_source(reference)
        if not s or ".." in s.split("/"):
            return None
        low = posixpath.normpath(s).lower()
        raw = self.vault.raw_prefix.lower()
        for cand in (low, f"{raw}/{low}"):
            hit = self._exact.get(cand)
            if hit:
                return hit
        name = posixpath.basename(low)
        for path in self._by_name.get(name, []):
            pl = path.lower()
            if pl.endswith("/" + low) or pl.endswith("/" + low + ".md"):
                return path
        return None

    def resolve_all(self, references: Iterable[str]) -> list[str]:
        """Resolve several references, dropping unresolved ones and duplicates (order kept)."""
        out: list[str] = []
        for ref in references:
            hit = self.resolve(ref)
            if hit is not None and hit not in out:
                out.append(hit)
        return out


def resolver_for_graph(graph: "LinkGraph") -> SourceResolver:
    """A resolver over the raw sources and other files a link graph knows."""
    return SourceResolver(graph.vault, [*graph.raw_files, *graph.other_files])


def page_sources(info: "PageInfo") -> list[str]:
    """The source references a page lists in ``sources`` (or, singular, ``source``), as strings.

    Flattens the nested lists YAML makes of unquoted wikilinks (``- [[raw/x.md]]``
    is a list inside a list), which :attr:`PageInfo.sources` would turn into one string.
    """
    meta = info.meta if isinstance(info.meta, dict) else {}
    value = meta.get("sources") or meta.get("source")
    if not isinstance(value, (list, tuple)):
        return list(info.sources)
    out: list[str] = []
    stack = list(reversed(value))
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        elif item is not None and str(item).strip():
            out.append(str(item).strip())
    return out


#: Frontmatter keys a clipped source names its web address by (wikitui's clip writes ``source_url``;
#: Obsidian's Web Clipper ``source``).
ADDRESS_KEYS = ("source_url", "url", "source", "link", "original_url")
_ADDRESS_LINE = re.compile(r"^(?:%s)\s*:\s*['\"]?(https?://[^\s'\"]+)" % "|".join(ADDRESS_KEYS),
                           re.IGNORECASE | re.MULTILINE)


def same_address(url: str) -> str:
    """A web address as compared: no scheme, ``www.``, fragment or trailing slash; the host lower-cased."""
    u = url.split("#", 1)[0]
    while True:  # until nothing more comes off: "<https://x.org/>" and "x.org" compare the same
        was = u
        u = re.sub(r"^[a-z][a-z0-9+.-]*://", "", u.strip().strip("<>"), flags=re.IGNORECASE)
        host, slash, rest = u.partition("/")
        u = (host.lower().removeprefix("www.") + slash + rest).rstrip("/")
        if u == was:
            return u


def source_addresses(vault: Vault, rel: str) -> list[str]:
    """The web addresses a raw markdown or text file's frontmatter says it was clipped from (its head only)."""
    if not rel.lower().endswith((".md", ".markdown", ".txt")):
        return []
    try:
        with open(vault.root / rel, "rb") as fh:
            head = fh.read(4096).decode("utf-8", "replace").lstrip("\ufeff")
    except OSError:
        return []
    if not head.startswith("---"):
        return []
    end = head.find("\n---", 3)
    return _ADDRESS_LINE.findall(head[: end if end != -1 else len(head)])


def _scan_files(vault: Vault) -> list[str]:
    """Raw sources and other non-page files on disk (dot-folders skipped)."""
    _pages, raws, others = vault.scan()
    return [f.path for f in raws] + [f.path for f in others]


def file_sha256(path: os.PathLike | str) -> str | None:
    """The sha256 of a file's bytes, or None when it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


class SourceRecords:
    """The content hashes of each page's sources as of wikitui's last write of the page.

    Stored as ``{page: {source: sha256}}`` in ``.wikitui/sources.json``.
    """

    def __init__(self, vault: Vault) -> None:
        self.vault = vault

    @property
    def path(self):
        """Where the records live."""
        return self.vault.state_dir / RECORDS_FILE

    def load(self) -> dict[str, dict[str, str]]:
        """All records ({} when none, or when the file is unreadable: it is only a cache of verdicts)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {
            str(page): {str(s): str(h) for s, h in srcs.items()}
            for page, srcs in data.items()
            if isinstance(srcs, dict)
        }

    def _save(self, data: dict[str, dict[str, str]]) -> None:
        text = json.dumps(dict(sorted(data.items())), indent=1, sort_keys=True, ensure_ascii=False)
        atomic_write(self.path, text + "\n")

    def record(self, page_path: str, sources: Iterable[str], *, graph: "LinkGraph | None" = None) -> dict[str, str]:
        """Remember the current content hash of each source ``page_path`` lists.

        Call it when wikitui writes the page. References that name no file are
        skipped; an empty list forgets the page.

        Args:
            page_path: The page's vault-relative path.
            sources: The page's ``sources`` as written in its frontmatter.
            graph: A link graph to resolve against (saves a scan of the vault).

        Returns:
            The record stored for the page: {source path: sha256}.
        """
        refs = list(sources)
        entry: dict[str, str] = {}
        if refs:
            if graph is not None:
                resolver = resolver_for_graph(graph)
            else:
                resolver = SourceResolver(self.vault, _scan_files(self.vault))
            for src in resolver.resolve_all(refs):
                digest = file_sha256(self.vault.root / src)
                if digest is not None:
                    entry[src] = digest
        with _LOCK:
            data = self.load()
            if entry:
                data[page_path] = entry
            elif page_path in data:
                del data[page_path]
            else:
                return entry
            self._save(data)
        return entry

    def forget(self, page_path: str) -> None:
        """Drop a page's record (the page was deleted)."""
        with _LOCK:
            data = self.load()
            if data.pop(page_path, None) is not None:
                self._save(data)

    def move(self, old_path: str, new_path: str) -> None:
        """Carry a page's record over to its new path (the page was moved)."""
        with _LOCK:
            data = self.load()
            if old_path in data:
                data[new_path] = data.pop(old_path)
                self._save(data)

    def stale(self, graph: "LinkGraph") -> list[tuple[str, str]]:
        """Pages whose listed source changed since the record: sorted (page, source) pairs.

        A source seen listed for the first time (a page wikitui never wrote, a source
        newly added to ``sources``) is recorded as it is now, with no verdict: an
        existing vault is not all stale on its first day, and from then on an edit to
        the source makes every page listing it stale. A source no longer readable
        gets no verdict.
        """
        return self._check(graph, list(graph.pages))

    def stale_sources(self, page_path: str, graph: "LinkGraph") -> list[str]:
        """The sources of one page that changed since the record (recording first-seen ones)."""
        if page_path not in graph.pages:
            return []
        return [src for _page, src in self._check(graph, [page_path])]

    def mark_reviewed(self, page_path: str, graph: "LinkGraph") -> dict[str, str]:
        """The user reviewed the page against its sources: their current hashes become the record."""
        info = graph.pages.get(page_path)
        return self.record(page_path, page_sources(info) if info is not None else [], graph=graph)

    def see_sources(self, graph: "LinkGraph", sources: Iterable[str]) -> None:
        """Record, as first seen, the other pages that list any of ``sources`` (after an ingest of them).

        So a source edited after its ingest makes stale every page citing it, pages wikitui
        never wrote included, though no lint ran in between.
        """
        wanted = set(sources)
        if not wanted:
            return
        resolver = resolver_for_graph(graph)
        pages = [p for p, info in graph.pages.items()
                 if info.sources and wanted.intersection(resolver.resolve_all(page_sources(info)))]
        self._check(graph, pages)

    def _check(self, graph: "LinkGraph", pages: list[str]) -> list[tuple[str, str]]:
        from wikitui.core.vault.claims import ClaimRecords

        data = self.load()
        claims = ClaimRecords(self.vault)
        by_claim = claims.load()  # a source a page's claims cover is judged claim by claim (stale-claim)
        resolver = None
        hashes: dict[str, str | None] = {}
        out: list[tuple[str, str]] = []
        first_seen: dict[str, dict[str, str]] = {}
        for page in pages:
            info = graph.pages.get(page)
            if info is None or not info.sources:
                continue
            if resolver is None:
                resolver = resolver_for_graph(graph)
            recorded = data.get(page)
            for src in resolver.resolve_all(page_sources(info)):
                if src not in hashes:
                    hashes[src] = file_sha256(self.vault.root / src)
                now = hashes[src]
                if now is None:
                    continue
                old = recorded.get(src) if recorded is not None else None
                if old is None:
                    first_seen.setdefault(page, {})[src] = now
                elif now != old and src not in claims.covered(page, by_claim):
                    out.append((page, src))
        if first_seen:
            with _LOCK:  # added to the records as they are now: a "mark reviewed" meanwhile is kept
                data = self.load()
                for page, sources in first_seen.items():
                    for src, digest in sources.items():
                        data.setdefault(page, {}).setdefault(src, digest)
                try:
                    self._save(data)
                except OSError:
                    pass  # a read-only vault: the verdicts stand, the records wait
        out.sort()
        return out
