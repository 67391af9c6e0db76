"""The catalog in index.md, regenerated from the pages' frontmatter (DESIGN §2).

Everything below the line ``<!-- wikitui:index -->`` is wikitui's: a list of every
page with its one-line summary, grouped by ``type``. The text above the line is the
user's and is kept byte for byte. Lines a person writes below the line are never
dropped: they are moved above it, in order, when the catalog is regenerated (what has
the shape of a catalog line, a ``- [[link]] — summary`` entry or a group's ``## Heading``,
is taken to be wikitui's). An index.md without the line belongs to the user (or to an
agent following the original pattern) and is never rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.page import PageInfo

INDEX_MARKER = "<!-- wikitui:index -->"

#: Types listed first, in this order; other types follow alphabetically, then untyped pages.
TYPE_ORDER = ("overview", "source", "entity", "concept", "topic", "answer")
_HEADINGS = {
    "overview": "Overview",
    "source": "Sources",
    "entity": "Entities",
    "concept": "Concepts",
    "topic": "Topics",
    "answer": "Answers",
}
_OTHER = "Other"
_DIGITS = re.compile(r"(\d+)")
#: Characters that would end or split a wikilink if they appeared in its label.
_LABEL_BREAKERS = str.maketrans({"[": "(", "]": ")", "\n": " ", "\r": " "})
#: A catalog entry as :func:`catalog_lines` writes it (a link, then maybe `` — summary``).
_ENTRY = re.compile(r"^- \[\[[^\]\n]+\]\](?: — .*)?$")


def _group_key(page_type: str) -> tuple[int, str]:
    """Sort key of a type group: fixed types first, then alphabetical, untyped last."""
    t = page_type.strip().lower()
    if t in TYPE_ORDER:
        return (0, f"{TYPE_ORDER.index(t):02d}")
    if not t or t == _OTHER.lower():
        return (2, "")
    return (1, t)


def _heading(page_type: str) -> str:
    t = page_type.strip().lower()
    if t in _HEADINGS:
        return _HEADINGS[t]
    if not t or t == _OTHER.lower():
        return _OTHER
    return t[0].upper() + t[1:]


def title_key(title: str) -> tuple:
    """Case-insensitive natural order: "Chapter 2" before "Chapter 10", "§ 9" before "§ 10"."""
    parts = _DIGITS.split(title.casefold())
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def link_for(graph: LinkGraph, info: PageInfo) -> str:
    """The wikilink that names ``info``: ``[[Title]]`` when the title alone leads there.

    Otherwise (a title shared with another page, a stem of another page equal to the
    title, or characters that cannot stand inside ``[[...]]``) a path-qualified link
    ``[[folder/stem|Title]]`` that resolves to exactly this page.
    """
    title = _one_line(info.title)
    index = graph.vault.index_path  # the links are written in index.md: a tie goes by its folder
    plain_ok = title and not any(c in title for c in "[]|#") and graph.resolve_target(title, index) == info.path
    if plain_ok:
        return f"[[{title}]]"
    label = title.translate(_LABEL_BREAKERS)
    stem_path = info.path[:-3] if info.path.lower().endswith(".md") else info.path
    for target in (graph.vault.wiki_relative(stem_path), stem_path):
        if graph.resolve_target(target, index) == info.path:
            return f"[[{target}|{label}]]"
    # Nothing shorter resolves uniquely: the full path with its extension always does.
    return f"[[{info.path}|{label}]]"


def catalog_lines(graph: LinkGraph, pages: Iterable[PageInfo]) -> list[str]:
    """The generated catalog as lines (no trailing newlines), grouped and sorted."""
    groups: dict[tuple[int, str], list[PageInfo]] = {}
    headings: dict[tuple[int, str], str] = {}
    for info in pages:
        key = _group_key(info.type)
        groups.setdefault(key, []).append(info)
        headings.setdefault(key, _heading(info.type))
    lines: list[str] = []
    for key in sorted(groups):
        if lines:
            lines.append("")
        lines.append(f"## {headings[key]}")
        lines.append("")
        for info in sorted(groups[key], key=lambda p: (title_key(p.title), p.path)):
            entry = f"- {link_for(graph, info)}"
            summary = _one_line(info.summary)
            if summary:
                entry += f" — {summary}"
            lines.append(entry)
    return lines


def catalog_sorted(pages: Iterable[PageInfo]) -> list[PageInfo]:
    """The pages in about the catalog's order: by group, then title (case-folded; the catalog sorts numbers
    naturally), then path. Quicker than :func:`catalog_lines`' sort on thousands of pages."""
    groups: dict[str, tuple[int, str]] = {}
    for info in pages:
        if info.type not in groups:
            groups[info.type] = _group_key(info.type)
    return sorted(pages, key=lambda info: (groups[info.type], info.title.casefold(), info.path))


def catalog_shape(pages: Iterable[PageInfo]) -> list[tuple[str, int]]:
    """(group heading, pages in it) for each group of the catalog, in the catalog's order."""
    by_type: dict[str, int] = {}
    for info in pages:
        by_type[info.type] = by_type.get(info.type, 0) + 1
    counts: dict[tuple[int, str], int] = {}
    headings: dict[tuple[int, str], str] = {}
    for page_type, n in by_type.items():
        key = _group_key(page_type)
        counts[key] = counts.get(key, 0) + n
        headings.setdefault(key, _heading(page_type))
    return [(headings[key], counts[key]) for key in sorted(counts)]


def human_lines(below: list[str], catalog: list[str]) -> list[str]:
    """The lines below the marker that wikitui did not write, in order (blank lines between them kept).

    A catalog entry (``- [[...]]``) is wikitui's, and so is a ``## Heading`` that is one of the
    new catalog's or heads entries; everything else that is not blank is a person's.
    """
    ours = set(catalog)
    kinds: list[bool | None] = []  # True: a person's; False: wikitui's; None: blank
    for i, line in enumerate(below):
        if not line.strip():
            kinds.append(None)
        elif _ENTRY.match(line) or line in ours:
            kinds.append(False)
        elif line.startswith("## "):
            following = next((ln for ln in below[i + 1:] if ln.strip()), "")
            kinds.append(not _ENTRY.match(following))
        else:
            kinds.append(True)
    out: list[str] = []
    for i, (line, kind) in enumerate(zip(below, kinds)):
        if kind:
            out.append(line)
        elif kind is None and out:
            before = next((k for k in reversed(kinds[:i]) if k is not None), None)
            after = next((k for k in kinds[i + 1:] if k is not None), None)
            if before and after:
                out.append(line)
    return out


@dataclass
class IndexUpdate:
    """index.md regenerated: its new text, and the lines a person wrote below the marker, now above it."""

    text: str
    moved: list[str] = field(default_factory=list)


def regenerate_index(vault: Vault, graph: LinkGraph, current_text: str) -> IndexUpdate | None:
    """index.md with its catalog regenerated, and what was moved above the marker to make room.

    None when ``current_text`` has no marker (the index is the user's own and must not be touched).
    """
    at = current_text.find(INDEX_MARKER)
    if at == -1:
        return None
    eol = current_text.find("\n", at)
    if eol == -1:
        head = current_text + ("\r\n" if "\r\n" in current_text else "\n")
    else:
        head = current_text[: eol + 1]
    newline = "\r\n" if head.endswith("\r\n") else "\n"
    skip = {vault.index_path, vault.log_path}
    lines = catalog_lines(graph, (info for path, info in graph.pages.items() if path not in skip))
    below = [ln.rstrip("\r") for ln in current_text[len(head):].split("\n")] if eol != -1 else []
    moved = human_lines(below, lines)
    if moved:  # a person's lines go above the marker, kept in order, a blank line before the marker
        start = current_text.rfind("\n", 0, at) + 1
        head = current_text[:start] + newline.join(moved) + newline + newline + head[start:]
    text = head if not lines else head + newline + newline.join(lines) + newline
    return IndexUpdate(text, moved)


def render_index(vault: Vault, graph: LinkGraph, current_text: str) -> str | None:
    """Regenerate index.md below the marker line.

    Args:
        vault: The vault (names index.md and log.md, which are left out of the catalog).
        graph: The link graph, up to date with the pages on disk.
        current_text: index.md's current text.

    Returns:
        The new text of index.md: the text up to and including the marker line kept
        byte for byte (with any lines a person wrote below the marker moved just above
        it, :func:`regenerate_index`), then the catalog. None when ``current_text`` has no marker
        (the index is the user's own and must not be touched).
    """
    update = regenerate_index(vault, graph, current_text)
    return None if update is None else update.text
