"""The index folder's files: which belong to the index, and what a killed writer left behind.

Whoosh writes a segment's files, then a table of contents under a temp name that
it renames into place, then deletes what the new generation no longer uses. A
writer killed midway (``timeout``, SIGKILL, a crash, power kept) therefore leaves
the previous generation whole, plus litter: its temp folder (``<name>.tmp/``, with
``.ctmp`` files), a temp table of contents (``_<name>_<gen>.toc.<time>``), segment
files no table of contents names, an older table of contents. Whoosh removes
only the last two, and only on its next commit. :func:`sweep_folder` removes all
of it as soon as no writer is at work.

Another process's writer creates and deletes such files while this one looks, so
every listing here tolerates a file vanishing under it.

This module imports Whoosh; the backend imports it when the index is first opened.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from whoosh import index
from whoosh.index import TOC
from whoosh.util.filelock import FileLock

#: The manifest's copy beside the index (Whoosh's clean-up leaves other names alone).
MANIFEST = "manifest.pickle"


def _toc_pattern(index_name: str) -> re.Pattern:
    """A table of contents' file name, ``_<name>_<generation>.toc`` (Whoosh 2's file layout)."""
    return re.compile(rf"^_{re.escape(index_name)}_([0-9]+)\.toc$")


def _segment_pattern(index_name: str) -> re.Pattern:
    """A segment file's name, ``<name>_<segment id>.<ext>``; group 1 is the segment's id (Whoosh 2's file layout)."""
    return re.compile(rf"({re.escape(index_name)}_[0-9a-z]+)[.][A-Za-z0-9_.]+")


def lock_name(index_name: str) -> str:
    """The file Whoosh's write lock is taken on."""
    return f"{index_name}_WRITELOCK"


def file_lock(path: Path | str) -> FileLock:
    """A Whoosh file lock on ``path``, whose file is made ``0666 & ~umask`` (0644 usually) if it is missing.

    Whoosh's own ``os.open`` gives no mode, so a lock file it creates would be
    ``0777 & ~umask`` (0755: executable), unlike every other file wikitui makes.
    """
    ensure_lock_file(path)
    return FileLock(str(path))


def ensure_lock_file(path: Path | str) -> None:
    """Create the (empty) lock file ``path`` as ``0666 & ~umask`` before Whoosh opens it; an existing one is kept."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o666))
    except OSError:
        pass  # a read-only index folder: the lock's own open reports it


def index_files(folder: Path, index_name: str) -> dict[str, tuple[int, int]]:
    """Size and mtime of every file of the index in ``folder`` (tables of contents and segments).

    Locks, the manifest's copy and writers' temp files are left out, and a file
    gone before it is looked at (another process's commit) is skipped.
    """
    toc, seg = _toc_pattern(index_name), _segment_pattern(index_name)
    out = {}
    with os.scandir(folder) as it:
        for entry in it:
            name = entry.name
            if not (toc.match(name) or seg.match(name)):
                continue
            try:
                st = entry.stat()
            except FileNotFoundError:
                continue
            out[name] = (st.st_size, st.st_mtime_ns)
    return out


def has_litter(folder: Path, index_name: str, gen: int, segment_ids: set[str]) -> bool:
    """Whether ``folder`` holds more than generation ``gen`` (its segments), the lock and the manifest's copy."""
    keep = {f"_{index_name}_{gen}.toc", MANIFEST, lock_name(index_name)}
    seg = _segment_pattern(index_name)
    for name in os.listdir(folder):
        if name in keep:
            continue
        m = seg.match(name)
        if m is None or m.group(1) not in segment_ids:
            return True
    return False


def sweep_folder(folder: Path, index_name: str) -> bool:
    """Remove what a killed writer left in ``folder``, if no writer is at work now.

    Returns whether the write lock was free (and the folder swept). A table of
    contents that does not read leaves everything as it is: the caller's next
    ``create()`` empties the folder.
    """
    from whoosh.filedb.filestore import FileStorage

    lock = file_lock(folder / lock_name(index_name))
    try:
        if not lock.acquire():
            return False
    except OSError:
        return False
    try:
        storage = FileStorage(str(folder))
        # The latest generation, read again under the lock: another process may have committed since.
        toc = TOC.read(storage, index_name)
        index.clean_files(storage, index_name, toc.generation, toc.segments)
        temp_toc = re.compile(rf"_{re.escape(index_name)}_\d+\.toc\.[\d.]+$")
        for name in os.listdir(folder):
            path = folder / name
            if name.endswith(".tmp") and path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            elif temp_toc.match(name) or name.startswith(MANIFEST + "."):
                path.unlink(missing_ok=True)
        return True
    except Exception:  # a table of contents that does not read, or a file in use: try again next time
        return False
    finally:
        lock.release()


def empty_folder(folder: Path, keep: str) -> None:
    """Remove everything in ``folder`` but the file named ``keep`` (the write lock, held meanwhile)."""
    with os.scandir(folder) as it:
        entries = list(it)
    for entry in entries:
        if entry.name == keep:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            try:
                os.unlink(entry.path)
            except FileNotFoundError:
                pass
