"""Watching the vault's files for the workspace: the changed paths, in debounced batches, dot-folders left out."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

#: Milliseconds the watcher waits for a burst of file events (an editor's save, a git checkout) to settle.
WATCH_DEBOUNCE_MS = 150


def outside_content(root: Path, path: str) -> bool:
    """Whether a changed file lies outside the vault's content (dot-folders: .wikitui/, .git/...)."""
    try:
        rel = Path(path).resolve().relative_to(root)
    except (ValueError, OSError):
        return True
    return any(part.startswith(".") for part in rel.parts)


def watch_vault(root: Path, stop: threading.Event) -> Iterator[list[str]]:
    """Batches of changed absolute paths under ``root`` until ``stop`` is set (blocking: run it in a thread).

    Nothing is yielded when watchfiles is missing; its errors (the folder vanished) propagate.
    """
    try:
        from watchfiles import watch
    except ImportError:  # pragma: no cover - watchfiles is a dependency
        return
    for changes in watch(
        root,
        stop_event=stop,
        watch_filter=lambda _change, path: not outside_content(root, path),
        debounce=WATCH_DEBOUNCE_MS,
        step=50,
        rust_timeout=500,
        yield_on_timeout=False,
        raise_interrupt=False,
    ):
        if stop.is_set():
            return
        yield [p for _c, p in changes]
