"""The text a proposal carries: what may be written (UTF-8 text, no NUL), and its size in lines."""

from __future__ import annotations

import re

from wikitui.core.changes.diffs import compute_hunks
from wikitui.core.changes.model import ProposalError

_SURROGATE = re.compile("[\ud800-\udfff]")


def check_text(value: object, what: str) -> None:
    """Text the agent wants written must be UTF-8 text: no NUL byte, no lone surrogate.

    Raises:
        ProposalError: naming ``what`` and what to do instead.
    """
    if not isinstance(value, str):
        return
    if "\x00" in value:
        raise ProposalError(f"{what} contains a NUL character; pages are text: remove it")
    if _SURROGATE.search(value):
        raise ProposalError(f"{what} contains a lone surrogate (not valid Unicode text); write the character itself")


def line_delta(before: str, after: str) -> str:
    """``+a -r lines``: what turning ``before`` into ``after`` adds and removes."""
    hunks = compute_hunks(before, after, 0)
    return f"+{sum(h.added for h in hunks)} -{sum(h.removed for h in hunks)} lines"
