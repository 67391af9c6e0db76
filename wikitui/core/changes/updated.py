"""The ``updated:`` date wikitui proposes with an edit, as a hunk of its own (issue 10, point 6).

A page whose frontmatter has ``updated:`` gets today's date when the agent edits
it and leaves the date as it was. The date is part of the proposal, not something
the apply adds later: the review shows it as its own one-line hunk, and the user
accepts or rejects it like any other, so the commit holds exactly what was accepted.
"""

from __future__ import annotations

import datetime as _dt
import difflib
from typing import Any

from wikitui.core.changes.diffs import split_lines
from wikitui.core.vault.frontmatter_edit import FrontmatterEditError, frontmatter_value, set_frontmatter_keys


def now() -> _dt.datetime:
    """The local time the date is taken from (tests set it, so screens do not change with the day)."""
    return _dt.datetime.now()


def _today_like(old: Any) -> Any:
    """Today, written the way ``old`` was (None: a format we do not know how to continue)."""
    moment = now().replace(microsecond=0)
    if isinstance(old, _dt.datetime):
        return moment
    if isinstance(old, _dt.date):
        return moment.date()
    if isinstance(old, str) and len(old) == 10 and old[4] == "-" and old[7] == "-" and old.replace("-", "").isdigit():
        return moment.date().isoformat()
    return None


def bump_updated(base_text: str, text: str) -> tuple[str, tuple[int, int] | None]:
    """``text`` with ``updated:`` set to today, when the page has the key and the edit left it alone.

    Args:
        base_text: The page as it is on disk.
        text: The page as the agent proposes it.

    Returns:
        (the text to propose, (old line, new line) of the date line to show as a hunk
        of its own; None when no date is added).
    """
    if text == base_text:
        return text, None
    old = frontmatter_value(base_text, "updated")
    if old is None or frontmatter_value(text, "updated") != old:
        return text, None
    value = _today_like(old)
    if value is None:
        return text, None
    try:
        bumped = set_frontmatter_keys(text, {"updated": value})
    except (FrontmatterEditError, ValueError):
        return text, None
    before, after = split_lines(text), split_lines(bumped)
    changed = [i for i, (x, y) in enumerate(zip(before, after)) if x != y]
    if len(before) != len(after) or len(changed) != 1:
        return text, None  # today already, or a block we would have to restyle
    v = changed[0]
    # The base line the untouched date line came from.
    base_lines = split_lines(base_text)
    for tag, i1, _i2, j1, j2 in difflib.SequenceMatcher(None, base_lines, before, autojunk=False).get_opcodes():
        if tag == "equal" and j1 <= v < j2:
            return bumped, (i1 + v - j1, v)
    return text, None
