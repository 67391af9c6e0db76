"""Writing the Whoosh index: what changed since the last commit, indexed in one writer.

Both functions run with the backend's write lock held, on an open
:class:`~wikitui.core.search.whoosh.store.IndexStore`.
"""

from __future__ import annotations

import time

from wikitui.core.search.results import UpdateStats
from wikitui.core.vault.layout import FileStat, Vault

#: Files indexed between two progress reports.
PROGRESS_EVERY = 25


def update(store, vault: Vault, files: list, infos: dict, progress, cancel, *, full: bool) -> UpdateStats:
    """Make the index hold exactly ``files`` (see :meth:`~wikitui.core.search.backend.Backend.update`)."""
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
    current: dict[str, tuple[FileStat, str]] = {fs.path: (fs, kind) for fs, kind in files}
    manifest = store.manifest
    if full:
        todo = list(current.values())
    else:
        todo = [(fs, kind) for path, (fs, kind) in current.items() if manifest.get(path) != (fs.mtime_ns, fs.size)]
        todo = skip_unchanged(store, vault, todo, stats)
    gone = [path for path in manifest if path not in current]
    if not todo and not gone and not full:
        return _finish(stats, store, started)
    try:
        writer = store.writer()
    except LockError:
        stats.busy = True
        return _finish(stats, store, started)
    # A rebuild of a healthy index writes one segment that replaces all others on commit.
    fresh = full and bool(manifest) and not created
    done = index_files(store, vault, writer, todo, [] if fresh else gone, infos, stats, progress, cancel,
                       replace=not full)
    if fresh and stats.cancelled:
        writer.cancel()  # the previous index stays whole
        return _finish(stats, store, started)
    if fresh:
        stats.removed = len(gone)
        store.commit(writer, indexed=done, clear=True, mergetype=CLEAR)
    else:
        store.commit(writer, removed=gone, indexed=done)
    return _finish(stats, store, started)


def update_paths(store, vault: Vault, files: list, absent: list[str], infos: dict) -> UpdateStats:
    """Re-index ``files``; drop the ``absent`` paths the index holds."""
    from whoosh.index import LockError

    started = time.perf_counter()
    store.open()
    store.sync()
    stats = UpdateStats(rebuilt=store.take_created())
    gone = [rel for rel in absent if rel in store.manifest]
    todo = skip_unchanged(store, vault, files, stats)
    if not todo and not gone:
        return _finish(stats, store, started)
    try:
        writer = store.writer()
    except LockError:
        stats.busy = True
        return _finish(stats, store, started)
    # These come from the watcher while the app runs: a new PDF's conversion runs in a child process
    # (pure-Python parsers would hold the app's interpreter lock), with a time limit.
    done = index_files(store, vault, writer, todo, gone, infos, stats, None, None)
    store.commit(writer, removed=gone, indexed=done)
    return _finish(stats, store, started)


def skip_unchanged(store, vault: Vault, todo: list, stats: UpdateStats) -> list:
    """``todo`` without the files whose time changed but not their bytes (recorded as such in ``store``).

    A checkout, a sync tool or ``touch`` gives many files a new time and the
    same bytes: comparing a digest of what would be indexed (a read and a
    hash, ~20 µs) saves re-indexing them (~2 ms each).
    """
    from wikitui.core.search.documents import file_digest

    manifest = store.manifest
    root = vault.root
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


def index_files(store, vault: Vault, writer, todo, gone, infos, stats, progress, cancel, *, replace=True) -> list:
    """Add, replace (when ``replace``) and delete documents; returns the files indexed.

    PDFs, web pages and documents not in the text cache are converted in one child
    process kept for the run, each with a time limit (:class:`Converter`): a file that
    hangs its parser costs that limit, is indexed by its name and reason, and is noted
    in ``stats.notes``; the build goes on.
    """
    from wikitui.core.vault.formats.isolated import Converter

    with Converter() as converter:
        done = _index_files(store, vault, writer, todo, gone, infos, stats, progress, cancel, replace, converter)
    stats.notes = list(converter.stopped)
    return done


def _index_files(store, vault, writer, todo, gone, infos, stats, progress, cancel, replace, converter) -> list:
    from wikitui.core.search.documents import page_document, raw_document

    root = vault.root
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
            doc = raw_document(root, fs.path, fs.mtime_ns, fs.size, isolate=converter)
        if replace and fs.path in manifest:
            writer.update_document(**doc)
            stats.updated += 1
        else:
            writer.add_document(**doc)
            stats.added += 1
        done.append(fs)
        if progress is not None and (i + 1) % PROGRESS_EVERY == 0:
            progress(i + 1, total)
    if progress is not None:
        progress(len(done), total)
    return done


def _finish(stats: UpdateStats, store, started: float) -> UpdateStats:
    stats.total = len(store.manifest)
    stats.seconds = time.perf_counter() - started
    return stats
