"""The graph view's arrows: from one node to the next along an edge, in the direction pressed.

Among the nodes an edge joins the current one with, those within 60 degrees of the
arrow are candidates (else those within 90); the nearest best-aligned one wins
(distance over the squared cosine of the angle, so a node straight ahead beats a
closer one far off to the side). When no edge goes that way, ``others`` (the whole
view's nodes) within 60 degrees are tried the same way, so an unlinked page can be
reached and left.
Positions are screen positions: ``y`` grows downwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

Direction = Literal["left", "right", "up", "down"]

#: The unit vector of each arrow, on a screen.
VECTORS: dict[str, tuple[float, float]] = {"left": (-1.0, 0.0), "right": (1.0, 0.0), "up": (0.0, -1.0),
                                           "down": (0.0, 1.0)}


def step(positions: Mapping[str, tuple[float, float]], current: str, direction: Direction,
         neighbours: Iterable[str], *, others: Iterable[str] = ()) -> str | None:
    """The node to go to from ``current`` when ``direction`` is pressed; None when nothing lies that way."""
    here = positions.get(current)
    if here is None:
        return None
    way = VECTORS[direction]
    near = [n for n in neighbours if n != current]
    best = _best(positions, here, way, near, NARROW) or _best(positions, here, way, near, 0.0)
    if best is None:
        best = _best(positions, here, way, (n for n in others if n != current), NARROW)
    return best


#: The cosine of 60 degrees: how far off the arrow a node may lie in the first look.
NARROW = 0.5


def _best(positions: Mapping[str, tuple[float, float]], here: tuple[float, float], way: tuple[float, float],
          candidates: Iterable[str], cosine: float) -> str | None:
    """The best candidate whose direction's cosine with ``way`` is above ``cosine``."""
    hx, hy = here
    wx, wy = way
    best: str | None = None
    best_score = 0.0
    for node in candidates:
        there = positions.get(node)
        if there is None:
            continue
        dx, dy = there[0] - hx, there[1] - hy
        dist_sq = dx * dx + dy * dy
        along = dx * wx + dy * wy
        if along <= 0 or dist_sq == 0 or along * along <= cosine * cosine * dist_sq:
            continue
        # distance / cos² = dist / (along² / dist²) = dist³ / along²
        score = dist_sq ** 1.5 / (along * along)
        if best is None or score < best_score:
            best, best_score = node, score
    return best
