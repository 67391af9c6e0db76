"""What one agent turn proposes for each file, while the turn is running.

:class:`Entry` is the builder's own record of a file (its text on disk when first
proposed, the text proposed now, a move's destination); :class:`Draft` is the
read-only view of it others need (the citation check reads a turn's drafts before
the changeset is built).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class Draft(NamedTuple):
    """A file a turn proposes to write: its final path, its text before and after."""

    path: str
    before: str  # "" for a page the turn creates
    after: str
    created: bool  # created or moved by the turn (its name is new)
    binary: bool = False  # a chart's picture: its bytes decoded exactly, not text to read links in


@dataclass(slots=True)
class Entry:
    """What the turn proposes for one file so far."""

    orig: str  # the path on disk (or where a new page will be created)
    exists: bool  # whether the file was on disk when first proposed
    base_hash: str | None
    base_text: str
    text: str | None  # proposed text; None: delete
    dest: str | None = None  # a move's destination
    reasons: list[str] = field(default_factory=list)
    edited: bool = False  # the agent changed its content (not only links a move rewrote)
    binary: bool = False  # a chart's picture (changes.assets)
    #: (the words it backs, the evidence) of each claim proposed for the file (core.vault.evidence)
    evidence: list = field(default_factory=list)

    @property
    def current(self) -> str:
        return self.dest or self.orig
