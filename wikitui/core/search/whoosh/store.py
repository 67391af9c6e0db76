"""The Whoosh index on disk: opening, validating, (re)creating, writers and searchers.

The index is a cache of the vault, so anything wrong with it is answered by
creating it again: a missing folder, an index of another schema version (the
version is part of the index's name, so an old one is simply not found), or files
that do not read (garbage in the table of contents or a segment).

Every document's path, mtime and size (the *manifest*) is what an incremental
update compares the vault against; a file whose time changed but whose size did
not is then compared by a digest of its bytes, so one only touched is not
re-indexed. Reading it from the index's stored fields
costs tens of milliseconds on a large vault (and proves they read), so a copy is
kept beside the index in ``manifest.pickle`` together with the generation and the
size and mtime of every index file it was written for: it is used only while all
of them still match, so another process's commit, a file written into the index
or a half-written copy all fall back to reading the index itself.

A writer killed midway (``timeout``, SIGKILL, a crash) leaves the previous
generation whole, since Whoosh writes a new table of contents only once a
segment is complete, and renames it into place. What it leaves besides (its temp
folder, a temp table of contents, unused segment files) is swept away by the
next process that opens the index and can take its write lock. The folder is
never wiped while another process holds that lock: an index being written is
not damaged, only unfinished.

This module imports Whoosh; the backend imports it only when a search or an update runs.
"""

from __future__ import annotations

import os
import pickle
import threading
from pathlib import Path
from typing import Any

from whoosh import index
from whoosh.util.filelock import try_for

from wikitui.core.search.documents import read_head
from wikitui.core.search.results import IndexBusy
from wikitui.core.search.whoosh.analysis import LANGUAGES, detect_language
from wikitui.core.search.whoosh.folder import MANIFEST as _MANIFEST
from wikitui.core.search.whoosh.folder import (
    empty_folder,
    ensure_lock_file,
    file_lock,
    has_litter,
    index_files,
    lock_name,
    sweep_folder,
)
from wikitui.core.search.whoosh.schema import build_schema, make_parser
from wikitui.core.vault.layout import Vault

#: Pages sampled to detect a vault's language.
_LANGUAGE_SAMPLE = 60
#: The fields an index of this version has.
_FIELD_NAMES = sorted(build_schema("en").names())


def merge_policy(writer, segments):
    """Whoosh's merge policy (small segments merged now and then), dead segments dropped.

    A segment whose documents were all replaced since (every file touched, say
    after a checkout changed their times) holds nothing, yet Whoosh keeps it, and
    every word of every search is looked up in it until the index is optimised.
    """
    from whoosh.writing import MERGE_SMALL

    return MERGE_SMALL(writer, [seg for seg in segments if seg.doc_count() > 0])


class IndexStore:
    """One vault's Whoosh index folder and what is open on it.

    Not thread-safe for writing by itself: :class:`~wikitui.core.search.facade.SearchIndex`
    serialises writers; searches share :attr:`read_lock` with searcher swaps.

    Args:
        vault: The vault.
        index_name: Whoosh index name (carries the schema version).
        lock_timeout: Seconds to wait for another process's writer.
    """

    def __init__(self, vault: Vault, index_name: str, lock_timeout: float) -> None:
        self._path: Path | None = None
        self.vault = vault
        self.index_name = index_name
        self.lock_timeout = lock_timeout
        #: The open Whoosh index (None until :meth:`open`); Any: Whoosh has no hints.
        self.ix: Any = None
        #: The open index's schema (None until :meth:`open`).
        self.schema = None
        self.analyzer = None
        self._parser = None
        #: path -> (mtime_ns, size) of every indexed file.
        self.manifest: dict[str, tuple[int, int]] = {}
        #: Set when the index was created empty; read and cleared by :meth:`take_created`.
        self.created = False
        #: Held while a search uses the searcher or the searcher is replaced.
        self.read_lock = threading.RLock()
        self._gen = -1
        self._searcher = None
        self._scope_sets: dict[str, set[int]] = {}

    @property
    def parser(self):
        """The query parser (built on first use: most queries never need it, and it compiles a dozen regexes)."""
        if self._parser is None:
            self._parser = make_parser(self.schema)
        return self._parser

    @property
    def path(self) -> Path:
        """The index folder (``.wikitui/index/``, or the user's cache for a read-only vault: ``Vault.index_dir``)."""
        path = self._path
        if path is None:  # asked once: the folder's writability is checked by the kernel each time
            path = self._path = self.vault.index_dir
        return path

    # ---------------------------------------------------------------- opening
    def open(self) -> None:
        """Open the index, creating it when missing, of another version, or unreadable."""
        if self.ix is None and not self.try_open():
            self.create()

    def try_open(self) -> bool:
        """Open the existing index; False when there is none or it does not read."""
        folder = str(self.path)
        try:
            if not index.exists_in(folder, indexname=self.index_name):
                return False
            self._adopt(index.open_dir(folder, indexname=self.index_name), sweep=True)
            return True
        except Exception:  # garbage in the TOC or a segment: the caller recreates it
            return False

    def _adopt(self, ix, *, sweep: bool = False) -> None:
        """Use ``ix``: read its schema and manifest (from the index itself unless the copy is current).

        With ``sweep``, what a killed writer left in the folder is removed first
        (see :func:`~wikitui.core.search.whoosh.folder.sweep_folder`).

        Raises:
            ValueError: the index's fields are not this version's (an index written
                by a development build): it must be recreated.
        """
        # Whoosh re-reads the table of contents on every access (ix.schema, ix.latest_generation()...): read it once.
        toc = index.TOC.read(ix.storage, ix.indexname)
        schema, gen = toc.schema, toc.generation
        if sorted(schema.names()) != _FIELD_NAMES:
            raise ValueError(f"index fields {schema.names()} are not {_FIELD_NAMES}")
        if sweep and has_litter(self.path, self.index_name, gen, {seg.segment_id() for seg in toc.segments}):
            sweep_folder(self.path, self.index_name)
        manifest = self._read_manifest_copy(gen)
        copy_current = manifest is not None
        if manifest is None:
            with ix.reader() as reader:
                manifest = {f["path"]: (f["mtime"], f["size"]) for f in reader.all_stored_fields()}
        self.close_searcher()
        self.ix, self._gen, self.manifest = ix, gen, manifest
        self.schema, self._parser = schema, None
        self.analyzer = schema["body"].analyzer
        if not copy_current:
            self._save_manifest_copy()

    def _read_manifest_copy(self, gen: int) -> dict[str, tuple[int, int]] | None:
        try:
            with open(self.path / _MANIFEST, "rb") as fh:
                data = pickle.load(fh)
            if (data["name"], data["gen"]) == (self.index_name, gen) and data["files"] == index_files(self.path, self.index_name):
                return data["manifest"]
        except Exception:  # missing, stale, foreign or torn: read the index instead
            pass
        return None

    def _save_manifest_copy(self) -> None:
        data = {"name": self.index_name, "gen": self._gen, "files": index_files(self.path, self.index_name), "manifest": self.manifest}
        tmp = self.path / f"{_MANIFEST}.{os.getpid()}.{threading.get_ident()}"
        try:
            # No fsync: a torn copy after a crash is detected and ignored.
            tmp.write_bytes(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(tmp, self.path / _MANIFEST)
        except OSError:
            tmp.unlink(missing_ok=True)

    def create(self, lang: str | None = None, *, force: bool = False) -> None:
        """Empty the folder and create an empty index for ``lang`` (default: the vault's).

        Another process may be creating it at the same moment (the TUI and a
        ``wikitui search`` started together): a lock file beside the folder makes
        one wait, and the waiter then opens what the other created instead of
        wiping it, unless ``force`` (the index is known to be damaged) or ``lang``
        (a different language was asked for). Nor is the folder emptied while
        another process holds the index's write lock (it is building the index):
        then the index is opened as it is, once it opens.

        Raises:
            IndexBusy: the index does not open and another process kept its write
                lock for ``lock_timeout`` seconds.
        """
        self.reset()
        folder = self.path
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.mkdir(exist_ok=True)
        lock = file_lock(folder.parent / "index.lock")
        # flock locks die with their process, so a timeout means a live creator: rare and brief.
        timeout = max(self.lock_timeout, 0.5)
        locked = try_for(lock.acquire, timeout=timeout, delay=0.02)
        try:
            if lang is None and not force and self.try_open():
                self.created = False
                return
            writelock = file_lock(folder / lock_name(self.index_name))
            if not try_for(writelock.acquire, timeout=timeout, delay=0.05):
                if self.try_open():  # the writer committed meanwhile
                    self.created = False
                    return
                raise IndexBusy(f"another process is writing the search index in {folder}")
            try:
                empty_folder(folder, keep=lock_name(self.index_name))
                schema = build_schema(lang or self.language())
                self._adopt(index.create_in(str(folder), schema, indexname=self.index_name))
                self.created = True
            finally:
                writelock.release()
        finally:
            if locked:
                lock.release()

    def take_created(self) -> bool:
        """Whether the index was created empty since the last call."""
        created, self.created = self.created, False
        return created

    def language(self) -> str:
        """The language to analyse text in: ``[search] language`` in the vault config, else detected."""
        configured = self.vault.read_vault_config().get("search", {})
        lang = configured.get("language") if isinstance(configured, dict) else None
        if isinstance(lang, str) and lang.lower()[:2] in LANGUAGES:
            return lang.lower()[:2]
        pages, raws, _ = self.vault.scan()
        files = pages or raws
        step = max(1, len(files) // _LANGUAGE_SAMPLE)  # spread the sample across the vault

        def samples():
            for fs in files[::step]:
                try:
                    yield read_head(self.vault.root / fs.path)[:20_000].decode("utf-8", "replace")
                except OSError:
                    continue

        return detect_language(samples())

    def sync(self) -> None:
        """Re-read the manifest when another process committed since we last looked."""
        if self.ix.latest_generation() != self._gen:
            try:
                self._adopt(self.ix)
            except Exception:
                self.create(force=True)

    def reset(self) -> None:
        """Forget the open index (the next :meth:`open` reads it again)."""
        self.close_searcher()
        self.ix = None

    # ---------------------------------------------------------------- writing
    def writer(self):
        """A Whoosh writer, waiting up to ``lock_timeout`` for another process's.

        Raises:
            whoosh.index.LockError: still locked after the timeout.
        """
        from whoosh.codec.whoosh3 import W3Codec

        # Uncompressed posting blocks: a one-page commit takes half the time (Whoosh
        # zlib-compresses every term's block, however small) and searches skip the
        # decompression; the index grows by about a third.
        codec = W3Codec(compression=0)
        ensure_lock_file(self.path / lock_name(self.index_name))  # Whoosh's own open would make it 0755
        return self.ix.writer(timeout=self.lock_timeout, delay=0.05, limitmb=256, codec=codec)

    def commit(self, writer, *, removed=(), indexed=(), clear: bool = False, **kwargs) -> None:
        """Commit ``writer`` and record the change in the manifest.

        Args:
            writer: The writer to commit.
            removed: Paths deleted.
            indexed: :class:`~wikitui.core.vault.layout.FileStat` of the files written.
            clear: The commit replaced every document (a rebuild).
            **kwargs: For ``writer.commit`` (``mergetype``, ``optimize``).
        """
        if not kwargs:
            kwargs["mergetype"] = merge_policy
        writer.commit(**kwargs)
        self._gen = self.ix.latest_generation()
        if clear:
            self.manifest = {}
        for path in removed:
            self.manifest.pop(path, None)
        for fs in indexed:
            self.manifest[fs.path] = (fs.mtime_ns, fs.size)
        # Not Searcher.refresh(): whoosh-reloaded 2.7.5's reader reuse keeps the
        # segments a merge replaced, so merged documents would appear twice.
        self.close_searcher()
        self._save_manifest_copy()

    def indexed_digest(self, path: str) -> bytes | None:
        """The digest of the bytes ``path`` was indexed from (None when unknown).

        Read from the document's stored fields, only for a file whose time moved
        but not its size: rare enough not to keep every digest in memory (they
        would double the manifest's copy, read by every ``wikitui search``).
        """
        with self.read_lock:
            searcher = self.searcher()
            docnum = searcher.document_number(path=path)
            return None if docnum is None else searcher.stored_fields(docnum).get("digest")

    def record_unchanged(self, files) -> None:
        """Record the new times of files whose bytes are those indexed (nothing to commit).

        Kept in the manifest's copy, so the next process does not compare them
        again; should the copy be lost, the digests show them unchanged once more.
        """
        for fs in files:
            self.manifest[fs.path] = (fs.mtime_ns, fs.size)
        self._save_manifest_copy()

    # -------------------------------------------------------------- searching
    def searcher(self):
        """The open searcher (call with :attr:`read_lock` held)."""
        if self._searcher is None:
            self._searcher = self.ix.searcher()
        return self._searcher

    def follow_commits(self) -> None:
        """Reopen the searcher when another process committed since it opened (call with :attr:`read_lock` held).

        This process's own commits reopen it already; another's (``wikitui index``
        in a terminal) would otherwise stay unseen by a long-lived workspace.
        """
        searcher = self._searcher
        if searcher is None:
            return
        try:
            current = searcher.up_to_date()  # one listing of the index folder
        except Exception:  # the folder vanished or is being replaced: reopen to find out
            current = False
        if not current:
            self.close_searcher()

    def close_searcher(self) -> None:
        """Close the searcher; a search in progress finishes first."""
        with self.read_lock:
            if self._searcher is not None:
                try:
                    self._searcher.close()
                except Exception:  # closing a reader of deleted files: nothing to save
                    pass
            self._searcher = None
            self._scope_sets = {}

    def scope_filter(self, scope: str) -> set[int] | None:
        """Documents of one kind for ``scope`` "wiki" or "raw" (cached per searcher); None for "all"."""
        if scope == "all":
            return None
        cached = self._scope_sets.get(scope)
        if cached is None:
            from whoosh.query import Term

            kind = "page" if scope == "wiki" else "raw"
            cached = set(Term("kind", kind).docs(self.searcher()))
            self._scope_sets[scope] = cached
        return cached
