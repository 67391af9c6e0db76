"""What a search returns and what an index update did: plain values, no Whoosh.

:class:`Hits` is the list :meth:`~wikitui.core.search.facade.SearchIndex.search` returns:
the hits, best first, plus the notes a person should read beside them (a fuzzy
distance that was capped, an index another process is rebuilding). The command
line prints the notes on stderr, the ``/`` screen in its status line and the
agent's ``search`` tool in its result.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Hit:
    """One search result.

    Attributes:
        path: Vault-relative path with ``/`` separators.
        kind: "page" or "raw".
        title: The page's title (a raw source's first heading or file name).
        score: Relevance, higher is better (only comparable within one search).
        snippet: Plain text around the best match, matched words wrapped in ``**``.
        line: 1-based line of the snippet's match in the file; None when the hit
            matched only in its title, tags or other metadata.
    """

    path: str
    kind: str
    title: str
    score: float
    snippet: str
    line: int | None = None


@dataclass(slots=True)
class UpdateStats:
    """What an update or rebuild did.

    Attributes:
        added: Files indexed for the first time.
        updated: Files re-indexed because they changed.
        removed: Files dropped because they vanished.
        total: Documents in the index afterwards.
        seconds: Wall time taken.
        cancelled: ``cancel()`` stopped it early (what was done is committed).
        busy: Another process held the index's write lock; nothing was done.
        rebuilt: The index was (re)created from scratch (missing, corrupt, old schema).
        unchanged: Files whose time changed but whose bytes did not (a checkout, a sync
            tool, ``touch``): their new time is recorded, nothing is re-indexed.
        notes: One line per source whose conversion was stopped (past its time limit,
            or its converter crashed): indexed by its name and that line only.
    """

    added: int = 0
    updated: int = 0
    removed: int = 0
    total: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    busy: bool = False
    rebuilt: bool = False
    unchanged: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> int:
        """Number of files added, updated or removed."""
        return self.added + self.updated + self.removed


class Hits(list):
    """The hits of one search, best first (a list of :class:`Hit`), and notes about how it was run.

    Attributes:
        notes: One line each, for the person (or agent) who asked: what was
            searched differently from what was typed, and why.
    """

    def __init__(self, hits=(), notes=()) -> None:
        super().__init__(hits)
        self.notes: tuple[str, ...] = tuple(notes)


class IndexBusy(Exception):
    """The index does not open and another process holds its write lock: it is not ours to wipe."""
