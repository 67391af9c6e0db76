"""Obsidian's inline ``#tags``: where they are in a page's text, and the names a tag search matches.

A tag is ``#`` followed by letters, digits, ``_``, ``-`` and ``/`` (a nested tag,
``#area/sub``), at the start of a line or after a space, with at least one character
that is not a digit (``#123`` is an issue number, not a tag, as in Obsidian). Nothing
in code (spans, fenced blocks), comments, a URL (``https://x.org/#part``) or a link's
target is a tag, nor is a heading's ``# `` (a space follows it). Tags are compared
without case (``#camelCase`` is ``camelcase``), and a nested tag is also found by each
of its parents: ``#a/b`` is tagged ``a/b`` and ``a``.
"""

from __future__ import annotations

import re

from wikitui.core.vault.links import bare_urls, mask_body

__all__ = ["TAG", "inline_tags", "tag_names", "tag_spans"]

#: A tag where it may start: after a line start or white space; group 1 is its name.
TAG = re.compile(r"(?<![^\s])#([\w/-]+)")
#: A markdown link's or image's target, ``](...)``, and an autolink ``<scheme:...>``: no tag inside.
_TARGETS = re.compile(r"\]\([^)\n]*\)|<[A-Za-z][A-Za-z0-9+.-]*:[^>\s]*>")


def _name(raw: str) -> str:
    """A tag's name as written, without the slashes at its ends; "" when it is no tag (digits only)."""
    name = raw.strip("/")
    if not name or name.isdigit() or all(ch.isdigit() or ch == "/" for ch in name):
        return ""
    return name


def tag_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, name)`` of each tag in ``text`` (prose: no code or URL is looked for).

    The span covers the ``#`` and the name; a piece of inline text (a paragraph's text
    between its code spans and links) is what the renderer passes.
    """
    out: list[tuple[int, int, str]] = []
    if "#" not in text:
        return out
    for m in TAG.finditer(text):
        name = _name(m.group(1))
        if name:
            start = m.start()
            out.append((start, start + 1 + len(m.group(1).rstrip("/")), name))
    return out


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with ``spans`` replaced by spaces (offsets kept)."""
    if not spans:
        return text
    parts, last = [], 0
    for a, b in spans:
        parts.append(text[last:a])
        parts.append(" " * (b - a))
        last = b
    parts.append(text[last:])
    return "".join(parts)


def inline_tags(text: str, start: int = 0) -> list[str]:
    """The names of the inline tags of a page's ``text`` from offset ``start`` (its body) on, in order, once each.

    Code, comments, URLs, link targets and indented code blocks are skipped.
    """
    if text.find("#", start) < 0:
        return []
    masked = mask_body(text, start)[start:]
    if "#" not in masked:
        return []
    cuts = [(m.start(), m.end()) for m in _TARGETS.finditer(masked)]
    cuts.extend((a, b) for a, b, _url in bare_urls(masked, masked))
    masked = _blank(masked, _merge(cuts))
    seen: dict[str, None] = {}
    prev_blank = True
    for line in masked.split("\n"):
        if "#" in line and not (prev_blank and line.startswith(("    ", "\t"))):  # an indented code block
            for _a, _b, name in tag_spans(line):
                seen.setdefault(name, None)
        prev_blank = not line.strip() or (prev_blank and line.startswith(("    ", "\t")))
    return list(seen)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans with overlapping ones joined."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def tag_names(tags: list[str]) -> list[str]:
    """What a tag search matches for these tags: each lower-cased, with every parent of a nested one.

    ``["Area/Sub", "x"]`` → ``["area/sub", "area", "x"]``; a leading ``#`` is dropped.
    """
    seen: dict[str, None] = {}
    for tag in tags:
        name = tag.strip().lstrip("#").strip("/").lower()
        if not name:
            continue
        seen.setdefault(name, None)
        parts = name.split("/")
        for n in range(len(parts) - 1, 0, -1):
            seen.setdefault("/".join(parts[:n]), None)
    return list(seen)
