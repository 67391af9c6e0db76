"""What a review decided, and the cursor's rules (the keys' semantics), with no UI.

:class:`ReviewState` is the ``git add -p`` logic of the review screen: hunks in
review order, a cursor, decisions and reasons. The screen turns keys into calls
here and redraws; tests and other front ends can drive it directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from wikitui.ui.widgets.diff_view import ACCEPTED, REJECTED, Decision


@dataclass
class ReviewResult:
    """What the user decided in a review.

    Attributes:
        accepted: Ids of the hunks to apply.
        rejected: Ids of the hunks to drop.
        reasons: Notes for the agent, by hunk id (or file path).
        applied: True when the user pressed ``enter`` (apply the accepted hunks,
            drop the rejected ones, keep the undecided pending); False when they
            left with ``esc`` (everything stays pending).
    """

    accepted: set[str] = field(default_factory=set)
    rejected: set[str] = field(default_factory=set)
    reasons: dict[str, str] = field(default_factory=dict)
    applied: bool = False


class ReviewState:
    """The cursor and the decisions of a review, with no UI (the keys' semantics live here).

    Hunks are ordered file by file; the cursor is a position in that order.
    """

    def __init__(self, files: Sequence[Any]) -> None:
        self.files = list(files)
        #: (file index, hunk index) of every hunk, in review order.
        self.order: list[tuple[int, int]] = [(f, h) for f, fc in enumerate(self.files) for h in range(len(fc.hunks))]
        self.position = 0
        self.decisions: dict[str, Decision] = {}
        self.reasons: dict[str, str] = {}
        for fc in self.files:  # a hunk the second reviewer found wrong starts rejected (DESIGN §11)
            for hunk in fc.hunks:
                if getattr(hunk, "reason", ""):  # written in an earlier review; kept in the pending file
                    self.reasons[hunk.id] = hunk.reason
                review = getattr(hunk, "review", None)
                if isinstance(review, dict) and review.get("verdict") == "wrong":
                    self.decisions[hunk.id] = REJECTED

    # ---------------------------------------------------------------- where
    @property
    def file_index(self) -> int:
        """Index of the current file."""
        return self.order[self.position][0] if self.order else 0

    @property
    def hunk_index(self) -> int | None:
        """Index of the current hunk within its file (None when there are no hunks)."""
        return self.order[self.position][1] if self.order else None

    @property
    def hunk(self) -> Any | None:
        """The hunk under the cursor."""
        if not self.order:
            return None
        f, h = self.order[self.position]
        return self.files[f].hunks[h]

    def _id(self, position: int) -> str:
        f, h = self.order[position]
        return self.files[f].hunks[h].id

    # ---------------------------------------------------------------- counts
    def counts(self) -> tuple[int, int, int, int]:
        """(hunks, accepted, rejected, undecided)."""
        accepted = sum(1 for d in self.decisions.values() if d == ACCEPTED)
        rejected = len(self.decisions) - accepted
        return len(self.order), accepted, rejected, len(self.order) - accepted - rejected

    def file_decided(self, index: int) -> int:
        """How many hunks of file ``index`` are decided."""
        return sum(1 for hunk in self.files[index].hunks if hunk.id in self.decisions)

    # ---------------------------------------------------------------- moving
    def move(self, delta: int) -> bool:
        """Move by ``delta`` hunks (clamped at the ends); True when the cursor moved."""
        target = min(max(self.position + delta, 0), max(len(self.order) - 1, 0))
        moved, self.position = target != self.position, target
        return moved

    def move_file(self, delta: int) -> bool:
        """Go to the first hunk of the next (``delta`` > 0) or previous file; True when the cursor moved."""
        files = sorted({f for f, _ in self.order})
        if not files:
            return False
        target = files.index(self.file_index) + (1 if delta > 0 else -1)
        if not 0 <= target < len(files):
            return False
        self.goto(files[target])
        return True

    def goto(self, file_index: int, hunk_index: int = 0) -> None:
        """Put the cursor on hunk ``hunk_index`` of file ``file_index`` (its first hunk if there is no such hunk)."""
        positions = [p for p, (f, _) in enumerate(self.order) if f == file_index]
        if positions:
            self.position = next((p for p in positions if self.order[p][1] == hunk_index), positions[0])

    def next_undecided(self) -> int | None:
        """Position of the first undecided hunk after the cursor, wrapping; None when all are decided."""
        n = len(self.order)
        for step in range(1, n + 1):
            p = (self.position + step) % n
            if self._id(p) not in self.decisions:
                return p
        return None

    # ---------------------------------------------------------------- deciding
    def decide(self, decision: Decision) -> None:
        """Decide the hunk under the cursor and move to the next undecided hunk (wrapping)."""
        if not self.order:
            return
        self.decisions[self._id(self.position)] = decision
        target = self.next_undecided()
        if target is not None:
            self.position = target

    def decide_file(self, decision: Decision) -> None:
        """Decide every undecided hunk of the current file, then move to the next undecided hunk."""
        if not self.order:
            return
        for hunk in self.files[self.file_index].hunks:
            self.decisions.setdefault(hunk.id, decision)
        target = self.next_undecided()
        if target is not None:
            self.position = target

    def set_reason(self, key: str, text: str) -> None:
        """Store (or, with blank ``text``, remove) the reason for ``key`` (a hunk id or a path)."""
        if text.strip():
            self.reasons[key] = text.strip()
        else:
            self.reasons.pop(key, None)

    def result(self, applied: bool) -> ReviewResult:
        """The decisions as a :class:`ReviewResult`."""
        return ReviewResult(
            accepted={k for k, d in self.decisions.items() if d == ACCEPTED},
            rejected={k for k, d in self.decisions.items() if d == REJECTED},
            reasons=dict(self.reasons),
            applied=applied,
        )
