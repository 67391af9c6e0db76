"""The Whoosh backend: the index under ``.wikitui/index/``, kept current and searched.

- An update re-indexes only files whose mtime or size changed (or, when only the
  time moved, whose bytes changed) and drops vanished ones; nothing changed, no
  writer is opened.
- A missing, corrupt or older-schema index is rebuilt, never a crash.
- One writer at a time: in-process writers take a lock, other processes are waited
  for (Whoosh's file lock) for up to ``lock_timeout`` seconds, after which the
  update is skipped (``UpdateStats.busy``) and the existing index still answers.
- A searcher stays open between queries and is reopened after each commit.

The fast path (:mod:`wikitui.core.search.whoosh.fast`) is used when the installed
Whoosh is the version it was written for, else Whoosh's own searcher answers.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from wikitui.core.base.errors import BadQuery
from wikitui.core.search.results import Hit, IndexBusy, UpdateStats
from wikitui.core.search.whoosh import indexing
from wikitui.core.vault.layout import Vault

if TYPE_CHECKING:  # the store imports Whoosh: only on first use
    from wikitui.core.search.whoosh.store import IndexStore

#: Bump when the schema or the analysis changes: older indexes are then rebuilt.
SCHEMA_VERSION = 5
#: The note of a search that could not open the index while another process rebuilds it.
BUSY_NOTE = "the search index is being rebuilt by another wikitui process; search again in a moment"


def index_name() -> str:
    """The Whoosh index name: it carries the schema version, so an old index is never opened."""
    return f"wikitui_v{SCHEMA_VERSION}"


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


class WhooshBackend:
    """A :class:`~wikitui.core.search.backend.Backend` on a Whoosh index.

    Args:
        vault: The vault indexed.
        lock_timeout: Seconds to wait for another process's writer before skipping.
        fast: Use the fast path (True), never (False), or when the installed
            Whoosh is the version it was written for (None, the default).
    """

    def __init__(self, vault: Vault, *, lock_timeout: float = 2.0, fast: bool | None = None) -> None:
        self.vault = vault
        self.lock_timeout = lock_timeout
        self._fast_wanted = fast
        #: Whether searches use the fast path (decided when Whoosh is first imported).
        self.fast = False
        self._store: IndexStore | None = None
        self._write_lock = threading.Lock()

    @property
    def language(self) -> str:
        """The language the index analyses text in (two letters, e.g. "de")."""
        return self.store().analyzer.lang

    def store(self):
        """The open :class:`~wikitui.core.search.whoosh.store.IndexStore` (created when missing, old or corrupt)."""
        store = self._store
        if store is None or store.ix is None:
            with self._write_lock:
                if self._store is None:
                    from wikitui.core.search.whoosh.fast import available
                    from wikitui.core.search.whoosh.fast.loader import import_whoosh

                    self.fast = available() if self._fast_wanted is None else self._fast_wanted
                    import_whoosh(fast=self.fast)
                    from wikitui.core.search.whoosh.store import IndexStore

                    self._store = IndexStore(self.vault, index_name(), self.lock_timeout)
                self._store.open()
                store = self._store
        return store

    # --------------------------------------------------------------- updating
    @_unless_busy(lambda: UpdateStats(busy=True))
    def update(self, files, infos, *, full, progress=None, cancel=None) -> UpdateStats:
        """See :meth:`wikitui.core.search.backend.Backend.update`."""
        store = self.store()
        with self._write_lock:
            return indexing.update(store, self.vault, files, infos, progress, cancel, full=full)

    @_unless_busy(lambda: UpdateStats(busy=True))
    def update_paths(self, files, absent, infos) -> UpdateStats:
        """See :meth:`wikitui.core.search.backend.Backend.update_paths`."""
        store = self.store()
        with self._write_lock:
            return indexing.update_paths(store, self.vault, files, absent, infos)

    @_unless_busy(int)
    def segment_count(self) -> int:
        """How many segments the index has (1 after :meth:`optimize` or a rebuild)."""
        from whoosh.index import TOC

        store = self.store()
        store.open()
        return len(TOC.read(store.ix.storage, store.ix.indexname).segments)

    @_unless_busy(bool)
    def optimize(self) -> bool:
        """Merge all segments into one; False when another process held the index."""
        from whoosh.index import LockError

        store = self.store()
        with self._write_lock:
            store.open()
            try:
                writer = store.writer()
            except LockError:
                return False
            store.commit(writer, optimize=True)
            return True

    # -------------------------------------------------------------- searching
    def search(self, query: str, scope: str, limit: int, notes: list[str], *, snippets: bool = True) -> list[Hit]:
        """See :meth:`wikitui.core.search.backend.Backend.search`.

        Should reading the index fail mid-search, it is reopened, and failing
        that rebuilt before answering.
        """
        from wikitui.core.search.whoosh.querying import run_query

        for attempt in (1, 2, 3):
            try:
                store = self.store()
                return run_query(store, str(self.vault.root), query, scope, limit, notes, fast=self.fast,
                                 snippets=snippets)
            except BadQuery:
                raise
            except IndexBusy:
                notes.append(BUSY_NOTE)
                return []
            except Exception:
                # An index file became unreadable (damaged, or replaced under us by
                # another process): reopen it; failing that, rebuild it.
                if attempt == 3 or self._store is None:
                    raise
                notes.clear()
                if not self._recover(full=attempt == 2):
                    notes.append(BUSY_NOTE)
                    return []
        return []  # pragma: no cover - the loop always returns or raises

    def _recover(self, *, full: bool) -> bool:
        """Reopen the index (``full``: create it again and re-index); False when another process holds it."""
        with self._write_lock:
            store = self._store
            assert store is not None  # the caller checked: a search that failed had opened the store
            store.reset()
            if full:
                try:
                    store.create(force=True)
                except IndexBusy:
                    return False
                pages, raws, _ = self.vault.scan()
                files = [(fs, "page") for fs in pages] + [(fs, "raw") for fs in raws]
                indexing.update(store, self.vault, files, {}, None, None, full=False)
        return True

    # ---------------------------------------------------------------- closing
    def close(self) -> None:
        """Close the searcher and forget the open index (it reopens on next use)."""
        with self._write_lock:
            if self._store is not None:
                self._store.reset()
