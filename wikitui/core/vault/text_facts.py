"""What lint needs from a page's text beyond the link graph: its contradiction callouts and body shingles.

The link graph keeps no page text; lint's ``contradiction`` and ``near-duplicate``
checks (DESIGN §11) need some. :func:`load_text_facts` reads each page once and keeps
what it found in ``.wikitui/cache/text-facts.json``, keyed by the page's mtime and size
as the graph knows them, so a second lint reads only the pages that changed. The file
is a cache: unreadable or from another version, it is rebuilt; a read-only vault goes
without it.

Shingles are 5-word windows of the body (frontmatter left out), lower-cased; each is
hashed with CRC-32 and only hashes divisible by :data:`SAMPLE_MOD` are kept, the same
ones on every page, so two pages' kept sets estimate how much text they share.
"""

from __future__ import annotations

import base64
import json
import os
import re
import sys
import zlib
from array import array
from dataclasses import dataclass
from typing import Any

from wikitui.core.vault.contradictions import Contradiction, find_contradictions
from wikitui.core.vault.files import atomic_write, decode_text, read_bytes
from wikitui.core.vault.graph import LinkGraph

CACHE_NAME = "text-facts.json"
#: Bumped when what is stored changes.
VERSION = 2
#: Words per shingle.
SHINGLE_WORDS = 5
#: The share of shingle hashes kept (1 in SAMPLE_MOD).
SAMPLE_MOD = 4
_WORD = re.compile(r"\w+")


@dataclass(slots=True)
class TextFacts:
    """What one page's text says for lint.

    Attributes:
        contradictions: Its contradiction callouts.
        shingles: Sorted sampled shingle hashes of its body.
    """

    contradictions: list[Contradiction]
    shingles: tuple[int, ...]


def body_of(text: str, body_line: int) -> str:
    """The text from ``body_line`` (1-based) on: the page without its frontmatter."""
    if body_line <= 1:
        return text
    at = 0
    for _ in range(body_line - 1):
        nl = text.find("\n", at)
        if nl < 0:
            return ""
        at = nl + 1
    return text[at:]


def shingle_sample(body: str) -> tuple[int, ...]:
    """The sampled hashes of a body's 5-word shingles, sorted."""
    words = _WORD.findall(body.lower())
    if len(words) < SHINGLE_WORDS:
        return ()
    crc = zlib.crc32
    kept = set()
    for i in range(len(words) - SHINGLE_WORDS + 1):
        h = crc(" ".join(words[i:i + SHINGLE_WORDS]).encode("utf-8", "surrogatepass"))
        if h % SAMPLE_MOD == 0:
            kept.add(h)
    return tuple(sorted(kept))


def facts_of_text(text: str, body_line: int) -> TextFacts:
    """A page's facts from its text."""
    return TextFacts(find_contradictions(text), shingle_sample(body_of(text, body_line)))


def _cache_path(graph: LinkGraph):
    return graph.vault.state_dir / "cache" / CACHE_NAME


def _read_cache(graph: LinkGraph) -> dict:
    try:
        data = json.loads(_cache_path(graph).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("pages"), dict):
        return {}
    return data["pages"]


def _pack(hashes: tuple[int, ...]) -> str:
    """Hashes as base64 of little-endian uint32s: a JSON list of numbers parses ten times slower."""
    packed = array("I", hashes)
    if sys.byteorder != "little":
        packed.byteswap()
    return base64.b64encode(packed.tobytes()).decode("ascii")


def _unpack(text: str) -> tuple[int, ...]:
    packed = array("I")
    packed.frombytes(base64.b64decode(text, validate=True))
    if sys.byteorder != "little":
        packed.byteswap()
    return tuple(packed)


def _decode(entry) -> TextFacts | None:
    try:
        _mtime, _size, callouts, shingles = entry
        return TextFacts([Contradiction(*c) for c in callouts], _unpack(shingles))
    except (TypeError, ValueError):  # binascii.Error is a ValueError
        return None


def _encode(info, facts: TextFacts) -> list:
    callouts = [[c.line, c.claim, c.other, c.other_claim, c.source] for c in facts.contradictions]
    return [info.mtime_ns, info.size, callouts, _pack(facts.shingles)]


def load_text_facts(graph: LinkGraph, paths: list[str]) -> dict[str, TextFacts]:
    """The facts of each page in ``paths``, read from disk only where the cache is out of date.

    Args:
        graph: The vault's link graph (its pages' mtimes and sizes key the cache).
        paths: The pages wanted.

    Returns:
        {path: TextFacts}; a page that cannot be read has empty facts.
    """
    cached = _read_cache(graph)
    out: dict[str, TextFacts] = {}
    fresh: dict[str, list] = {}
    changed = len(cached) != len(paths)
    root = graph.vault.root
    for path in paths:
        info = graph.pages[path]
        entry: Any = cached.get(path)  # a list (checked below) when it is still fresh, else encoded anew
        facts = None
        if isinstance(entry, list) and len(entry) == 4 and entry[0] == info.mtime_ns and entry[1] == info.size:
            facts = _decode(entry)
        if facts is None:
            changed = True
            try:
                text, _ok = decode_text(read_bytes(os.path.join(root, path), size=info.size or None))
            except OSError:
                text = ""
            facts = facts_of_text(text, info.body_line)
            entry = _encode(info, facts)
        out[path] = facts
        fresh[path] = entry
    if changed:
        try:
            atomic_write(_cache_path(graph), json.dumps({"version": VERSION, "pages": fresh}, ensure_ascii=False))
        except OSError:
            pass  # a read-only vault: no cache, same verdicts
    return out
