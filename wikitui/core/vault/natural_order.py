"""Natural order: "Chapter 2" before "Chapter 10", as a person sorts (and as Obsidian's file list does).

:func:`natural_key` is a sort key: case-folded text, with each run of ASCII digits
compared by its value. Values are compared without converting to ``int`` (a
100,000-digit run would exceed Python's limit on int conversion): by the number of
significant digits, then the digits themselves. Leading zeros do not change the
value ("007" and "7" tie on value and are then ordered by the original text).
"""

from __future__ import annotations

import re

_DIGITS = re.compile(r"([0-9]+)")

#: One element of a key: a text part, or (significant digit count, digits) for a number.
KeyPart = str | tuple[int, str]


def natural_key(text: str) -> tuple[tuple[KeyPart, ...], str]:
    """The natural sort key of ``text``.

    Text parts and numbers alternate in the same positions for every key (a key
    always starts with a text part, possibly empty), so any two keys compare
    without mixing types. The original text breaks ties, so the order is total and
    the same on every run.
    """
    parts: list[KeyPart] = []
    for i, piece in enumerate(_DIGITS.split(text)):
        if i % 2:
            significant = piece.lstrip("0") or "0"
            parts.append((len(significant), significant))
        else:
            parts.append(piece.casefold())
    return tuple(parts), text
