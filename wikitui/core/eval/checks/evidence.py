"""Checks of evidence: quoted words that a source really holds, at lines the model really read.

Evidence reaches the eval in three forms, all checked alike:

* footnotes the vault's schema asks pages to carry,
  ``[^1]: raw/harbour-ledger.md#L10-L11 "the quoted words"``, in the lines a changeset added;
* quotes in an answer, followed by where they are: ``"the quoted words" (raw/x.md#L10-L11)``
  (``raw/x.md, lines 10-11`` and ``line 10`` do as well);
* ``evidence`` arguments of the ``propose_*`` tools, a list of
  ``{"source": "raw/x.md", "quote": "...", "lines": "10-11"}`` anywhere in a call's arguments
  (read from the calls the tools accepted; wikitui's tools take them once per-hunk evidence lands).

An item holds when its quote is in the source at the lines it names (exactly, else with case,
quotes and spacing folded; an ellipsis may skip words) and the model was shown those lines
through ``read`` in the task.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from wikitui.core.eval.checks.common import Check, added_lines, fold, is_content_page
from wikitui.core.eval.checks.reading import has_value
from wikitui.core.eval.outcome import Outcome

#: Where a quote is: a vault path, then ``#L10-L14`` / ``#L10`` / ``, lines 10-14`` / ``line 10`` / ``:10-14``.
_WHERE = re.compile(r"(?P<path>(?:raw|wiki)/[\w./-]*\w\.\w+)"
                    r"(?:#L(?P<a>\d+)(?:-L?(?P<b>\d+))?|,? (?:lines?|ll?\.) ?(?P<c>\d+)(?:\s*(?:-|–|to)\s*(?P<d>\d+))?"
                    r"|:(?P<e>\d+)(?:-(?P<f>\d+))?)?")
_QUOTE = re.compile(r"[\"“](?P<q>[^\"“”\n]{3,})[\"”]")
_FOOTNOTE = re.compile(r"^\s*\[\^[^\]\s]+\]:\s*(?P<rest>.+)$")
_LINES = re.compile(r"^\s*L?(?P<a>\d+)\s*(?:(?:-|–|to)\s*L?(?P<b>\d+))?\s*$")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One quoted piece of evidence: the source, its 1-based lines (None: anywhere), the words quoted."""

    source: str
    lines: tuple[int, int] | None
    quote: str
    where: str

    def shown(self) -> str:
        at = "" if self.lines is None else f"#L{self.lines[0]}" + (
            f"-L{self.lines[1]}" if self.lines[1] != self.lines[0] else "")
        return f'"{self.quote[:60]}" ({self.source}{at}, in {self.where})'


def _span(*groups: str | None) -> tuple[int, int] | None:
    a, b = next(((x, y) for x, y in zip(groups[::2], groups[1::2]) if x), (None, None))
    if a is None:
        return None
    first, last = int(a), int(b or a)
    return (first, last) if first <= last else (last, first)


def _paired(text: str, where: str) -> list[Evidence]:
    """Each quote of ``text`` with the location nearest after it on its line (else nearest before)."""
    out = []
    for line in text.splitlines():
        places = [(m.start(), m.group("path"), _span(*m.group("a", "b", "c", "d", "e", "f")))
                  for m in _WHERE.finditer(line)]
        if not places:
            continue
        for q in _QUOTE.finditer(line):
            after = [p for p in places if p[0] >= q.end()]
            _at, path, span = after[0] if after else places[-1]
            out.append(Evidence(path, span, q.group("q"), where))
    return out


def answer_evidence(o: Outcome) -> list[Evidence]:
    """The quotes of the answer with the places it gives for them."""
    return _paired(o.answer, "the answer")


def page_evidence(o: Outcome) -> list[Evidence]:
    """The footnotes (``[^n]: raw/x.md#L10-L14 "words"``) in lines the applied changeset added to pages."""
    out = []
    for path in o.changed():
        if path not in o.after or not is_content_page(o, path):
            continue
        notes = [m.group("rest") for line in added_lines(o, path) if (m := _FOOTNOTE.match(line))]
        out.extend(_paired("\n".join(notes), path))
    return out


def _arg_items(value: Any) -> list[dict]:
    """Every dict inside an ``evidence`` key, at any depth of a call's arguments."""
    found: list[dict] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "evidence":
                items = inner if isinstance(inner, list) else [inner]
                found.extend(i for i in items if isinstance(i, dict))
            else:
                found.extend(_arg_items(inner))
    elif isinstance(value, list):
        for inner in value:
            found.extend(_arg_items(inner))
    return found


def _arg_lines(value: Any) -> tuple[int, int] | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value, value
    if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
        return min(value), max(value)
    if isinstance(value, str) and (m := _LINES.match(value)):
        return _span(m["a"], m["b"])
    return None


def call_evidence(o: Outcome) -> list[Evidence]:
    """The ``evidence`` arguments of the proposals the tools accepted."""
    out = []
    for call in o.calls:
        if not (call.is_proposal and call.ok):
            continue
        for item in _arg_items(call.args):
            source = item.get("source") or item.get("path")
            quote = item.get("quote")
            if isinstance(source, str) and isinstance(quote, str):
                source = source.split("#", 1)[0].lstrip("./")
                out.append(Evidence(source, _arg_lines(item.get("lines")), quote, f"{call.name} {call.paths()[:1]}"))
    return out


def _holds(quote: str, text: str) -> bool:
    """Whether ``text`` holds ``quote``: exactly, else folded; an ellipsis (``...``, ``…``) skips words between
    pieces that must then come in order."""
    if quote in text:
        return True
    pieces = [fold(p) for p in re.split(r"\s*(?:\.\.\.|…)\s*", quote) if fold(p)]
    folded, at = fold(text), 0
    for piece in pieces:
        found = folded.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return bool(pieces)


def problem(o: Outcome, item: Evidence) -> str | None:
    """Why ``item`` does not hold, or None: the quote is in those lines of the source, and they were read."""
    text = o.text_before(item.source)
    if text is None:
        return f"{item.shown()} names no file of the vault"
    lines = text.splitlines()
    if item.lines is not None:
        first, last = item.lines
        if first < 1 or last > len(lines):
            return f"{item.shown()} names lines {item.source} does not have (it has {len(lines)})"
        text = "\n".join(lines[first - 1:last])
        wanted = set(range(first, last + 1))
    else:
        wanted = set()
    if not _holds(item.quote, text):
        return f"{item.shown()}: {item.source} does not hold those words there"
    seen = o.seen_lines().get(item.source)
    if seen is None:
        return f"{item.shown()}: the model never read {item.source} in this task"
    if not wanted <= seen:
        return f"{item.shown()}: the model was never shown those lines"
    return None


def _judge(items: list[Evidence], o: Outcome, min_items: int, values: tuple[str, ...], what: str) -> str | None:
    if len(items) < min_items:
        return f"{what} {len(items)} quoted piece{'' if len(items) == 1 else 's'} of evidence (at least " \
               f"{min_items} expected)"
    problems = [why for item in items if (why := problem(o, item))]
    if problems:
        more = f" (and {len(problems) - 2} more)" if len(problems) > 2 else ""
        return "evidence that does not hold: " + "; ".join(problems[:2]) + more
    missing = [v for v in values if not any(has_value(i.quote, v) for i in items)]
    if missing:
        return "no evidence quotes the source for " + ", ".join(f'"{v}"' for v in missing)
    return None


def pages_evidence(*values: str, min_items: int = 1) -> Check:
    """The changes carry at least ``min_items`` pieces of evidence (footnotes or ``evidence`` arguments), every
    one holds, and the quotes between them state each of ``values`` (so the evidence is for the facts)."""
    def check(o: Outcome) -> str | None:
        return _judge(page_evidence(o) + call_evidence(o), o, min_items, values, "the changes carry")
    return check


def answer_quotes(*values: str, min_items: int = 1) -> Check:
    """The answer quotes at least ``min_items`` passages with their place, every one holds, and together they
    state each of ``values``."""
    def check(o: Outcome) -> str | None:
        return _judge(answer_evidence(o), o, min_items, values, "the answer gives")
    return check
