"""A second reviewer (DESIGN §11): ``review_model`` reads each hunk of a changeset before the human does.

The model is shown every hunk (its id, file, the agent's reason, the diff) and, for a hunk
that carries evidence, the source lines that evidence points at; the raw sources a page lists
are shown whole only for pages whose hunks carry no evidence. It is asked to answer with JSON only:
``[{"hunk": id, "verdict": "ok"|"doubt"|"wrong", "note": "one line why"}]``.
Each verdict goes on its hunk as ``hunk.review = {"verdict", "note", "model"}``
(saved with the pending changeset); the review screen shows the notes and starts
``wrong`` hunks rejected. An answer that does not parse annotates nothing and says so.
Its tokens and cost are kept apart, on ``changeset.review``, and logged apart.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, replace

from wikitui.core.agent.events import Done, TextDelta, Usage
from wikitui.core.changes.model import Changeset
from wikitui.core.vault.evidence import SourceTexts, evidence_source_lines, problem
from wikitui.core.vault.page import load_frontmatter, split_frontmatter
from wikitui.core.base.words import plural

VERDICTS = ("ok", "doubt", "wrong")
#: Characters of each listed source shown to the reviewer, and of all of them together.
SOURCE_CHARS, SOURCES_TOTAL = 6_000, 24_000
#: Characters of one hunk's diff shown to the reviewer, and of all hunks together (a big ingest must
#: still fit a modest context window).
HUNK_CHARS, HUNKS_TOTAL = 4_000, 48_000
#: Source lines of one evidence shown to the reviewer.
EVIDENCE_LINES = 12

INSTRUCTIONS = """You review changes another model proposed to a personal markdown wiki, before a human does.
For EACH hunk below, judge whether it is supported by the sources shown and consistent with the page:
- "ok": correct and supported;
- "doubt": plausible but not supported by the sources shown, or unclear;
- "wrong": contradicted by the sources, breaks the page, or invents facts.
Answer with JSON only, no prose, no code fence: a list with one object per hunk,
[{"hunk": "<hunk id>", "verdict": "ok" | "doubt" | "wrong", "note": "<one line why>"}]"""


@dataclass(slots=True)
class ReviewOutcome:
    """What the second review did.

    Attributes:
        verdicts: Hunk id to (verdict, note); None when the answer did not parse.
        usage: Tokens in, tokens out and cost of the review request.
        notice: One line for the user (what was annotated, or why nothing was).
    """

    verdicts: dict[str, tuple[str, str]] | None
    usage: Usage
    notice: str


def _listed_sources(text: str) -> list[str]:
    fm, _body, _line = split_frontmatter(text.lstrip("\ufeff"))
    if fm is None:
        return []
    try:
        value = load_frontmatter(fm).get("sources")
    except Exception:  # noqa: BLE001 - a page whose frontmatter does not parse lists no source
        return []
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    return [str(s).strip().strip("[]") for s in items if isinstance(s, str) and s.strip()]


def _sources_text(vault, changeset: Changeset) -> str:
    """The raw sources the changed pages list, each cut, within a total budget."""
    seen: list[str] = []
    for fc in changeset.files:
        if any(h.evidence for h in fc.hunks):
            continue  # its hunks come with the lines their claims draw on
        for src in _listed_sources(fc.new_text or fc.base_text):
            if src not in seen and vault.is_raw(src) and ".." not in src.split("/"):
                seen.append(src)
    parts: list[str] = []
    budget = SOURCES_TOTAL
    for src in seen:
        if budget <= 0:
            parts.append(f"[more sources not shown: {', '.join(seen[len(parts):])}]")
            break
        path = vault.root / src
        try:
            if not path.resolve().is_relative_to(vault.root.resolve()):  # a symlink out of the vault
                continue
            body = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        cut = body[: min(SOURCE_CHARS, budget)]
        budget -= len(cut)
        more = "\n[cut]" if len(cut) < len(body) else ""
        parts.append(f"=== source {src} ===\n{cut}{more}")
    if parts:
        return "\n\n".join(parts)
    if any(h.evidence for fc in changeset.files for h in fc.hunks):
        return "(each hunk below comes with the source lines its evidence points at)"
    return "(the changed pages list no raw source)"


def _evidence_text(hunk, texts: SourceTexts) -> str:
    """The evidence of one hunk for the reviewer: each source's lines, numbered, or why there are none."""
    parts = []
    for ev in hunk.evidence:
        why = problem(ev)
        if why is not None:
            parts.append(f"evidence {ev.source}: NOT FOUND: {why}")
            continue
        rows = evidence_source_lines(ev, texts, EVIDENCE_LINES)
        span = f"{ev.start}" if ev.start == ev.end else f"{ev.start}-{ev.end}"
        body = "\n".join(f"{n:>5}| {line}" for n, line in rows)
        more = "\n      [more lines not shown]" if ev.end - ev.start + 1 > len(rows) else ""
        parts.append(f"evidence {ev.source} lines {span}:\n{body}{more}")
    return "\n".join(parts)


def review_messages(vault, changeset: Changeset) -> list[dict]:
    """The request: instructions, then the sources, then every hunk with its id."""
    hunks: list[str] = []
    budget = HUNKS_TOTAL
    texts = SourceTexts(vault)
    for fc in changeset.files:
        for h in fc.hunks:
            diff = "".join(h.lines) if h.lines else h.header
            room = max(0, min(HUNK_CHARS, budget))
            if len(diff) > room:
                diff = diff[:room] + "\n[hunk cut: judge only what is shown; say doubt when that is not enough]"
            budget -= len(diff)
            why = f" (reason: {fc.reason})" if fc.reason else ""
            evidence = _evidence_text(h, texts) if h.evidence else ""
            hunks.append(f"--- hunk {h.id}: {fc.action} {fc.display_path}{why}\n{h.header}\n{diff}"
                         + (f"\n{evidence}" if evidence else ""))
    user = (f"Sources:\n\n{_sources_text(vault, changeset)}\n\nHunks ({len(hunks)}):\n\n" + "\n\n".join(hunks)
            + "\n\nAnswer with the JSON list now.")
    return [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": user}]


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_verdicts(text: str, hunk_ids: list[str]) -> dict[str, tuple[str, str]] | None:
    """The verdicts in the reviewer's answer (None when it is not the JSON asked for).

    A fenced block is read as well as bare JSON. Entries naming an unknown hunk or an
    unknown verdict are skipped; an answer with no usable entry does not parse.
    """
    fenced = _FENCE.search(text or "")
    body = (fenced.group(1) if fenced else text or "").strip()
    start, end = body.find("["), body.rfind("]")
    if start == -1 or end <= start:
        return None
    try:
        data = json.loads(body[start:end + 1])
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, list):
        return None
    known = set(hunk_ids)
    out: dict[str, tuple[str, str]] = {}
    for item in data:
        if not isinstance(item, dict):
            continue
        hunk, verdict, note = item.get("hunk"), item.get("verdict"), item.get("note", "")
        verdict = verdict.strip().lower() if isinstance(verdict, str) else None
        if hunk in known and verdict in VERDICTS:
            out[hunk] = (verdict, " ".join(str(note).split())[:300])
    return out or None


def review_client(client, model: str):
    """A client like ``client`` (same retries, same settings) talking to ``model``."""
    other = copy.copy(client)
    other.settings = replace(client.settings, model=model)
    return other


async def review_changeset(client, vault, changeset: Changeset) -> ReviewOutcome:
    """Ask ``client``'s model to review every hunk of ``changeset`` and annotate them.

    Raises:
        ModelError: The request failed (the caller reports it; nothing is annotated).
    """
    model = client.model
    text, usage = "", Usage(0, 0, 0.0)
    async for event in client.stream(review_messages(vault, changeset)):
        if isinstance(event, TextDelta):
            continue
        if isinstance(event, Usage):
            usage = event
        elif isinstance(event, Done):
            text = event.text
    verdicts = parse_verdicts(text, changeset.hunk_ids())
    if verdicts is None:
        notice = f"review by {model}: the answer was not the JSON asked for; no hunk is annotated"
    else:
        for fc in changeset.files:
            for h in fc.hunks:
                if h.id in verdicts:
                    verdict, note = verdicts[h.id]
                    h.review = {"verdict": verdict, "note": note, "model": model}
        wrong = sum(1 for v, _ in verdicts.values() if v == "wrong")
        doubt = sum(1 for v, _ in verdicts.values() if v == "doubt")
        notice = (f"review by {model}: {plural(len(verdicts), 'hunk')} annotated, {wrong} wrong (they start rejected), "
                  f"{doubt} in doubt")
    tokens = usage.prompt_tokens + usage.completion_tokens
    changeset.review = {"model": model, "tokens": {"in": usage.prompt_tokens, "out": usage.completion_tokens},
                        "cost": round(usage.cost, 6)}
    notice += f" · review: {tokens:,} tokens, ${usage.cost:.4f}"
    return ReviewOutcome(verdicts, usage, notice)
