"""Counts in words: ``plural(1, "hunk")`` is ``1 hunk``, ``plural(2, "hunk")`` is ``2 hunks``.

Every count the user reads (notes, cards, lint reports, the CLI) goes through here, so
none says "1 hunks" or "1 headings".
"""

from __future__ import annotations

_ES = ("s", "x", "z", "ch", "sh")


def plural_form(word: str) -> str:
    """The English plural of a regular noun: ``hunk`` → ``hunks``, ``entry`` → ``entries``, ``match`` → ``matches``."""
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(_ES):
        return word + "es"
    return word + "s"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` (with thousands separators) and ``word``, in the plural unless ``n`` is 1 (``many``: an irregular plural).

    Examples:
        >>> plural(1, "hunk"), plural(3, "hunk"), plural(0, "link"), plural(2, "child", "children")
        ('1 hunk', '3 hunks', '0 links', '2 children')
        >>> plural(12000, "line")
        '12,000 lines'
    """
    return f"{n:,} {word if n == 1 else (many or plural_form(word))}"


def noun(n: int, word: str, many: str | None = None) -> str:
    """The noun alone, in the number ``n`` asks for (``noun(1, "link")`` is ``link``)."""
    return word if n == 1 else (many or plural_form(word))
