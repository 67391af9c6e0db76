"""Search's ``since:`` and ``until:`` terms: hits filtered by the page's ``updated`` date (DESIGN §15).

``since:2026-11-01`` keeps pages whose frontmatter ``updated`` is that day or later,
``until:2026-11-30`` that day or earlier; both take a span too (``since:7d``,
:mod:`wikitui.core.vault.dates`). The terms are taken out of the query before the
engine sees it, and the hits it finds are filtered here by reading each page's
frontmatter: the index schema is unchanged. A raw source, or a page with no
``updated`` date, has no date and is left out while a date term is given. A query
of date terms only lists the pages in range, newest first.
"""

from __future__ import annotations

import datetime as _dt
import re

from wikitui.core.errors import BadQuery
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


def filter_hits(vault: Vault, hits: list[Hit], dates: DateRange, limit: int) -> list[Hit]:
    """The hits whose page's ``updated`` day is in range, at most ``limit``, in their order."""
    out = []
    for hit in hits:
        if hit.kind == "page" and dates.holds(page_updated(vault, hit.path)[0]):
            out.append(hit)
            if len(out) >= limit:
                break
    return out


def pages_in_range(vault: Vault, dates: DateRange, limit: int) -> list[Hit]:
    """Every page updated in range, newest first (a query of date terms only)."""
    rows = []
    pages, _raws, _other = vault.scan()
    for stat in pages:
        day, meta = page_updated(vault, stat.path)
        if dates.holds(day):
            title, summary = meta.get("title"), meta.get("summary")
            title = title if isinstance(title, str) else stat.path.rsplit("/", 1)[-1][:-3]
            summary = summary if isinstance(summary, str) else ""
            rows.append((day, stat.path, Hit(stat.path, "page", title, 0.0, summary)))
    rows.sort(key=lambda r: (r[0], r[1]), reverse=True)
    return [hit for _day, _path, hit in rows[:limit]]
