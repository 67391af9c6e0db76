"""Days as people type them: ``2026-11-01``, ``7d``, ``2w`` (DESIGN §15 "History").

Shared by ``wikitui show --at``, ``wikitui changes --since`` and search's
``since:``/``until:``, so a date means the same everywhere. A relative span counts
back from today (local time): ``7d`` is seven days ago, ``2w`` fourteen, ``3m``
ninety, ``1y`` 365; ``today`` and ``yesterday`` are words for themselves.
"""

from __future__ import annotations

import datetime as _dt
import re

from wikitui.core.base.errors import WikituiError

_SPAN = re.compile(r"^(\d{1,5})\s*([dwmy])$", re.IGNORECASE)
_DAYS = {"d": 1, "w": 7, "m": 30, "y": 365}


class BadDate(WikituiError):
    """A date that cannot be read (a user error: exit status 2)."""

    exit_code = 2


def parse_day(text: str, *, today: _dt.date | None = None) -> _dt.date:
    """The day ``text`` names: an ISO date (``2026-11-01``), a span back from today (``7d``), or a word.

    Raises:
        BadDate: ``text`` is none of these.
    """
    value = str(text).strip()
    today = today or _dt.date.today()
    lowered = value.lower()
    if lowered == "today":
        return today
    if lowered == "yesterday":
        return today - _dt.timedelta(days=1)
    span = _SPAN.match(value)
    if span:
        return today - _dt.timedelta(days=int(span.group(1)) * _DAYS[span.group(2).lower()])
    try:
        return _dt.date.fromisoformat(value[:10]) if len(value) >= 10 else _dt.date.fromisoformat(value)
    except ValueError:
        raise BadDate(f"not a date: {value!r} (use YYYY-MM-DD, or a span such as 7d, 2w, 3m)") from None


def day_of(value: object) -> _dt.date | None:
    """A frontmatter date (``updated: 2026-11-01``, a datetime, or a string starting with one) as a day."""
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    if isinstance(value, str) and len(value.strip()) >= 10:
        try:
            return _dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None
