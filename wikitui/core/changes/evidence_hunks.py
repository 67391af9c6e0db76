"""Evidence on hunks: which hunk a claim's evidence belongs to, which hunks add claims without any,
and the footnotes a vault's schema may ask for (DESIGN §11 "Evidence").

The builder keeps each proposal's evidence with the words it backs (an edit's new text, or
the claim named). When the changeset is built, :func:`attach` puts each on the hunk that adds
the claim's last line; :func:`unbacked` says whether a hunk adds prose with no evidence (the
review's ⚠). When WIKI.md asks for it (:func:`wants_footnotes`: a line ``Evidence: footnotes``,
``init``'s default), :func:`add_footnotes` writes a ``[^n]`` after each claim and a definition
``[^n]: raw/x.md#L10-L14`` at the page's end, in the proposal itself: what is reviewed is what is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wikitui.core.vault.evidence import Evidence

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.changes.diffs import Hunk
    from wikitui.core.changes.model import Changeset, FileChange
    from wikitui.core.vault.layout import Vault

#: The WIKI.md line that asks for evidence as footnotes: a line (a list item, bold or not) starting ``Evidence:``
#: that speaks of footnotes (``Evidence: footnotes``, ``init``'s; ``- Evidence: ... carries a footnote ...``).
_FOOTNOTES = re.compile(r"(?im)^[\s>*_\-]*evidence[*_]*\s*:[^\n]*\bfootnotes?\b")
#: Characters of a quote a footnote repeats (a longer one is cut with an ellipsis).
FOOTNOTE_QUOTE = 200
_FOOTNOTE_DEF = re.compile(r"^\[\^([^\]\s]+)\]:\s*(.*?)\s*$")
_FOOTNOTE_REF = re.compile(r"\[\^(\d+)\]")
#: A line that states nothing (a heading, a rule, a fence, a table rule, a footnote, a lone link or list marker).
_NOT_A_CLAIM = re.compile(r"^\s*(?:#|```|~~~|[-*_]{3,}\s*$|\|?[\s:|-]+\|?\s*$|\[\^[^\]]+\]:|<!--)")
_WORD = re.compile(r"[^\W\d_]{2,}")


def wants_footnotes(schema_text: str | None) -> bool:
    """Whether a vault's schema (WIKI.md's text) asks for evidence as footnotes."""
    return bool(schema_text) and _FOOTNOTES.search(schema_text or "") is not None


def schema_wants_footnotes(vault: "Vault") -> bool:
    """:func:`wants_footnotes` for the vault's WIKI.md on disk (False when there is none)."""
    from wikitui.core.vault.layout import SCHEMA_FILE

    try:
        text = (vault.root / SCHEMA_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return wants_footnotes(text)


def _claim_end(text: str, claim: str) -> int:
    """Offset just past the claim's last visible character in ``text`` (-1 when the text lacks it)."""
    words = claim.strip()
    if not words:
        return -1
    at = text.rfind(words)
    if at != -1:
        return at + len(words)
    last = words.splitlines()[-1].strip() if words.splitlines() else ""
    if last:
        at = text.rfind(last)
        if at != -1:
            return at + len(last)
    return -1


def claim_line(text: str, claim: str) -> int | None:
    """The 1-based line of ``text`` on which ``claim`` ends (None when the text lacks it)."""
    end = _claim_end(text, claim)
    if end == -1:
        return None
    return text.count("\n", 0, max(end - 1, 0)) + 1


def add_footnotes(text: str, claims: Iterable[tuple[str, Evidence]]) -> str:
    """``text`` with a ``[^n]`` footnote after each claim whose evidence was found, defined at the end as
    ``[^n]: raw/x.md#L10-L14 "the quoted words"`` (the quote left out for a line range alone).

    A definition saying the same is reused; numbers go on from the page's highest.
    Evidence not found, or a claim the text no longer holds, gets no footnote.
    """
    lines = text.split("\n")
    existing: dict[str, str] = {}
    for line in lines:
        m = _FOOTNOTE_DEF.match(line)
        if m:
            existing.setdefault(m.group(2), m.group(1))
    numbers = [int(n) for n in _FOOTNOTE_REF.findall(text)] + [int(n) for n in existing.values() if n.isdigit()]
    next_n = max(numbers, default=0) + 1
    new_defs: list[str] = []
    marks: dict[int, list[str]] = {}
    for claim, ev in claims:
        if not ev.found:
            continue
        end = _claim_end(text, claim)
        if end == -1:
            continue
        anchor = footnote_text(ev)
        label = existing.get(anchor)
        if label is None:
            label = str(next_n)
            next_n += 1
            existing[anchor] = label
            new_defs.append(f"[^{label}]: {anchor}")
        ref = f"[^{label}]"
        if ref not in marks.get(end, []) and text[end:end + len(ref)] != ref:
            marks.setdefault(end, []).append(ref)
    if not marks:
        return text
    out = text
    for end in sorted(marks, reverse=True):
        out = out[:end] + "".join(marks[end]) + out[end:]
    if new_defs:
        newline = "\r\n" if "\r\n" in out else "\n"
        body = out.rstrip("\r\n")
        out = body + newline + newline + newline.join(new_defs) + newline
    return out


def footnote_text(ev: Evidence) -> str:
    """What a footnote says of one evidence: where, then the words quoted (on one line, in double quotes)."""
    quote = " ".join(ev.quote.split()).replace('"', "'")
    if len(quote) > FOOTNOTE_QUOTE:
        quote = quote[:FOOTNOTE_QUOTE - 1].rstrip() + "…"
    return f'{ev.anchor} "{quote}"' if quote else ev.anchor


def _frontmatter_end(text: str) -> int:
    """The last line (1-based) of the text's frontmatter, 0 when it has none."""
    lines = text.lstrip("\ufeff").split("\n")
    if not lines or lines[0].rstrip("\r") != "---":
        return 0
    for n, line in enumerate(lines[1:], 2):
        if line.rstrip("\r") in ("---", "..."):
            return n
    return 0


def added_lines(hunk: "Hunk") -> list[tuple[int, str]]:
    """(new line number, text) of each line a text hunk adds."""
    if hunk.kind != "text":
        return []
    n = hunk.new_start if hunk.new_len else hunk.new_start + 1
    out = []
    for raw in hunk.lines:
        if raw.startswith("+"):
            out.append((n, raw[1:].rstrip("\r\n")))
            n += 1
        elif raw.startswith(" "):
            n += 1
    return out


def claim_lines(fc: "FileChange", hunk: "Hunk") -> list[int]:
    """The lines a hunk adds that state something: prose outside the frontmatter (not headings, rules,
    fences, footnote definitions or lines of fewer than three words)."""
    if fc.binary or fc.action == "delete" or not fc.final_path.endswith(".md"):
        return []
    fm_end = _frontmatter_end(fc.new_text)
    own = fc.own_line[1] + 1 if fc.own_line else None
    out = []
    for n, line in added_lines(hunk):
        if n <= fm_end or n == own or not line.strip() or _NOT_A_CLAIM.match(line):
            continue
        if len(_WORD.findall(line)) >= 3:
            out.append(n)
    return out


#: The operations of the agent's turns (``LOG_OP`` of the turn endings): their prompts ask for evidence.
AGENT_OPS = ("ingest", "query", "lint")


def unbacked(fc: "FileChange", hunk: "Hunk") -> bool:
    """Whether ``hunk`` adds claims and carries no evidence."""
    return not hunk.evidence and bool(claim_lines(fc, hunk))


def attach(fc: "FileChange", claims: Iterable[tuple[str, Evidence]]) -> None:
    """Put each evidence on the hunk of ``fc`` that adds its claim's last line.

    A claim the text no longer shows word for word (or a page-wide evidence, with no claim)
    goes to the first hunk that adds claims, else the first hunk that adds lines.
    """
    text_hunks = [h for h in fc.hunks if h.kind == "text"]
    if not fc.hunks:
        return
    fallback = next((h for h in text_hunks if claim_lines(fc, h)), None) \
        or next((h for h in text_hunks if h.added), None) or fc.hunks[0]
    for claim, ev in claims:
        target = fallback
        line = claim_line(fc.new_text, claim) if claim.strip() else None
        if line is not None:
            for h in text_hunks:
                if any(n == line for n, _ in added_lines(h)):
                    target = h
                    break
        if ev not in target.evidence:
            target.evidence.append(ev)


@dataclass(frozen=True, slots=True)
class ShownEvidence:
    """One evidence as the review shows it: where, and the source's lines themselves.

    Attributes:
        source: The source's vault-relative path.
        start: First line found (0 when not found).
        end: Last line found.
        problem: Why it does not back its claim (None when it does).
        lines: (line number, text) of the source lines, at most the review's limit.
        more: Lines of the range not in ``lines``.
    """

    source: str
    start: int
    end: int
    problem: str | None
    lines: tuple[tuple[int, str], ...] = ()
    more: int = 0


@dataclass(frozen=True, slots=True)
class HunkEvidence:
    """What the review shows under one hunk: its evidence, and whether it adds claims with none."""

    items: tuple[ShownEvidence, ...]
    unbacked: bool


def review_evidence(vault: "Vault", changeset: "Changeset", limit: int = 6) -> dict[str, HunkEvidence]:
    """{hunk id: its evidence to show} for the hunks that carry evidence or add claims without any.

    Hunks with no evidence are marked in a changeset the agent proposed in a turn (an ingest, an answer, a lint:
    its prompt asks for evidence on every factual sentence) or that carries evidence somewhere; not in one made
    by hand, over MCP or as a revert, which has none to give. Reads the sources: call it in a thread.
    """
    from wikitui.core.vault.evidence import SourceTexts, evidence_source_lines, problem

    uses = any(h.evidence for fc in changeset.files for h in fc.hunks) or (
        bool(changeset.model) and changeset.op in AGENT_OPS)
    texts = SourceTexts(vault)
    out: dict[str, HunkEvidence] = {}
    for fc in changeset.files:
        for h in fc.hunks:
            items = []
            for ev in h.evidence:
                rows = tuple(evidence_source_lines(ev, texts, limit))
                more = max(0, ev.end - ev.start + 1 - len(rows)) if ev.found else 0
                why = problem(ev)
                if ev.found and not rows:
                    why = f"{ev.source} cannot be read any more"
                items.append(ShownEvidence(ev.source, ev.start, ev.end, why, rows, more))
            bare = uses and unbacked(fc, h)
            if items or bare:
                out[h.id] = HunkEvidence(tuple(items), bare)
    return out
