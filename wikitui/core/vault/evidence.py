"""Evidence: the source lines a claim draws on (DESIGN §11 "Evidence").

The propose tools take, per edit or per claim, a list of evidence: a raw path (or a page)
and the quoted words or the line range the claim draws on. :class:`Evidence` is that
record, checked against its source (:func:`check_evidence`, with the pure
:func:`~wikitui.core.vault.quotes.find_quote`), kept on its hunk in the pending changeset
(JSON round trip: :meth:`Evidence.to_dict` / :meth:`Evidence.from_dict`) and, once the
hunk is applied, recorded with the hash of its lines (:mod:`~wikitui.core.vault.claims`).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from wikitui.core.vault.formats.dispatch import confined
from wikitui.core.vault.formats.kinds import needs_conversion
from wikitui.core.vault.quotes import FOUND, MAX_QUOTE, find_quote, source_lines

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

#: Largest source read for a quote check (as ``read`` reads text files).
MAX_SOURCE_BYTES = 32 * 1024 * 1024
#: What a check says of evidence whose source cannot be read or named.
UNREADABLE = "unreadable"
UNCHECKED = "unchecked"
#: Characters of a claim kept with its evidence (it names the claim; the page holds it whole).
CLAIM_CHARS = 300


@dataclass(slots=True, kw_only=True)
class Evidence:
    """What one claim draws on.

    Attributes:
        source: The source's vault-relative path (a raw file or a page), or the name given when it names none.
        quote: The quoted words ("" when only a line range is given).
        lines: The line range given, (first, last), 1-based and inclusive; None when none was.
        claim: The words of the page this backs (the edit's new text, or the claim named), cut short.
        match: How the check found it: ``exact``, ``folded``, ``lines``, ``missing``, ``out-of-range``,
            ``unreadable`` (no such source) or ``unchecked``.
        start: First line of the source it was found at (0: not found).
        end: Last line (inclusive).
    """

    source: str
    quote: str = ""
    lines: tuple[int, int] | None = None
    claim: str = ""
    match: str = UNCHECKED
    start: int = 0
    end: int = 0

    @property
    def found(self) -> bool:
        """Whether the source holds it."""
        return self.match in FOUND

    @property
    def anchor(self) -> str:
        """``raw/x.md#L10-L14`` (``#L10`` for one line; the path alone when not found)."""
        if not self.found:
            return self.source
        return f"{self.source}#L{self.start}" + (f"-L{self.end}" if self.end != self.start else "")

    def to_dict(self) -> dict:
        """The JSON form (``lines`` a list)."""
        return {"source": self.source, "quote": self.quote, "lines": list(self.lines) if self.lines else None,
                "claim": self.claim, "match": self.match, "start": self.start, "end": self.end}

    @classmethod
    def from_dict(cls, data: dict) -> "Evidence":
        """The inverse of :meth:`to_dict`.

        Raises:
            ValueError: ``data`` is not evidence.
        """
        if not isinstance(data, dict) or not isinstance(data.get("source"), str):
            raise ValueError("evidence needs a source")
        lines = data.get("lines")
        span = (int(lines[0]), int(lines[1])) if isinstance(lines, list) and len(lines) == 2 else None
        return cls(source=data["source"], quote=str(data.get("quote") or ""), lines=span,
                   claim=str(data.get("claim") or ""), match=str(data.get("match") or UNCHECKED),
                   start=int(data.get("start") or 0), end=int(data.get("end") or 0))


def evidence_list(items: object) -> list[Evidence]:
    """Evidence records from JSON (what cannot be read is dropped)."""
    out: list[Evidence] = []
    for item in items if isinstance(items, list) else []:
        try:
            out.append(Evidence.from_dict(item))
        except (ValueError, TypeError):
            continue
    return out


def from_argument(item: dict, claim: str) -> Evidence:
    """An :class:`Evidence` from one item the model sent (``{"source", "quote"?, "lines"?, "claim"?}``).

    Raises:
        ValueError: naming what is wrong, for the model (no source, neither quote nor lines, a bad range).
    """
    source = str(item.get("source") or "").strip()
    if not source:
        raise ValueError("each evidence item needs a source (a raw path such as raw/x.md, or a page)")
    quote = str(item.get("quote") or "")
    if len(quote) > MAX_QUOTE:
        raise ValueError(f"an evidence quote is at most {MAX_QUOTE:,} characters; quote the words the claim "
                         "draws on, or give a line range")
    lines = parse_lines(item.get("lines"))
    if not quote.strip() and lines is None:
        raise ValueError(f"evidence from {source} needs the quoted words (quote) or a line range (lines)")
    own = str(item.get("claim") or "").strip()
    return Evidence(source=source, quote=quote, lines=lines, claim=short_claim(own or claim))


_RANGE = re.compile(r"^\s*L?(\d{1,9})\s*(?:(?:-|–|\.\.|to)\s*L?(\d{1,9}))?\s*$", re.IGNORECASE)


def parse_lines(value: object) -> tuple[int, int] | None:
    """A line range as the model gives it: ``"10-14"``, ``"L10-L14"``, ``"12"``, ``[10, 14]`` or ``10``.

    Raises:
        ValueError: it is not a range of line numbers (from 1).
    """
    if value is None or value == "" or value == []:
        return None
    numbers: list[int] = []
    if isinstance(value, str):
        m = _RANGE.match(value)
        numbers = [int(g) for g in m.groups() if g] if m else []
    elif isinstance(value, int) and not isinstance(value, bool):
        numbers = [value]
    elif isinstance(value, list) and all(isinstance(n, int) and not isinstance(n, bool) for n in value):
        numbers = list(value)
    if not 1 <= len(numbers) <= 2 or min(numbers) < 1:
        raise ValueError('evidence lines are a range of line numbers as read numbers them, e.g. "10-14" or "12"')
    return (numbers[0], numbers[-1])


def short_claim(text: str) -> str:
    """A claim's words on one line, cut at :data:`CLAIM_CHARS`."""
    one = " ".join(text.split())
    return one if len(one) <= CLAIM_CHARS else one[:CLAIM_CHARS - 1] + "…"


def resolve_source(graph: "LinkGraph", name: str) -> str | None:
    """The vault-relative file an evidence source names: a raw file or a page (path, title or alias)."""
    n = name.strip().strip("[]").replace("\\", "/").partition("#")[0].strip()
    while n.startswith("./"):
        n = n[2:]
    if not n or ".." in n.split("/"):
        return None
    vault = graph.vault
    for cand in (n, f"{vault.raw_prefix}/{n}" if vault.raw_prefix else n):
        if cand in graph.raw_files or cand in graph.pages:
            return cand
    low = n.casefold()
    for path in graph.raw_files:
        if path.casefold() == low or posixpath.basename(path).casefold() == low:
            return path
    return graph.find_page(n)


def source_text(vault: "Vault", rel: str) -> str | None:
    """A source's text as the ``read`` tool shows it (a PDF's converted text), or None when it cannot be read."""
    from wikitui.core.vault.files import decode_text, is_binary

    try:
        path = confined(vault, rel)
        if needs_conversion(rel):
            from wikitui.core.vault.formats.dispatch import source_text as converted

            conversion = converted(vault, rel)
            return None if conversion.error else conversion.text
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return None
        data = path.read_bytes()
    except Exception:  # noqa: BLE001 - unreadable, UnsafePath, a converter's failure: no text
        return None
    if is_binary(data):
        return None
    return decode_text(data)[0]


class SourceTexts:
    """Source texts read once per check (a changeset's evidence often names one source many times)."""

    def __init__(self, vault: "Vault", overrides: dict[str, str] | None = None) -> None:
        self.vault = vault
        self._texts: dict[str, str | None] = dict(overrides or {})

    def get(self, rel: str) -> str | None:
        if rel not in self._texts:
            self._texts[rel] = source_text(self.vault, rel)
        return self._texts[rel]


def check_evidence(graph: "LinkGraph", evidence: Evidence, texts: SourceTexts) -> Evidence:
    """``evidence`` checked against its source: its path resolved and where its quote or range was found."""
    rel = resolve_source(graph, evidence.source)
    text = texts.get(rel) if rel is not None else None
    if rel is None or text is None:
        return replace(evidence, match=UNREADABLE, start=0, end=0)
    found = find_quote(text, evidence.quote, evidence.lines)
    return replace(evidence, source=rel, match=found.kind, start=found.start, end=found.end)


def evidence_source_lines(evidence: Evidence, texts: SourceTexts, limit: int = 8) -> list[tuple[int, str]]:
    """(line number, text) of the source lines a found evidence points at, at most ``limit``."""
    if not evidence.found:
        return []
    text = texts.get(evidence.source)
    if text is None:
        return []
    end = min(evidence.end, evidence.start + limit - 1)
    return list(zip(range(evidence.start, end + 1), source_lines(text, evidence.start, end)))


def problem(evidence: Evidence) -> str | None:
    """Why ``evidence`` does not back its claim (None when it does)."""
    if evidence.found:
        return None
    if evidence.match == UNREADABLE:
        return f"{evidence.source} is not a source or page that can be read"
    if evidence.match == "out-of-range":
        span = f"{evidence.lines[0]}-{evidence.lines[1]}" if evidence.lines else "?"
        return f"lines {span} are past the end of {evidence.source}"
    if evidence.match == UNCHECKED:
        return None
    quote = " ".join(evidence.quote.split())
    shown = quote if len(quote) <= 80 else quote[:79] + "…"
    return f"{evidence.source} does not hold the quote “{shown}”"


def evidence_summary(items: list[Evidence]) -> str | None:
    """One line for log.md: how many claims drew on which sources, and what did not match (None: no evidence)."""
    if not items:
        return None
    sources: list[str] = []
    for ev in items:
        if ev.source not in sources:
            sources.append(ev.source)
    shown = ", ".join(sources[:4]) + (f" and {len(sources) - 4} more" if len(sources) > 4 else "")
    missing = sum(1 for ev in items if not ev.found and ev.match != UNCHECKED)
    n = len(items)
    line = f"{n} quote{'s' if n != 1 else ''} from {shown}"
    if missing:
        line += f"; {missing} not found in {'its' if missing == 1 else 'their'} source"
    return line
