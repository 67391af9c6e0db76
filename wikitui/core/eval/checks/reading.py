"""Checks that need the run's reading: planted values, citations of what was read, chapters paged through.

These make the invented world's tasks unpassable from memory (DESIGN §12): the values
are planted in its sources only, and a citation counts only when the transcript shows
the model read that page or source through the ``read`` tool in the same task (the
titles index.md hands over are not enough).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from wikitui.core.eval.checks.common import Check, added_lines, fold, is_content_page
from wikitui.core.eval.outcome import Outcome

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")


_DATE_VALUE = re.compile(r"^(?P<d>\d{1,2}) (?P<m>[A-Z][a-z]+) (?P<y>\d{4})$")


def date_pattern(year: int, month: int, day: int) -> re.Pattern[str]:
    """A date in folded text, in any usual form: 9 February 1811, February 9, 1811, 9th of Feb. 1811, 1811-02-09."""
    name = _MONTHS[month - 1]
    mon, th = rf"(?:{name}|{name[:3]})\.?", "(?:st|nd|rd|th)?"
    return re.compile(rf"\b{day}{th} (?:of )?{mon},? {year}\b|\b{mon} {day}{th},? {year}\b"
                      rf"|\b{year}-{month:02d}-{day:02d}\b")


def _value_pattern(value: str) -> re.Pattern[str]:
    """``value`` as a whole word or number in folded text; a number's thousands comma is optional, and a date
    (``2 November 1824``) may be written in any usual form."""
    date = _DATE_VALUE.match(value)
    if date and date["m"].lower() in _MONTHS:
        return date_pattern(int(date["y"]), _MONTHS.index(date["m"].lower()) + 1, int(date["d"]))
    parts = [re.escape(fold(part)) for part in re.split(r"(?<=\d),(?=\d{3})", value)]
    return re.compile(r"(?<![\w])" + ",?".join(parts) + r"(?![\w])")


def has_value(text: str, value: str) -> bool:
    """Whether ``text`` states ``value`` (a name, a number, a phrase) as a whole: ``218`` is not in ``2180``."""
    return _value_pattern(value).search(fold(text)) is not None


def says_value(*values: str) -> Check:
    """The answer states every planted value (whole words; case and spacing do not matter)."""
    def check(o: Outcome) -> str | None:
        missing = [v for v in values if not has_value(o.answer, v)]
        return "the answer lacks the planted value" + ("s " if len(missing) > 1 else " ") + \
            ", ".join(f'"{v}"' for v in missing) if missing else None
    return check


def says_date(year: int, month: int, day: int) -> Check:
    """The answer gives this date, in any usual form (see :func:`date_pattern`)."""
    pattern, name = date_pattern(year, month, day), _MONTHS[month - 1]

    def check(o: Outcome) -> str | None:
        if pattern.search(fold(o.answer)):
            return None
        return f"the answer lacks the planted date {day} {name.title()} {year}"
    return check


def _cited(o: Outcome) -> set[str]:
    """Every page the answer links (resolved) and every raw path it names."""
    return {path for _target, path in o.answer_links() if path} | o.cited_raw()


def cites_read(*required: str) -> Check:
    """The answer cites each ``required`` page or source, and everything it cites was read in this task.

    A citation of a page the model did not ``read`` (a title copied from index.md, a path
    recalled from memory) fails the check; so does an answer that cites nothing.
    """
    def check(o: Outcome) -> str | None:
        cited = _cited(o)
        if not cited:
            return "the answer cites nothing"
        missing = [p for p in required if p not in cited]
        if missing:
            return "the answer does not cite " + ", ".join(missing)
        read = set(o.seen_lines())
        unread = sorted(cited - read)
        if unread:
            return "the answer cites what the model did not read in this task: " + ", ".join(unread)
        return None
    return check


# ------------------------------------------------------------------ a long source, paged
def read_lines(path: str, wanted: dict[str, Iterable[int]]) -> Check:
    """The model's ``read`` calls showed it at least one line of each named part of ``path``.

    Args:
        path: The source.
        wanted: A part's name ("chapter 9") to the 1-based lines that count as reading it.
    """
    def check(o: Outcome) -> str | None:
        seen = o.seen_lines().get(path, set())
        unread = [name for name, lines in wanted.items() if not seen.intersection(lines)]
        if not unread:
            return None
        shown = f"it was shown {len(seen)} of its lines" if seen else "it never read it"
        return f"the model did not read {', '.join(unread)} of {path} ({shown})"
    return check


def pages_carry(values: dict[str, tuple[str, ...]]) -> Check:
    """The lines the applied changeset added to pages state each value; ``values`` groups them by where they are."""
    def check(o: Outcome) -> str | None:
        added = "\n".join(line for path in o.changed() if path in o.after and is_content_page(o, path)
                          for line in added_lines(o, path))
        missing = [f'"{v}" ({where})' for where, vs in values.items() for v in vs if not has_value(added, v)]
        return "the pages written lack " + ", ".join(missing) if missing else None
    return check
