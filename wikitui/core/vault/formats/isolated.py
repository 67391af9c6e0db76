"""Converting sources in a child process, with a time limit per file.

Parsers of PDFs and Office files are large, and a hostile or broken file can send
one into a loop; a thread cannot be stopped, a process can. A :class:`Converter`
runs :func:`dispatch.convert_file` in a child interpreter (``python -m
wikitui.core.vault.formats.isolated_child``) and kills it when one file takes longer
than ``timeout``; the next file gets a fresh child. One child converts a run of
files (an index build's), so the process start and the format library's import (a
fraction of a second to ~2 s) are paid once, not per file. :func:`convert_isolated`
is the one-file case (the viewer, the agent's ``read``).

The result comes back as a frame (:func:`isolated_child.frame`): a short JSON line,
then the text, read here in chunks of :data:`READ_CHUNK` bytes and decoded chunk by
chunk. So the thread that waits for a conversion never holds the interpreter lock
for long: the workspace's UI thread keeps drawing frames while a 50 MB file converts.
"""

from __future__ import annotations

import codecs
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

from wikitui.core.vault.formats.conversion import Conversion, failed
from wikitui.core.vault.formats.kinds import kind_of

#: Seconds a conversion may take in the child.
TIMEOUT = 120.0
#: Bytes read from the child at a time (each read and its decoding is a short step).
READ_CHUNK = 64 * 1024
#: The environment variable in which the child is given its parent's process id.
PARENT_ENV = "WIKITUI_CONVERTER_PARENT"
#: A header line longer than this is not a frame of ours.
_MAX_HEADER = 1024 * 1024


class _ChildDied(Exception):
    """The child closed its output before the frame was whole."""


class Converter:
    """A conversion child kept for a run of files, each with a time limit (one thread at a time).

    Use it as a context manager, or call :meth:`close`; the child starts at the first
    :meth:`convert`, so a run with nothing to convert starts none. Use it from the
    thread that made it: on Linux the child is killed when the thread that started it
    ends (so a killed build leaves no conversion running on).

    Args:
        timeout: Seconds one file's conversion may take, the child's start included
            (default :data:`TIMEOUT`).

    Attributes:
        stopped: One line per file that was stopped (past its time, or the converter
            crashed on it): what a build notes for its user.
    """

    def __init__(self, timeout: float | None = None) -> None:
        self.timeout = TIMEOUT if timeout is None else timeout
        self.stopped: list[str] = []
        self._proc: subprocess.Popen | None = None
        self._stderr: IO[bytes] | None = None

    def __enter__(self) -> Converter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def convert(self, path: Path | str, kind: str | None = None) -> Conversion:
        """Convert ``path`` in the child; past the time limit or on a crash, one line (never cached)."""
        path = Path(path)
        kind = kind or kind_of(path) or "text"
        deadline = time.monotonic() + self.timeout
        request = json.dumps({"path": str(path), "kind": kind}).encode("utf-8") + b"\n"
        try:
            proc = self._child()
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(request)
            proc.stdin.flush()
            head, text = read_frame(proc.stdout.fileno(), deadline)
            return Conversion(head["kind"], text, error=head["error"], title=head["title"], pages=head["pages"],
                              notes=head["notes"], cacheable=head["cacheable"])
        except TimeoutError:
            self._kill()
            return self._stop(kind, f"{path.name} took longer than {self.timeout:g} s to convert; it was stopped")
        except (_ChildDied, BrokenPipeError, ValueError, KeyError, TypeError):
            why = "ran out of memory" if b"MemoryError" in self._stderr_tail() else self._exit_status()
            self._kill()
            return self._stop(kind, f"{path.name} could not be converted (the converter stopped: {why})")
        except OSError as exc:
            self._kill()
            return self._stop(kind, f"{path.name} could not be converted ({exc.strerror or exc})")

    def close(self) -> None:
        """Let the child finish (its input closes) and reap it; kill it if it lingers."""
        proc = self._proc
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self._kill()

    def _child(self) -> subprocess.Popen:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self._kill()
        self._stderr = tempfile.TemporaryFile()  # a file, not a pipe: a chatty parser never blocks on it
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "wikitui.core.vault.formats.isolated_child"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            env=os.environ | {PARENT_ENV: str(os.getpid())})
        return self._proc

    def _stop(self, kind: str, line: str) -> Conversion:
        self.stopped.append(line)
        return failed(kind, line, cacheable=False)

    def _stderr_tail(self) -> bytes:
        if self._stderr is None:
            return b""
        try:
            self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, self._stderr.tell() - 4096))
            return self._stderr.read()
        except OSError:
            return b""

    def _exit_status(self) -> str:
        try:
            code = self._proc.wait(2) if self._proc is not None else None
        except subprocess.TimeoutExpired:
            code = None
        return f"exit status {code}" if code is not None else "no answer"

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    try:
                        pipe.close()
                    except OSError:
                        pass
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


def read_frame(fd: int, deadline: float) -> tuple[dict, str]:
    """One frame from the child's output: (header, text), read and decoded :data:`READ_CHUNK` bytes at a time.

    Raises:
        TimeoutError: ``deadline`` (a :func:`time.monotonic` time) passed first.
        _ChildDied: The output ended before the frame did.
        ValueError: The header is not a frame's.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending = b""
    head: dict | None = None
    parts: list[str] = []
    remaining = 0
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while head is None or remaining > 0:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                raise TimeoutError
            data = os.read(fd, READ_CHUNK if head is None else min(READ_CHUNK, remaining))
            if not data:
                raise _ChildDied
            if head is None:
                pending += data
                line, newline, data = pending.partition(b"\n")
                if not newline:
                    if len(pending) > _MAX_HEADER:
                        raise ValueError("header too long")
                    continue
                head = json.loads(line)
                remaining = int(head["length"])
            remaining -= len(data)
            parts.append(decoder.decode(data))
    parts.append(decoder.decode(b"", final=True))
    return head, "".join(parts)


def convert_isolated(path: Path | str, kind: str | None = None, *, timeout: float | None = None) -> Conversion:
    """Convert one file in a child process of its own; a timeout or a crash is one line (never cached)."""
    with Converter(timeout) as converter:
        return converter.convert(path, kind)
