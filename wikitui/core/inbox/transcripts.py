"""Meeting transcripts: WebVTT (``.vtt``: Zoom, Teams, Meet) and SubRip (``.srt``); one file, one item.

Both are read here (no library for them is as small as the formats): a cue is a timing
line ``start --> end`` and the text lines under it. A speaker is found as Teams writes
it (``<v Name>…</v>``) or as Zoom does (``Name: …``); other tags are dropped and
entities decoded. Cues of one speaker in a row are joined into one paragraph.
Anything that is not a cue (VTT's header, ``NOTE``, ``STYLE`` and ``REGION`` blocks, a
stray line) is skipped; the parsers never raise on text.
"""

from __future__ import annotations

import datetime as _dt
import html
import re
from dataclasses import dataclass
from pathlib import Path

from wikitui.core.inbox.item import InboxItem

_TIMING = re.compile(r"^\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?\s+([^>]+)>")
_TAG = re.compile(r"</?[^>]*>")
_ZOOM_SPEAKER = re.compile(r"^([^:\n]{1,60}?):\s+(.+)$", re.DOTALL)
_NAME_DATE = re.compile(r"(\d{4})[-_.]?(\d{2})[-_.]?(\d{2})")


@dataclass
class Cue:
    """One cue: when it starts (``HH:MM:SS``), who speaks ("" when not said) and what is said."""

    start: str
    speaker: str
    text: str


def looks_like_vtt(text: str) -> bool:
    """Whether ``text`` is WebVTT (it must start with ``WEBVTT``)."""
    return text.lstrip("\ufeff").startswith("WEBVTT")


def looks_like_srt(text: str) -> bool:
    """Whether ``text`` opens as SubRip does: a number, then a timing line."""
    lines = [line for line in text.lstrip("\ufeff").splitlines()[:4] if line.strip()]
    return len(lines) >= 2 and lines[0].strip().isdigit() and bool(_TIMING.match(lines[1])) and "," in lines[1]


def parse_cues(text: str) -> list[Cue]:
    """The cues of a VTT or SRT text, in order (the two differ only in what surrounds the cues).

    ``Name: what was said`` names the speaker only when most cues of the file are written
    so (Zoom's way); a lone "Today: soil cores" is what was said.
    """
    cues = []
    blocks = re.split(r"\n[ \t]*\n", text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n"))
    for block in blocks:
        lines = block.split("\n")
        for n, line in enumerate(lines):
            timing = _TIMING.match(line)
            if timing:
                cue = _cue(timing.group(1), lines[n + 1:])
                if cue is not None:
                    cues.append(cue)
                break
    unnamed = [cue for cue in cues if not cue.speaker]
    named = [(cue, m) for cue in unnamed if (m := _ZOOM_SPEAKER.match(cue.text)) and not m.group(1).strip().isdigit()]
    if unnamed and len(named) * 5 >= len(unnamed) * 3:
        for cue, m in named:
            cue.speaker, cue.text = m.group(1).strip(), m.group(2).strip()
    return cues


def _cue(start: str, lines: list[str]) -> Cue | None:
    raw = "\n".join(lines).strip()
    voice = _VOICE.search(raw)
    speaker = " ".join(html.unescape(voice.group(1)).split()) if voice else ""
    said = " ".join(html.unescape(_TAG.sub("", raw)).split())
    if not said:
        return None
    return Cue(_clock(start), speaker, said)


def _clock(stamp: str) -> str:
    parts = stamp.replace(",", ".").split(".")[0].split(":")
    parts = ["0"] * (3 - len(parts)) + parts
    try:
        h, m, s = (int(p) for p in parts[-3:])
    except ValueError:
        return "00:00:00"
    return f"{h:02d}:{m:02d}:{s:02d}"


def transcript_markdown(cues: list[Cue]) -> str:
    """The cues as paragraphs: ``**[00:01:02] Name:** what was said``, one speaker's run of cues joined."""
    paragraphs: list[list[str]] = []
    last = None
    for cue in cues:
        if paragraphs and cue.speaker == last:
            paragraphs[-1].append(cue.text)
            continue
        who = f" {cue.speaker}:" if cue.speaker else ""
        paragraphs.append([f"**[{cue.start}]{who}**", cue.text])
        last = cue.speaker
    return "\n\n".join(" ".join(p) for p in paragraphs)


def transcript_item(path: Path, text: str, kind: str) -> InboxItem | None:
    """A transcript file as an item (None when it holds no cue)."""
    cues = parse_cues(text)
    if not cues:
        return None
    speakers = list(dict.fromkeys(c.speaker for c in cues if c.speaker))
    found = _NAME_DATE.search(path.stem)
    date = ""
    if found:
        try:
            date = _dt.date(*(int(g) for g in found.groups())).isoformat()
        except ValueError:
            date = ""
    if not date:
        date = _dt.date.fromtimestamp(path.stat().st_mtime).isoformat()
    title = " ".join(re.sub(r"[_]+", " ", path.stem).split())
    return InboxItem(title=f"Transcript: {title}", url=path.resolve().as_uri(), kind=kind, origin=str(path),
                     author=", ".join(speakers[:6]) + (" and others" if len(speakers) > 6 else ""), date=date,
                     body=transcript_markdown(cues))
