"""Search's ``since:`` and ``until:`` terms: hits filtered by the page's dates (DESIGN §15).

``since:2026-11-01`` keeps pages dated that day or later, ``until:2026-11-30`` that
day or earlier; both take a span too (``since:7d``, :mod:`wikitui.core.vault.dates`).
A page's dates are its frontmatter ``updated`` date and the days log.md records a
changeset touching it: a page is in range when any of them is. The terms are taken
out of the query before the engine sees it, and the hits it finds are filtered here
(each page's frontmatter read, log.md read once): the index schema is unchanged. A raw
source, or a page with neither an ``updated`` date nor a log entry, has no date and is
left out while a date term is given. A query of date terms only lists the pages in
range, newest first (by their newest date in range).
"""

from __future__ import annotations

import datetime as _dt
import re

from wikitui.core.base.errors import BadQuery
from wikitui.core.search.results import Hit
from wikitui.core.vault.dates import BadDate, day_of, parse_day
from wikitui.core.vault.layout import Vault

# A quoted phrase is matched first and kept: "since: then" is words, not a date term.
_TERM = re.compile(r'"[^"]*"|(?<![\w:"])(since|until):("?)([^\s()"]*)\2(?=\s|$|\))', re.IGNORECASE)
#: Most hits asked of the engine to filter by date (then cut at the caller's limit).
DATE_POOL = 2000


class DateRange:
    """The days a query's ``since:``/``until:`` allow (either end may be open)."""

    __slots__ = ("since", "until")

    def __init__(self, since: _dt.date | None = None, until: _dt.date | None = None) -> None:
        self.since = since
        self.until = until

    def __bool__(self) -> bool:
        return self.since is not None or self.until is not None

    def holds(self, day: _dt.date | None) -> bool:
        """Whether ``day`` is in range (a missing date never is)."""
        if day is None:
            return False
        return (self.since is None or day >= self.since) and (self.until is None or day <= self.until)

    def newest(self, days: list[_dt.date | None]) -> _dt.date | None:
        """The newest of ``days`` in range (None when none is)."""
        held = [d for d in days if d is not None and self.holds(d)]
        return max(held) if held else None


def split_dates(query: str) -> tuple[str, DateRange]:
    """The query without its ``since:``/``until:`` terms, and the range they give.

    Raises:
        BadQuery: a date term whose value is not a date.
    """
    found = DateRange()

    def take(m: re.Match) -> str:
        if m.group(1) is None:  # a phrase
            return m.group(0)
        if not m.group(3):
            raise BadQuery(f"{m.group(1).lower()}: needs a date (since:2026-11-01, since:7d)")
        try:
            day = parse_day(m.group(3))
        except BadDate as exc:
            raise BadQuery(f"{m.group(1).lower()}: {exc}") from None
        setattr(found, m.group(1).lower(), day)
        return " "

    if "since:" not in query.lower() and "until:" not in query.lower():
        return query, found
    rest = _TERM.sub(take, query)
    return " ".join(rest.split()), found


def page_updated(vault: Vault, rel: str) -> tuple[_dt.date | None, dict]:
    """A page's ``updated`` day and its frontmatter (None and {} when unreadable or absent)."""
    from wikitui.core.vault.files import decode_text, read_bytes
    from wikitui.core.vault.page import load_frontmatter, split_frontmatter

    try:
        text, _ok = decode_text(read_bytes(vault.root / rel, limit=64 * 1024))
        fm, _body, _line = split_frontmatter(text.lstrip("\ufeff"))
        meta = load_frontmatter(fm) if fm is not None else {}
    except Exception:  # a page that does not parse has no date; it is never an error here
        return None, {}
    return day_of(meta.get("updated")), meta


def changeset_days(vault: Vault) -> dict[str, list[_dt.date]]:
    """Page path → the days log.md records a changeset touching it (an undo too)."""
    from wikitui.core.vault.log_entries import read_log

    days: dict[str, list[_dt.date]] = {}
    for entry in read_log(vault):
        if entry.changeset:
            for path in entry.pages:
                days.setdefault(path, []).append(entry.date)
    return days


def filter_hits(vault: Vault, hits: list[Hit], dates: DateRange, limit: int) -> list[Hit]:
    """The hits whose page is dated in range (``updated``, or a changeset's day), at most ``limit``, in their order."""
    out = []
    touched = changeset_days(vault)
    for hit in hits:
        if hit.kind == "page" and dates.newest([page_updated(vault, hit.path)[0], *touched.get(hit.path, [])]):
            out.append(hit)
            if len(out) >= limit:
                break
    return out


def pages_in_range(vault: Vault, dates: DateRange, limit: int) -> list[Hit]:
    """Every page dated in range, newest first (a query of date terms only)."""
    rows = []
    pages, _raws, _other = vault.scan()
    touched = changeset_days(vault)
    for stat in pages:
        updated, meta = page_updated(vault, stat.path)
        day = dates.newest([updated, *touched.get(stat.path, [])])
        if day is not None:
            title, summary = meta.get("title"), meta.get("summary")
            title = title if isinstance(title, str) else stat.path.rsplit("/", 1)[-1][:-3]
            summary = summary if isinstance(summary, str) else ""
            rows.append((day, stat.path, Hit(stat.path, "page", title, 0.0, summary)))
    rows.sort(key=lambda r: (r[0], r[1]), reverse=True)
    return [hit for _day, _path, hit in rows[:limit]]
