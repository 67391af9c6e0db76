"""The search backend protocol: what :class:`~wikitui.core.search.facade.SearchIndex` asks of an engine.

A backend owns an index of the vault's pages and raw sources and answers the query
language of DESIGN §5. The facade hands it files already sorted into pages and raw
sources (with what a link graph parsed of the pages), and validates scopes and
limits before a search reaches it. Another engine (a team-scale one) implements
these methods and is passed as ``SearchIndex(vault, backend=...)``; the
conformance tests (``tests/core/test_search_conformance.py``) show what it must
return.

This module is for type checkers and tests: the facade imports it only under
``TYPE_CHECKING`` (``typing`` costs ``wikitui search`` a few milliseconds).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from wikitui.core.search.results import Hit, UpdateStats
from wikitui.core.vault.layout import FileStat

#: A file to index and its kind, "page" or "raw".
KindedFile = tuple[FileStat, str]


@runtime_checkable
class Backend(Protocol):
    """A search engine behind the facade. Thread-safe: writers take turns, searches run alongside."""

    @property
    def language(self) -> str:
        """The language text is analysed in (two letters, e.g. "en")."""
        ...

    def update(
        self,
        files: list[KindedFile],
        infos: dict,
        *,
        full: bool,
        progress: Callable[[int, int], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> UpdateStats:
        """Make the index hold exactly ``files``: index the new and changed ones, drop the rest.

        Args:
            files: Every page and raw source of the vault, with its kind.
            infos: Parsed pages by path (``PageInfo``), where a link graph had them.
            full: Index every file again (a rebuild); the previous index answers
                searches until the new one is complete.
            progress: Called as ``progress(done, total)`` every few files.
            cancel: Polled between files; True stops early, keeping what was done.
        """
        ...

    def update_paths(self, files: list[KindedFile], absent: list[str], infos: dict) -> UpdateStats:
        """Re-index ``files`` and drop the documents of the ``absent`` paths (those it holds)."""
        ...

    def search(self, query: str, scope: str, limit: int, notes: list[str], *, snippets: bool = True) -> list[Hit]:
        """The best ``limit`` hits for ``query`` in ``scope`` ("all", "wiki" or "raw"), with snippets
        (``snippets=False``: none, and no file read; each hit's snippet is "").

        What the person should know about how the query ran (a capped fuzzy
        distance, an index another process is rebuilding) is appended to ``notes``.

        Raises:
            BadQuery: the query is malformed or over a bound (DESIGN §8).
        """
        ...

    def segment_count(self) -> int:
        """How many parts the index is in (1 when optimised)."""
        ...

    def optimize(self) -> bool:
        """Merge the index into one part; False when another process held it."""
        ...

    def close(self) -> None:
        """Release what is open; the next call reopens it."""
        ...
