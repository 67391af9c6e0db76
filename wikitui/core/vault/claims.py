"""Staleness at the claim (DESIGN §11): a page's claims and the source lines they draw on.

When a changeset is applied, the evidence of its applied hunks is recorded per page in
``.wikitui/claims.json``: the source, the lines the evidence was found at, the quoted words
(a range's own text when only lines were given) and the sha256 of those lines
(:func:`~wikitui.core.vault.quotes.lines_digest`). A later change to the source is then
judged claim by claim (:meth:`ClaimRecords.stale`): lines whose content is unchanged, or whose
quote is still where it was, leave the claim fresh; a quote found at other lines is ``moved``,
one the source no longer holds is ``vanished``. A page whose claims cover a source is judged
by them and not by the source's whole-file hash (:mod:`~wikitui.core.vault.staleness`), so a
one-line fix in a long source marks only the claims on that line.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wikitui.core.vault.evidence import Evidence, SourceTexts
from wikitui.core.vault.files import atomic_write
from wikitui.core.vault.quotes import find_quote, fold, lines_digest, source_lines

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.vault.layout import Vault

CLAIMS_FILE = "claims.json"
#: Characters of a range's text kept as its quote (to find it again once moved).
QUOTE_CHARS = 2_000
_LOCK = threading.RLock()


@dataclass(slots=True, frozen=True)
class ClaimRecord:
    """One claim of a page and the lines of a source it drew on when applied."""

    source: str
    claim: str
    quote: str
    start: int
    end: int
    digest: str

    def to_dict(self) -> dict:
        """The JSON form."""
        return {"source": self.source, "claim": self.claim, "quote": self.quote, "start": self.start,
                "end": self.end, "digest": self.digest}

    @classmethod
    def from_dict(cls, data: dict) -> "ClaimRecord":
        """The inverse of :meth:`to_dict` (ValueError / TypeError / KeyError when it is not one)."""
        return cls(source=str(data["source"]), claim=str(data.get("claim", "")), quote=str(data.get("quote", "")),
                   start=int(data["start"]), end=int(data["end"]), digest=str(data["digest"]))


@dataclass(slots=True, frozen=True)
class StaleClaim:
    """A claim whose evidence moved or vanished.

    Attributes:
        page: The page holding the claim.
        source: The source it drew on.
        claim: The claim's words (cut short).
        quote: The quoted words.
        state: ``moved`` (the same words at other lines) or ``vanished`` (no longer in the source).
        was: (first, last) line the evidence pointed at.
        now: (first, last) line it is at now (None when vanished).
    """

    page: str
    source: str
    claim: str
    quote: str
    state: str
    was: tuple[int, int]
    now: tuple[int, int] | None

    def describe(self) -> str:
        """One line for a person."""
        was = _span(self.was)
        if self.state == "moved" and self.now is not None:
            return f"“{self.claim}” draws on {self.source} lines {was}, which moved to lines {_span(self.now)}"
        return f"“{self.claim}” draws on {self.source} lines {was}, which no longer hold its quote"


def _span(lines: tuple[int, int]) -> str:
    return str(lines[0]) if lines[0] == lines[1] else f"{lines[0]}-{lines[1]}"


def _holds(page_text: str, claim: str) -> bool:
    """Whether a page still states ``claim`` (its words, whitespace and case folded; a cut claim by its start)."""
    words = fold(claim.rstrip("…"))
    return bool(words) and words[:120] in fold(page_text)


class ClaimRecords:
    """``.wikitui/claims.json``: ``{page: [ClaimRecord...]}``."""

    def __init__(self, vault: "Vault") -> None:
        self.vault = vault

    @property
    def path(self):
        """Where the records live."""
        return self.vault.state_dir / CLAIMS_FILE

    def load(self) -> dict[str, list[ClaimRecord]]:
        """Every page's claims ({} when none or unreadable: a cache of verdicts)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        out: dict[str, list[ClaimRecord]] = {}
        for page, items in data.items() if isinstance(data, dict) else ():
            records = []
            for item in items if isinstance(items, list) else []:
                try:
                    records.append(ClaimRecord.from_dict(item))
                except (KeyError, TypeError, ValueError):
                    continue
            if records:
                out[str(page)] = records
        return out

    def _save(self, data: dict[str, list[ClaimRecord]]) -> None:
        from wikitui.core.vault.statedir import ensure_state_dir

        ensure_state_dir(self.vault)
        text = json.dumps({p: [r.to_dict() for r in data[p]] for p in sorted(data) if data[p]}, indent=1,
                          ensure_ascii=False)
        atomic_write(self.path, text + "\n")

    def record(self, page: str, page_text: str, evidence: Iterable[Evidence], texts: SourceTexts | None = None) -> list[ClaimRecord]:
        """Record the found evidence of a page just written, with the hash of its lines as they are now.

        The page's earlier claims stay while the page still states them (and no new evidence replaces
        them); evidence not found in its source is not recorded. Returns the page's claims now.
        """
        texts = texts or SourceTexts(self.vault)
        new: list[ClaimRecord] = []
        for ev in evidence:
            text = texts.get(ev.source) if ev.found else None
            if text is None:
                continue
            digest = lines_digest(text, ev.start, ev.end)
            if digest is None:
                continue
            quote = ev.quote.strip() or "\n".join(source_lines(text, ev.start, ev.end))[:QUOTE_CHARS]
            rec = ClaimRecord(source=ev.source, claim=ev.claim, quote=quote, start=ev.start, end=ev.end,
                              digest=digest)
            if rec not in new:
                new.append(rec)
        with _LOCK:
            data = self.load()
            replaced = {(r.source, r.claim) for r in new}
            kept = [r for r in data.get(page, []) if (r.source, r.claim) not in replaced and _holds(page_text, r.claim)]
            claims = kept + new
            if claims == data.get(page, []):
                return claims
            data[page] = claims
            if not claims:
                data.pop(page, None)
            self._save(data)
        return claims

    def forget(self, page: str) -> None:
        """Drop a deleted page's claims."""
        with _LOCK:
            data = self.load()
            if data.pop(page, None) is not None:
                self._save(data)

    def covered(self, page: str, data: dict[str, list[ClaimRecord]] | None = None) -> set[str]:
        """The sources a page's claims draw on (judged claim by claim, not by the whole file)."""
        records = (data if data is not None else self.load()).get(page, [])
        return {r.source for r in records}

    def stale(self, pages: Iterable[str] | None = None, texts: SourceTexts | None = None) -> list[StaleClaim]:
        """The claims (of ``pages``, default every page) whose evidence moved or vanished, in page order."""
        data = self.load()
        texts = texts or SourceTexts(self.vault)
        out: list[StaleClaim] = []
        for page in sorted(data if pages is None else set(pages) & set(data)):
            for rec in data[page]:
                verdict = judge(rec, texts.get(rec.source))
                if verdict is not None:
                    state, now = verdict
                    out.append(StaleClaim(page=page, source=rec.source, claim=rec.claim, quote=rec.quote,
                                          state=state, was=(rec.start, rec.end), now=now))
        return out


def judge(rec: ClaimRecord, text: str | None) -> tuple[str, tuple[int, int] | None] | None:
    """None when a claim is fresh, else (``moved`` and where, or ``vanished`` and None).

    Fresh: the lines hash as recorded, or the quote is still found at those lines. A source
    that cannot be read any more (deleted) has vanished the claim's evidence.
    """
    if text is None:
        return "vanished", None
    if lines_digest(text, rec.start, rec.end) == rec.digest:
        return None
    found = find_quote(text, rec.quote, (rec.start, rec.end))
    if not found.found:
        return "vanished", None
    if (found.start, found.end) == (rec.start, rec.end) or rec.start <= found.start <= found.end <= rec.end:
        return None
    return "moved", (found.start, found.end)
