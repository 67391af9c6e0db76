"""Importing Whoosh: quickly, and with one costly copy taken out (the fast path's own import).

``wikitui search`` is scripted by other tools, so its start-up counts; Whoosh's
import is most of it. Both tricks here depend on Whoosh's internals (which modules
it imports, and the class its compound files open parts with), so
:func:`import_whoosh` applies them only when asked to (``fast=True``: the backend
checked the version, see :func:`wikitui.core.search.whoosh.fast.available`).
What they buy (``bench/search_fast_path.py``, 2026-12-01, a shared 2-core VM
with the load near 1.7, so read the ratios): the stand-ins cut Whoosh's import
from 78 to 32 ms, nearly half of a ``wikitui search`` run; reading in place cuts
the first search after a one-page commit from 31 to 13 ms on a generated
2,000-page vault and from 23 to 16 ms on vault-large (Whoosh copies every part it
opens: on 10,000 pages 100-200 ms and tens of MB per commit).

This module imports nothing heavy itself.
"""

from __future__ import annotations

import functools
import sys
import threading
import types


def _lazy_function(module: str, name: str):
    """A function that imports ``module`` (the real one) on its first call and delegates."""

    def call(*args, **kwargs):
        import importlib

        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = name
    return call


def import_whoosh(*, fast: bool = True) -> None:
    """Import the Whoosh modules the backend needs; with ``fast``, without three it never uses (~50 ms of start-up).

    ``whoosh.compat`` imports ``urllib.request`` (ssl, http, email) for a download
    helper nothing calls; ``whoosh.reading`` imports the ``cached_property``
    backport, which imports asyncio, for one plain cached attribute; and
    ``whoosh.query.terms`` imports the English morphology tables for the
    ``Variations`` query, which wikitui does not use. In a single-threaded process
    (``wikitui search``) stand-ins sit in ``sys.modules`` while Whoosh loads and
    are removed right after, so any later import gets the real modules (and the
    stand-in functions load them if ever called). With other threads running (the
    TUI) another import could see a stand-in, so Whoosh is then imported plainly.
    With ``fast`` (only for the version this was written for), index files are
    also read in place (:func:`_no_copy_on_open`); without, Whoosh is untouched.
    """
    if not fast:
        import whoosh.query  # noqa: F401
        import whoosh.reading  # noqa: F401

        return
    if "whoosh.reading" in sys.modules or threading.active_count() > 1:
        import whoosh.query  # noqa: F401
        import whoosh.reading  # noqa: F401

        _no_copy_on_open()
        return
    # Kept because it pays (issue 22's rule: a tenth of a wait a user sees): bench/search_fast_path.py on
    # 2026-12-02 (load 4.6-7.2, 2 shared cores) imports Whoosh in 29 ms with these stand-ins, 77 ms without;
    # `wikitui search` without a workspace on vault-large, from process start, took 146 ms median with them
    # and 176 ms without (30 runs interleaved), so they save about a fifth of it.
    wanted = {
        "urllib.request": {"urlretrieve": _lazy_function("urllib.request", "urlretrieve")},
        "cached_property": {"cached_property": functools.cached_property},
        "whoosh.lang.morph_en": {"variations": _lazy_function("whoosh.lang.morph_en", "variations")},
    }
    stubs: dict[str, types.ModuleType] = {}
    for name, attrs in wanted.items():
        if name not in sys.modules:
            stubs[name] = types.ModuleType(name)
            stubs[name].__dict__.update(attrs)
    sys.modules.update(stubs)
    try:
        import whoosh.query  # noqa: F401
        import whoosh.reading  # noqa: F401
    finally:
        for name, module in stubs.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
    _no_copy_on_open()


#: Bytes :meth:`_ViewReader.peek` returns.
_PEEK = 512


class _ViewReader:
    """A read-only binary file over a memoryview: what ``BytesIO`` offers readers, without the copy."""

    def __init__(self, buf) -> None:
        self._buf = buf
        self._pos = 0

    def read(self, n: int | None = -1) -> bytes:
        start = self._pos
        end = len(self._buf) if n is None or n < 0 else min(len(self._buf), start + n)
        self._pos = end
        return self._buf[start:end].tobytes()

    def peek(self, n: int = 0) -> bytes:
        """Bytes ahead without moving (a few hundred at most: all ``pickle.load`` looks at).

        With ``peek``, the unpickler reads a block's small pickles in two calls
        instead of one per opcode.
        """
        start = self._pos
        return self._buf[start : start + _PEEK].tobytes()

    def readinto(self, target) -> int:
        data = self.read(len(target))
        target[: len(data)] = data
        return len(data)

    def readline(self, limit: int = -1) -> bytes:
        out = bytearray()
        while limit < 0 or len(out) < limit:
            chunk = self.read(256 if limit < 0 else min(256, limit - len(out)))
            if not chunk:
                break
            nl = chunk.find(b"\n")
            if nl != -1:
                self._pos -= len(chunk) - nl - 1
                out += chunk[: nl + 1]
                break
            out += chunk
        return bytes(out)

    def seek(self, pos: int, whence: int = 0) -> int:
        base = (0, self._pos, len(self._buf))[whence]
        self._pos = max(0, base + pos)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def close(self) -> None:
        self._buf = memoryview(b"")


def _no_copy_on_open() -> None:
    """Stop Whoosh copying every index file it opens.

    A segment is one compound file read through an mmap; each part opened from it
    becomes a ``BufferFile``, which wraps the memory in ``BytesIO``, and that
    copies it. Every reader opened after a commit copied the term table and
    postings: 100-200 ms and tens of MB on a 10,000-page vault, paid by every
    one-page update (Whoosh opens a reader to delete the old version) and by the
    first search after it. The parts now read the mmap directly.
    """
    from whoosh.filedb import compound, structfile

    if compound.BufferFile is not structfile.BufferFile:
        return  # done already

    class ViewBufferFile(structfile.BufferFile):
        """A ``BufferFile`` whose sequential reads go straight to its buffer."""

        def __init__(self, buf, name=None, onclose=None):
            super().__init__(b"", name=name, onclose=onclose)
            self._buf = buf
            self.file = _ViewReader(buf)

    compound.BufferFile = ViewBufferFile
