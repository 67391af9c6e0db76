"""Citations of a page of a source (``raw/x.pdf#page=3``) resolved to a line of its converted text.

The viewer opens the source's converted text at that line; the model cites pages
the same way Obsidian links them (``[[raw/x.pdf#page=3]]``). A slide deck's
``#page=N`` (or ``#slide=N``) finds its ``[slide N]`` marker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wikitui.core.vault.formats.conversion import Conversion

_ANCHOR = re.compile(r"^(?P<path>.*?)#(?:page|slide)=?(?P<page>\d{1,9})$", re.IGNORECASE | re.DOTALL)


@dataclass(slots=True)
class Citation:
    """Where a citation points.

    Attributes:
        path: The cited file, vault-relative (``raw/x.pdf``).
        page: The cited page (1-based), or None when the citation names no page.
        line: The 1-based line of the converted text to open at (1 when there is no page).
        problem: One line when the page could not be found (the file's text opens at its top).
    """

    path: str
    page: int | None
    line: int
    problem: str | None = None


def parse_citation(ref: str) -> tuple[str, int | None]:
    """Split a citation into (path, page): ``[[raw/x.pdf#page=3|the paper]]`` → ``("raw/x.pdf", 3)``."""
    s = ref.strip()
    if s.startswith("!"):
        s = s[1:]
    if s.startswith("[[") and s.endswith("]]"):
        s = s[2:-2].partition("|")[0]
    s = s.strip()
    m = _ANCHOR.match(s)
    if m is None:
        return s.partition("#")[0].strip(), None
    return m.group("path").strip(), int(m.group("page"))


def page_line(text: str, page: int) -> int | None:
    """The 1-based line of the ``[page N]`` (or ``[slide N]``) marker in converted text, or None."""
    for marker in (f"[page {page}]", f"[slide {page}]"):
        if text.startswith(marker + "\n"):
            return 1
        at = text.find(f"\n{marker}\n")
        if at >= 0:
            return text.count("\n", 0, at) + 2
    return None


def locate(path: str, page: int | None, conversion: Conversion) -> Citation:
    """Where ``page`` of ``path`` lies in its conversion (a pure function of the text)."""
    if page is None:
        return Citation(path, None, 1)
    if not conversion.ok:
        return Citation(path, page, 1, conversion.error)
    line = page_line(conversion.text, page)
    if line is not None:
        return Citation(path, page, line)
    if conversion.pages:
        unit = "slides" if conversion.kind == "pptx" else "pages"
        problem = f"{path} has {conversion.pages:,} {unit}; there is no page {page}"
        if conversion.notes:
            problem += f" in its converted text ({conversion.notes[0]})"
        return Citation(path, page, 1, problem)
    return Citation(path, page, 1, f"{path} has no pages; the citation's page {page} was ignored")


def resolve_citation(vault, ref: str, *, cache=None) -> Citation:
    """Resolve ``raw/x.pdf#page=3`` (or ``[[raw/x.pdf#page=3]]``) in ``vault`` to its line.

    Raises:
        UnsafePath: the path is not a file inside the vault.
    """
    from wikitui.core.vault.formats.dispatch import source_text

    path, page = parse_citation(ref)
    return locate(path, page, source_text(vault, path, cache=cache))
