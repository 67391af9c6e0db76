"""Full-text search over a vault's pages and raw sources (DESIGN §5): the one facade callers use.

:class:`SearchIndex` is what the command line, the TUI and the agent's ``search``
tool hold. It knows the vault (which files are pages, which are raw sources, what
a link graph already parsed) and the query contract (scopes, limits, notes); the
engine behind it is a :class:`~wikitui.core.search.backend.Backend`, by default
the Whoosh one (:class:`~wikitui.core.search.whoosh.backend.WhooshBackend`), whose
index under ``.wikitui/index/`` is a rebuildable cache of the vault:

- :meth:`SearchIndex.update` re-indexes only files whose mtime or size changed and
  drops vanished ones; it is cheap when nothing changed;
- a missing, corrupt or older-schema index is rebuilt, never a crash;
- one writer at a time; another process's writer is waited for, then the update
  is skipped (``UpdateStats.busy``) and the existing index still answers.

Importing this module imports no search engine (``wikitui search`` starts faster);
the first update or search does.

Usage::

    index = SearchIndex(vault)
    index.update()                 # or update(graph) with a loaded LinkGraph
    for hit in index.search('"white rabbit" tag:character'):
        print(hit.path, hit.line, hit.snippet)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from wikitui.core.base.errors import BadQuery
from wikitui.core.search.results import Hits, UpdateStats
from wikitui.core.vault.layout import FileStat, Vault

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from wikitui.core.search.backend import Backend
    from wikitui.core.vault.graph import LinkGraph

SCOPES = ("all", "wiki", "raw")

Progress = Callable[[int, int], None]
Cancel = Callable[[], bool]


class SearchIndex:
    """The search index of one vault.

    Thread-safe: writers (update, rebuild, update_paths, optimize) take turns;
    searches may run alongside them and see each commit once it is done.

    Args:
        vault: The vault to index.
        lock_timeout: Seconds to wait for another process's writer before skipping.
        backend: The engine (default: a Whoosh backend on ``.wikitui/index/``,
            created on first use).
    """

    def __init__(self, vault: Vault, *, lock_timeout: float = 2.0, backend: Backend | None = None) -> None:
        self.vault = vault
        self.lock_timeout = lock_timeout
        self._backend = backend

    @property
    def backend(self) -> Backend:
        """The engine behind the facade (the Whoosh backend unless another was given)."""
        if self._backend is None:
            from wikitui.core.search.whoosh.backend import WhooshBackend

            self._backend = WhooshBackend(self.vault, lock_timeout=self.lock_timeout)
        return self._backend

    @property
    def path(self) -> Path:
        """The index folder (``.wikitui/index/``, or the user's cache for a read-only vault: ``Vault.index_dir``)."""
        return self.vault.index_dir

    @property
    def language(self) -> str:
        """The language the index analyses text in (two letters, e.g. "de")."""
        return self.backend.language

    # --------------------------------------------------------------- updating
    def update(
        self, graph: LinkGraph | None = None, progress: Progress | None = None, cancel: Cancel | None = None
    ) -> UpdateStats:
        """Bring the index up to date with the vault, re-indexing only what changed.

        Args:
            graph: A loaded link graph: its parsed pages are reused (and its file
                lists trusted) instead of scanning and parsing here.
            progress: Called as ``progress(done, total)`` every few files.
            cancel: Polled between files; returning True stops early. What was
                indexed so far is committed, and the next update continues.
        """
        files, infos = self._files(graph)
        return self.backend.update(files, infos, full=False, progress=progress, cancel=cancel)

    def rebuild(self, progress: Progress | None = None, cancel: Cancel | None = None) -> UpdateStats:
        """Index the whole vault again (its language is detected again too).

        The previous index answers searches until the new one is committed; a
        cancelled rebuild leaves it as it was (or, when there was none, keeps what
        was indexed so far for the next :meth:`update` to complete).
        ``added`` then counts every file indexed.
        """
        files, infos = self._files(None)
        return self.backend.update(files, infos, full=True, progress=progress, cancel=cancel)

    def update_paths(self, paths: Iterable[str], graph: LinkGraph | None = None) -> UpdateStats:
        """Re-index exactly these vault-relative paths; missing files are dropped.

        Paths that are neither pages nor raw sources (WIKI.md, attachments outside
        raw/) are ignored. Called after a changeset is applied and when the
        watcher reports changes.
        """
        present: list[tuple[FileStat, str]] = []
        absent: list[str] = []
        for rel in dict.fromkeys(paths):
            kind = self._kind(rel)
            # A symlink is not indexed, whatever it points at (wiki/x.md -> ../.env): the scan skips them too.
            st = self.vault.plain_file(rel) if kind is not None else None
            if st is not None and kind is not None:
                present.append((FileStat(rel, st.st_mtime_ns, st.st_size), kind))
            else:
                absent.append(rel)
        infos = graph.pages if graph is not None else {}
        return self.backend.update_paths(present, absent, infos)

    def segment_count(self) -> int:
        """How many parts the index is in (1 after :meth:`optimize` or a rebuild)."""
        return self.backend.segment_count()

    def optimize(self) -> bool:
        """Merge the index into one part (seconds on a large vault: run it in the background).

        Searches after many small updates get faster, fuzzy ones most of all.
        Returns False when another process held the index and nothing was done.
        """
        return self.backend.optimize()

    def _files(self, graph: LinkGraph | None) -> tuple[list[tuple[FileStat, str]], dict]:
        """Every page and raw source with its kind, and the pages already parsed (by path)."""
        if graph is None:
            pages, raws, _ = self.vault.scan()
            infos: dict = {}
        else:
            pages = [FileStat(p, i.mtime_ns, i.size) for p, i in graph.pages.items()]
            raws = list(graph.raw_files.values())
            infos = graph.pages
        files = [(fs, "page") for fs in pages]
        files += [(fs, "raw") for fs in raws]
        return files, infos

    def _kind(self, rel: str) -> str | None:
        """"page", "raw", or None for a path the index does not hold."""
        if any(part.startswith(".") for part in rel.split("/")):
            return None  # dot-files are outside the vault's content
        if self.vault.is_raw(rel):
            return "raw"
        return "page" if self.vault.is_page_path(rel) else None

    # -------------------------------------------------------------- searching
    def search(self, query: str, scope: str = "all", limit: int = 10, *, snippets: bool = True) -> Hits:
        """Search the index (it is opened, and created empty if missing, on first use).

        The index is not brought up to date here: call :meth:`update` first (the
        CLI does; the workspace keeps it current as files change). Should reading
        the index fail mid-search, the backend reopens it, and failing that
        rebuilds it before answering (rare, and slow on a large vault).

        Args:
            query: The query (see :mod:`wikitui.core.search.whoosh.schema`). A blank
                query or one of stop words only finds nothing. ``since:DATE`` and
                ``until:DATE`` keep pages by their ``updated`` date or the days a
                changeset touched them (:mod:`wikitui.core.search.date_filter`).
            scope: "all", "wiki" (pages only) or "raw" (raw sources only).
            limit: Most hits to return, best first.
            snippets: False: no file is read, each hit's snippet is "" (a ranking, as a turn's catalog
                wants: :mod:`~wikitui.core.agent.turn_catalog`).

        Returns:
            The hits, best first, with the notes to show beside them (``Hits.notes``):
            a fuzzy distance capped at 2, an index another process is rebuilding,
            no hit with every word so the hits of any word instead. A hit's line
            and snippet are its best match of the whole query (a phrase's line
            when the query has one).

        Raises:
            BadQuery: a malformed query, one over a bound (DESIGN §8), or an unknown scope.
        """
        if scope not in SCOPES:
            raise BadQuery(f"unknown scope {scope!r}: use all, wiki or raw")
        if not query.strip() or limit <= 0:
            return Hits()
        notes: list[str] = []
        if "since:" in query.lower() or "until:" in query.lower():  # DESIGN §15: by `updated` or a changeset's day
            return self._search_dated(query, scope, limit, notes)
        if not snippets:
            return Hits(self.backend.search(query, scope, limit, notes, snippets=False), notes)
        hits = self.backend.search(query, scope, limit, notes)
        return Hits(hits, notes)

    def _search_dated(self, query: str, scope: str, limit: int, notes: list[str]) -> Hits:
        """A query with ``since:``/``until:`` (:mod:`wikitui.core.search.date_filter`)."""
        from wikitui.core.search.date_filter import DATE_POOL, filter_hits, pages_in_range, split_dates

        rest, dates = split_dates(query)
        if scope == "raw" or not dates:  # sources have no `updated` date
            return Hits([], notes) if dates else Hits(self.backend.search(query, scope, limit, notes), notes)
        if not rest:
            return Hits(pages_in_range(self.vault, dates, limit), notes)
        hits = self.backend.search(rest, "wiki", max(limit, DATE_POOL), notes)
        return Hits(filter_hits(self.vault, hits, dates, limit), notes)

    # ---------------------------------------------------------------- closing
    def close(self) -> None:
        """Close what the backend holds open (it reopens on next use)."""
        if self._backend is not None:
            self._backend.close()

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
