"""Which files of a review changed on disk: checks run in a thread, the newest answer wins.

The review screen asks :class:`DiskMarks` to check some files (when it opens, when the
app's watcher reports changed paths, when decisions change in a marked file); the
check reads the files in a worker thread (:func:`wikitui.core.changes.disk_status.disk_status`)
and the screen shows what it found. Checks may finish out of order, so each answer
carries the number of its request and an older answer never overwrites a newer one.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from wikitui.core.changes.disk_status import DiskStatus, disk_status
from wikitui.core.vault.layout import Vault


class DiskMarks:
    """The bookkeeping of the review's "changed on disk" marks.

    Args:
        vault: The vault the changeset belongs to.
        files: The changeset's FileChanges, in the review's order.
    """

    def __init__(self, vault: Vault, files: Sequence[Any]) -> None:
        self.vault = vault
        self.files = list(files)
        self._lock = threading.Lock()
        self._next = 0
        self._asked: dict[int, int] = {}  # file index -> newest request that covers it

    def indices_for(self, paths: Iterable[str]) -> list[int]:
        """Indices of the files a change to ``paths`` (vault-relative) concerns."""
        wanted = set(paths)
        return [
            i for i, fc in enumerate(self.files) if fc.path in wanted or getattr(fc, "new_path", None) in wanted
        ]

    def request(self, indices: Iterable[int]) -> int:
        """Number a new check of ``indices`` (on the UI thread, before the worker starts)."""
        with self._lock:
            self._next += 1
            for i in indices:
                self._asked[i] = self._next
            return self._next

    def check(self, indices: Iterable[int], rejected: Collection[str]) -> list[tuple[int, DiskStatus]]:
        """Compare each file with the disk (in a worker thread: it reads files)."""
        return [(i, disk_status(self.vault, self.files[i], rejected)) for i in indices]

    def accept(self, seq: int, found: list[tuple[int, DiskStatus]]) -> list[tuple[int, DiskStatus]]:
        """The part of answer ``seq`` that is the newest for its files (to be shown)."""
        with self._lock:
            return [(i, status) for i, status in found if self._asked.get(i, 0) == seq]
