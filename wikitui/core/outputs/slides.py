"""Marp decks: a ``marp: true`` page split into slides, and exported (DESIGN §9).

Slides are separated as Marp separates them: by a thematic break (``---``, ``***``,
``___``) at the top level of the markdown, found by markdown-it's parser, so a
``---`` inside a code fence, under a paragraph (a setext heading) or inside a list
is not a separator. The frontmatter (Marp's global directives) is not a slide.
HTML comments that are Marp directives (``<!-- _class: lead -->``) are taken out of
the slide's text into its ``directives``; other comments are presenter notes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wikitui.core.base.errors import WikituiError

#: Marp's directives (a leading ``_`` scopes a local one to its own slide).
DIRECTIVES = frozenset({
    "theme", "style", "headingDivider", "lang", "size", "math", "title", "description", "author", "image",
    "keywords", "url", "marp", "paginate", "header", "footer", "class", "backgroundColor", "backgroundImage",
    "backgroundPosition", "backgroundRepeat", "backgroundSize", "color", "transition",
})
#: Directives that hold per slide (the frontmatter sets their default for every slide).
LOCAL_DIRECTIVES = frozenset({
    "paginate", "header", "footer", "class", "backgroundColor", "backgroundImage", "backgroundPosition",
    "backgroundRepeat", "backgroundSize", "color", "transition",
})
_DIRECTIVE_LINE = re.compile(r"^\s*(_?)([A-Za-z]+)\s*:\s*(.*?)\s*$")


class DeckError(WikituiError):
    """A page that is not a deck, or an export that cannot be made."""


@dataclass(slots=True)
class Slide:
    """One slide of a deck.

    Attributes:
        number: 1-based.
        text: The slide's markdown, without its directive comments and presenter notes.
        line: The 1-based line of the page file where the slide's text starts.
        directives: The local directives in force on this slide (inherited ones included).
        notes: Presenter notes (the slide's other HTML comments), in order.
    """

    number: int
    text: str
    line: int
    directives: dict
    notes: list[str]


@dataclass(slots=True)
class Deck:
    """A parsed Marp page: its global directives (the frontmatter) and its slides."""

    directives: dict
    slides: list[Slide]


def _frontmatter(text: str) -> tuple[dict, str, int]:
    """(frontmatter as a dict, body, body's 1-based first line); {} for none or broken YAML."""
    from wikitui.core.vault.page import load_frontmatter, split_frontmatter

    text = text.removeprefix("\ufeff")
    fm, body, line = split_frontmatter(text)
    if fm is None:
        return {}, text, 1
    try:
        return load_frontmatter(fm), body, line
    except Exception:  # noqa: BLE001 - broken YAML: not a deck, but still a page
        return {}, body, line


def is_deck(text: str) -> bool:
    """Whether a page is a Marp deck: ``marp: true`` in its frontmatter."""
    if not text.lstrip("\ufeff").startswith("---"):
        return False
    marp = _frontmatter(text)[0].get("marp")
    return marp is True or (isinstance(marp, str) and marp.strip().lower() == "true")


def _parser():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def _split_points(body: str, heading_divider: object) -> list[tuple[int, bool]]:
    """Lines (0-based) where a new slide starts, each with whether that line is a separator to drop."""
    levels: set[int] = set()
    if isinstance(heading_divider, int) and not isinstance(heading_divider, bool) and 1 <= heading_divider <= 6:
        levels = set(range(1, heading_divider + 1))
    elif isinstance(heading_divider, list):
        levels = {h for h in heading_divider if isinstance(h, int) and 1 <= h <= 6}
    points = []
    for token in _parser().parse(body):
        if token.level != 0 or token.map is None:
            continue
        if token.type == "hr":
            points.append((token.map[0], True))
        elif levels and token.type == "heading_open" and int(token.tag[1]) in levels and token.map[0] > 0:
            points.append((token.map[0], False))
    return points


def _comments(chunk: str) -> list[tuple[int, int, str]]:
    """Block-level HTML comments of a slide: (first line, end line, inner text)."""
    found = []
    for token in _parser().parse(chunk):
        content = token.content.strip()
        if token.type == "html_block" and token.map and content.startswith("<!--") and content.endswith("-->"):
            found.append((token.map[0], token.map[1], content[4:-3].strip()))
    return found


def _directives(comment: str) -> dict | None:
    """The directives a comment sets (``{"_class": "lead"}``), or None when it is a presenter note."""
    found = {}
    for line in comment.splitlines():
        if not line.strip():
            continue
        m = _DIRECTIVE_LINE.match(line)
        if m is None or m.group(2) not in DIRECTIVES:
            return None
        found[m.group(1) + m.group(2)] = m.group(3).strip("\"'")
    return found or None


def parse_deck(text: str) -> Deck:
    """Split a Marp page into its slides (a page with no body is one empty slide)."""
    meta, body, body_line = _frontmatter(text.replace("\r\n", "\n"))
    lines = body.split("\n")
    points = _split_points(body, meta.get("headingDivider"))
    starts = [(0, False), *points]
    slides: list[Slide] = []
    carried: dict = {k: v for k, v in meta.items() if k in LOCAL_DIRECTIVES}
    for i, (start, is_rule) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(lines)
        first = start + 1 if is_rule else start
        chunk_lines = lines[first:end]
        own: dict = {}
        notes: list[str] = []
        drop: set[int] = set()
        for c_start, c_end, inner in _comments("\n".join(chunk_lines)):
            found = _directives(inner)
            if found is None:
                notes.append(inner)
            else:
                own.update(found)
            drop.update(range(c_start, c_end))
        kept = [(first + n, line) for n, line in enumerate(chunk_lines) if n not in drop]
        while kept and not kept[0][1].strip():
            kept.pop(0)
        while kept and not kept[-1][1].strip():
            kept.pop()
        carried.update({k: v for k, v in own.items() if not k.startswith("_")})
        effective = {**carried, **{k[1:]: v for k, v in own.items() if k.startswith("_")}}
        line = body_line + (kept[0][0] if kept else first)
        slides.append(Slide(len(slides) + 1, "\n".join(text for _, text in kept), line, effective, notes))
    return Deck(meta, slides)


def split_slides(text: str) -> list[Slide]:
    """The slides of a Marp page (see :func:`parse_deck`)."""
    return parse_deck(text).slides
