"""Full-text search over a vault's pages and raw sources (DESIGN §5).

A Whoosh index under ``.wikitui/index/`` is a rebuildable cache of the vault:

- :meth:`SearchIndex.update` re-indexes only files whose mtime or size changed and
  drops vanished ones; it is cheap when nothing changed (no writer is opened).
- A missing, corrupt or older-schema index is rebuilt, never a crash.
- One writer at a time: in-process writers take a lock, other processes are waited
  for (Whoosh's file lock) for up to ``lock_timeout`` seconds, after which the
  update is skipped (``UpdateStats.busy``) and the existing index still answers.
- A searcher stays open between queries and is reopened after each commit.

Importing this module does not import Whoosh (``wikitui search`` starts faster);
the first use does.

Usage::

    index = SearchIndex(vault)
    index.update()                 # or update(graph) with a loaded LinkGraph
    for hit in index.search('"white rabbit" tag:character'):
        print(hit.path, hit.line, hit.snippet)
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterable

from wikitui.core.errors import BadQuery
from wikitui.core.search.results import Hit, Hits, IndexBusy, UpdateStats
from wikitui.core.vault.layout import FileStat, Vault

TYPE_CHECKING = False  # typing itself is not imported (see wikitui.cli)
if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.vault.graph import LinkGraph

#: Bump when the schema or the analysis changes: older indexes are then rebuilt.
SCHEMA_VERSION = 3
SCOPES = ("all", "wiki", "raw")
#: Bytes of a hit's file first looked at for its snippet (the rest only when they hold no match).
SNIPPET_HEAD = 16 * 1024
#: Files indexed between two progress reports.
_PROGRESS_EVERY = 25
#: The note of a search that could not open the index while another process rebuilds it.
_BUSY = "the search index is being rebuilt by another wikitui process; search again in a moment"

Progress = Callable[[int, int], None]
Cancel = Callable[[], bool]


def _unless_busy(busy: Callable[[], object]):
    """Make a method return ``busy()`` when another process is writing an index that does not open."""

    def wrap(method):
        @functools.wraps(method)
        def guarded(*args, **kwargs):
            try:
                return method(*args, **kwargs)
            except IndexBusy:
                return busy()

        return guarded

    return wrap


def index_name() -> str:
    """The Whoosh index name: it carries the schema version, so an old index is never opened."""
    return f"wikitui_v{SCHEMA_VERSION}"


class SearchIndex:
    """The search index of one vault.

    Thread-safe: writers (update, rebuild, update_paths, optimize) take turns;
    searches may run alongside them and see each commit once it is done.

    Args:
        vault: The vault to index.
        lock_timeout: Seconds to wait for another process's writer before skipping.
    """

    def __init__(self, vault: Vault, *, lock_timeout: float = 2.0) -> None:
        self.vault = vault
        self.lock_timeout = lock_timeout
        self._store = None
        self._write_lock = threading.Lock()

    @property
    def path(self):
        """The index folder (``.wikitui/index/``)."""
        return self.vault.state_dir / "index"

    @property
    def language(self) -> str:
        """The language the index analyses text in (two letters, e.g. "de")."""
        return self._opened().analyzer.lang

    def _opened(self):
        """The index store, opened (created when missing, old or corrupt)."""
        store = self._store
        if store is None or store.ix is None:
            with self._write_lock:
                if self._store is None:
                    from wikitui.core.search.whoosh.fast.loader import import_whoosh

                    import_whoosh()
                    from wikitui.core.search.whoosh.store import IndexStore

                    self._store = IndexStore(self.vault, index_name(), self.lock_timeout)
                self._store.open()
                store = self._store
        return store

    # --------------------------------------------------------------- updating
    @_unless_busy(lambda: UpdateStats(busy=True))
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
        store = self._opened()
        with self._write_lock:
            return self._update(store, graph, progress, cancel, full=False)

    @_unless_busy(lambda: UpdateStats(busy=True))
    def rebuild(self, progress: Progress | None = None, cancel: Cancel | None = None) -> UpdateStats:
        """Index the whole vault again (its language is detected again too).

        The previous index answers searches until the new one is committed; a
        cancelled rebuild leaves it as it was (or, when there was none, keeps what
        was indexed so far for the next :meth:`update` to complete).
        ``added`` then counts every file indexed.
        """
        store = self._opened()
        with self._write_lock:
            return self._update(store, None, progress, cancel, full=True)

    def _update(self, store, graph, progress, cancel, *, full: bool) -> UpdateStats:
        from whoosh.index import LockError
        from whoosh.writing import CLEAR

        started = time.perf_counter()
        store.open()
        store.sync()
        created = store.take_created()
        if full and not created:
            lang = store.language()
            if store.analyzer.lang != lang:
                store.create(lang)
                created = store.take_created()
        stats = UpdateStats(rebuilt=created or full)
        pages, raws = self._files(graph)
        current: dict[str, tuple[FileStat, str]] = {f.path: (f, "page") for f in pages}
        current.update((f.path, (f, "raw")) for f in raws)
        manifest = store.manifest
        if full:
            todo = list(current.values())
        else:
            todo = [(fs, kind) for path, (fs, kind) in current.items() if manifest.get(path) != (fs.mtime_ns, fs.size)]
            todo = self._skip_unchanged(store, todo, stats)
        gone = [path for path in manifest if path not in current]
        if not todo and not gone and not full:
            return self._finish(stats, store, started)
        try:
            writer = store.writer()
        except LockError:
            stats.busy = True
            return self._finish(stats, store, started)
        # A rebuild of a healthy index writes one segment that replaces all others on commit.
        fresh = full and bool(manifest) and not created
        infos = graph.pages if graph is not None else {}
        done = self._index_files(
            store, writer, todo, [] if fresh else gone, infos, stats, progress, cancel, replace=not full
        )
        if fresh and stats.cancelled:
            writer.cancel()  # the previous index stays whole
            return self._finish(stats, store, started)
        if fresh:
            stats.removed = len(gone)
            store.commit(writer, indexed=done, clear=True, mergetype=CLEAR)
        else:
            store.commit(writer, removed=gone, indexed=done)
        return self._finish(stats, store, started)

    def _skip_unchanged(self, store, todo: list, stats: UpdateStats) -> list:
        """``todo`` without the files whose time changed but not their bytes (recorded as such in ``store``).

        A checkout, a sync tool or ``touch`` gives many files a new time and the
        same bytes: comparing a digest of what would be indexed (a read and a
        hash, ~20 µs) saves re-indexing them (~2 ms each).
        """
        from wikitui.core.search.documents import file_digest

        manifest = store.manifest
        root = self.vault.root
        kept, unchanged = [], []
        for fs, kind in todo:
            old = manifest.get(fs.path)
            digest = store.indexed_digest(fs.path) if old is not None and old[1] == fs.size else None
            if digest is not None and file_digest(root / fs.path) == digest:
                unchanged.append(fs)
            else:
                kept.append((fs, kind))
        if unchanged:
            store.record_unchanged(unchanged)
            stats.unchanged = len(unchanged)
        return kept

    @staticmethod
    def _finish(stats: UpdateStats, store, started: float) -> UpdateStats:
        stats.total = len(store.manifest)
        stats.seconds = time.perf_counter() - started
        return stats

    def _files(self, graph) -> tuple[list[FileStat], list[FileStat]]:
        if graph is None:
            pages, raws, _ = self.vault.scan()
            return pages, raws
        pages = [FileStat(p, i.mtime_ns, i.size) for p, i in graph.pages.items()]
        return pages, list(graph.raw_files.values())

    def _index_files(
        self, store, writer, todo, gone, infos, stats, progress, cancel, *, replace=True
    ) -> list[FileStat]:
        """Add, replace (when ``replace``) and delete documents; returns the files indexed."""
        from wikitui.core.search.documents import page_document, raw_document

        root = self.vault.root
        manifest = store.manifest
        for path in gone:
            writer.delete_by_term("path", path)
        stats.removed = len(gone)
        total = len(todo)
        done: list[FileStat] = []
        for i, (fs, kind) in enumerate(todo):
            if cancel is not None and cancel():
                stats.cancelled = True
                break
            if kind == "page":
                doc = page_document(root, fs.path, fs.mtime_ns, fs.size, infos.get(fs.path))
            else:
                doc = raw_document(root, fs.path, fs.mtime_ns, fs.size)
            if replace and fs.path in manifest:
                writer.update_document(**doc)
                stats.updated += 1
            else:
                writer.add_document(**doc)
                stats.added += 1
            done.append(fs)
            if progress is not None and (i + 1) % _PROGRESS_EVERY == 0:
                progress(i + 1, total)
        if progress is not None:
            progress(len(done), total)
        return done

    def _kind(self, rel: str) -> str | None:
        """"page", "raw", or None for a path the index does not hold."""
        if any(part.startswith(".") for part in rel.split("/")):
            return None  # dot-files are outside the vault's content
        if self.vault.is_raw(rel):
            return "raw"
        return "page" if self.vault.is_page_path(rel) else None

    @_unless_busy(lambda: UpdateStats(busy=True))
    def update_paths(self, paths: Iterable[str], graph: LinkGraph | None = None) -> UpdateStats:
        """Re-index exactly these vault-relative paths; missing files are dropped.

        Paths that are neither pages nor raw sources (WIKI.md, attachments outside
        raw/) are ignored. Called after a changeset is applied.
        """
        from whoosh.index import LockError

        started = time.perf_counter()
        store = self._opened()
        with self._write_lock:
            store.open()
            store.sync()
            stats = UpdateStats(rebuilt=store.take_created())
            todo, gone = [], []
            for rel in dict.fromkeys(paths):
                kind = self._kind(rel)
                path = self.vault.root / rel
                try:
                    st = path.stat()
                    exists = kind is not None and path.is_file()
                except OSError:
                    exists = False
                if exists:
                    todo.append((FileStat(rel, st.st_mtime_ns, st.st_size), kind))
                elif rel in store.manifest:
                    gone.append(rel)
            todo = self._skip_unchanged(store, todo, stats)
            if not todo and not gone:
                return self._finish(stats, store, started)
            try:
                writer = store.writer()
            except LockError:
                stats.busy = True
                return self._finish(stats, store, started)
            infos = graph.pages if graph is not None else {}
            done = self._index_files(store, writer, todo, gone, infos, stats, None, None)
            store.commit(writer, removed=gone, indexed=done)
            return self._finish(stats, store, started)

    @_unless_busy(int)
    def segment_count(self) -> int:
        """How many segments the index has (1 after :meth:`optimize` or a rebuild)."""
        store = self._opened()
        store.open()
        return len(store.ix._segments())

    @_unless_busy(bool)
    def optimize(self) -> bool:
        """Merge all segments into one (seconds on a large vault: run it in the background).

        Searches after many small updates get faster, fuzzy ones most of all.
        Returns False when another process held the index and nothing was done.
        """
        from whoosh.index import LockError

        store = self._opened()
        with self._write_lock:
            store.open()
            try:
                writer = store.writer()
            except LockError:
                return False
            store.commit(writer, optimize=True)
            return True

    # -------------------------------------------------------------- searching
    def search(self, query: str, scope: str = "all", limit: int = 10) -> Hits:
        """Search the index (it is opened, and created empty if missing, on first use).

        The index is not brought up to date here: call :meth:`update` first (the
        CLI does; the UI keeps it current as files change). Should reading the
        index fail mid-search, it is reopened, and failing that rebuilt before
        answering (rare, and slow on a large vault).

        Args:
            query: The query (see :mod:`wikitui.core.search.whoosh.schema`). A blank query
                or one of stop words only finds nothing.
            scope: "all", "wiki" (pages only) or "raw" (raw sources only).
            limit: Most hits to return, best first.

        Returns:
            The hits, best first, with the notes to show beside them (``Hits.notes``):
            a fuzzy distance capped at 2, an index another process is rebuilding.

        Raises:
            BadQuery: a malformed query, one over a bound (DESIGN §8), or an unknown scope.
        """
        if scope not in SCOPES:
            raise BadQuery(f"unknown scope {scope!r}: use all, wiki or raw")
        if not query.strip() or limit <= 0:
            return Hits()
        notes: list[str] = []
        for attempt in (1, 2, 3):
            try:
                store = self._opened()
                return Hits(self._search(store, query, scope, limit, notes), notes)
            except BadQuery:
                raise
            except IndexBusy:
                return Hits((), [*notes, _BUSY])
            except Exception:
                # An index file became unreadable (damaged, or replaced under us by
                # another process): reopen it; failing that, rebuild it.
                if attempt == 3:
                    raise
                notes.clear()
                with self._write_lock:
                    store = self._store
                    if store is None:
                        raise
                    store.reset()
                    if attempt == 2:
                        try:
                            store.create(force=True)
                        except IndexBusy:
                            return Hits((), [_BUSY])
                        self._update(store, None, None, None, full=False)
        return Hits()  # pragma: no cover - the loop always returns or raises

    def _search(self, store, query: str, scope: str, limit: int, notes: list[str]) -> list[Hit]:
        from wikitui.core.search.documents import search_text
        from wikitui.core.search.whoosh.fast.scoring import stored_fields, top_docs
        from wikitui.core.search.whoosh.expand import prepare_query
        from wikitui.core.search.whoosh.schema import parse_query
        from wikitui.core.search.whoosh.snippets import SnippetMaker, highlight_terms

        with store.read_lock:
            q = parse_query(store, query, notes)
            if type(q).__name__ == "_NullQuery":
                return []
            searcher = store.searcher()
            if not searcher.doc_count_all():
                return []  # a first build not committed yet (BM25's idf is undefined on no documents)
            q = prepare_query(q, searcher.reader())
            allowed = store.scope_filter(scope)
            if allowed is not None and not allowed:
                return []  # nothing of that kind (Whoosh would read an empty filter as none)
            best = top_docs(searcher, q, limit, allowed)
            if best is not None:
                stored = stored_fields(searcher, [docnum for docnum, _score in best])
                rows = [(fields, score) for fields, (_docnum, score) in zip(stored, best)]
            else:  # a query shape the direct scorer leaves to Whoosh (a lone NOT, words with +)
                results = searcher.search(q, limit=limit, filter=allowed)
                rows = [(hit.fields(), float(hit.score)) for hit in results]
            terms = highlight_terms(q, searcher.reader()) if rows else frozenset()
        snippets = SnippetMaker(terms, store.analyzer)
        hits = []
        root = str(self.vault.root)
        for fields, score in rows:
            path, kind = fields["path"], fields["kind"]
            doc = search_text(root, path, kind, fields.get("body_line", 1), head=SNIPPET_HEAD)
            found = snippets.find(doc) if doc is not None else None
            if found is None and doc is not None and doc.partial:  # no match near the top: read it all
                doc = search_text(root, path, kind, fields.get("body_line", 1))
                found = snippets.find(doc) if doc is not None else None
            snippet, line = found if found is not None else (snippets.fallback(fields.get("summary", ""), doc), None)
            hits.append(Hit(path, kind, fields.get("title") or path, score, snippet, line))
        return hits

    # ---------------------------------------------------------------- closing
    def close(self) -> None:
        """Close the searcher and forget the open index (it reopens on next use)."""
        with self._write_lock:
            if self._store is not None:
                self._store.reset()

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
