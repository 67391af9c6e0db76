"""Bring the search index up to date in a separate process, reporting progress on stdout.

Indexing in a thread of the UI process stalls the screen: Whoosh spends long
stretches inside C calls that hold the GIL (sorting a segment's postings took
~0.4 s on a 2,700-page vault), so no frame can be drawn meanwhile. A child
process has its own interpreter and lock; the UI thread only reads its progress.

Protocol: ``python -m wikitui.core.search.child_process VAULT`` prints one JSON object per
line: ``{"done": n, "total": m}`` while working, then ``{"finished": true, ...}``
(or ``{"error": "..."}``). Closing its stdin (or writing ``stop``) cancels it.
The child is an entry point of its own: it pauses the garbage collector while it
loads the link graph, as the CLI and the app do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

#: Seconds between two progress lines.
PROGRESS_INTERVAL = 0.1


def _emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    """Index the vault named on the command line (the child side)."""
    args = sys.argv[1:] if argv is None else argv
    try:  # background work: let the UI process have the CPU first
        os.nice(10)
    except (AttributeError, OSError):
        pass
    stop = threading.Event()

    def watch_stdin() -> None:
        # EOF or "stop" on stdin: the parent quit or asked us to.
        for line in sys.stdin:
            if line.strip() == "stop":
                break
        stop.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    last = 0.0

    def progress(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_INTERVAL or done == total:
            last = now
            _emit({"done": done, "total": total})

    try:
        from wikitui import gc_tuning
        from wikitui.core.search.facade import SearchIndex
        from wikitui.core.vault.graph import LinkGraph
        from wikitui.core.vault.layout import Vault

        vault = Vault.open(args[0])
        with gc_tuning.paused():
            graph = LinkGraph.load(vault)
        index = SearchIndex(vault)
        stats = index.update(graph=graph, progress=progress, cancel=stop.is_set)
        if not stop.is_set() and not getattr(stats, "cancelled", False) and index.segment_count() > 1:
            # Merge the segments left by earlier incremental updates, here in the low-priority
            # child: searches on one segment are about a third faster (and fuzzy ones much more).
            index.optimize()
    except Exception as exc:  # reported to the UI, which shows it as a notice
        _emit({"error": f"{type(exc).__name__}: {exc}"})
        return 1
    for note in getattr(stats, "notes", ()):  # a source whose conversion was stopped: the person hears of it
        _emit({"note": str(note)})
    _emit({"finished": True, "cancelled": bool(getattr(stats, "cancelled", False))})
    return 0


class IndexProcess:
    """The parent side: start the child and iterate over its messages.

    Args:
        vault_root: The vault folder.
    """

    def __init__(self, vault_root: Path) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "wikitui.core.search.child_process", str(vault_root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # never let the child write on the UI's terminal
            text=True,
            cwd=str(vault_root),
        )

    def messages(self) -> Iterator[dict]:
        """The child's messages until it exits."""
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                yield json.loads(line)
            except ValueError:
                continue
        self._proc.wait()

    @property
    def running(self) -> bool:
        """Whether the child has not exited yet."""
        return self._proc.poll() is None

    def stop(self, timeout: float = 2.0) -> None:
        """Ask the child to stop; kill it if it does not within ``timeout`` seconds."""
        proc = self._proc
        if proc.poll() is not None:
            return
        try:
            assert proc.stdin is not None
            proc.stdin.write("stop\n")
            proc.stdin.close()
        except (OSError, ValueError):
            pass
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()


def run_indexing(
    vault_root: Path, on_progress: Callable[[int, int], object], should_stop: Callable[[], bool],
    on_note: Callable[[str], None] | None = None,
) -> tuple[bool, str]:
    """Run the child to completion, forwarding progress (and each note: a source whose conversion was stopped).

    Returns:
        (finished, error message).
    """
    child = IndexProcess(vault_root)
    stopper = threading.Thread(target=_stop_when, args=(child, should_stop), daemon=True)
    stopper.start()
    error = ""
    finished = False
    for msg in child.messages():
        if "error" in msg:
            error = str(msg["error"])
        elif "note" in msg:
            if on_note is not None:
                on_note(str(msg["note"]))
        elif msg.get("finished"):
            finished = not msg.get("cancelled")
        elif "done" in msg:
            on_progress(int(msg["done"]), int(msg.get("total", 0)))
    if not finished and not error and not should_stop():
        error = "the indexing process ended unexpectedly"
    return finished, error


def _stop_when(child: IndexProcess, should_stop: Callable[[], bool]) -> None:
    while child.running:
        if should_stop():
            child.stop()
            return
        time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main())
