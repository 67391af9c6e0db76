"""What a turn's changeset (and so its log.md entry and commit) is called.

An ingest is named for its source as a reader names it: the source's frontmatter
``title``, else its first level-1 heading, else its file name — ``ingest | Chapter 1:
Down the Rabbit-Hole`` in log.md, not ``ingest | Ingest raw/chapter-01.md``.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from wikitui.core.vault.files import decode_text, read_bytes

#: Bytes of a source read to find its title (a title sits at the top).
_HEAD_BYTES = 64 * 1024
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def _one_line(text: str, limit: int) -> str:
    line = re.sub(r"\s+", " ", text).strip()
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def source_title(root, rel: str, limit: int = 120) -> str:
    """The title of the source at ``rel`` (under the vault folder ``root``): frontmatter, first H1, or file name.

    Never raises: a source that cannot be read is named by its file name.
    """
    fallback = PurePosixPath(rel).stem or rel
    try:
        text, _ok = decode_text(read_bytes(root / rel, _HEAD_BYTES))
    except (OSError, ValueError):
        return fallback
    title = ""
    body = text
    if text.startswith("---"):
        from wikitui.core.vault.page import load_frontmatter, split_frontmatter

        try:
            fm, body, _line = split_frontmatter(text)
            meta = load_frontmatter(fm) if fm is not None else {}
            value = meta.get("title") if isinstance(meta, dict) else None
            title = str(value).strip() if isinstance(value, (str, int, float)) else ""
        except Exception:  # broken YAML (or worse) in a source: its heading or name will do
            title, body = "", text
    if not title:
        title = _first_h1(body)
    return _one_line(title, limit) or fallback


def _first_h1(text: str) -> str:
    """The first level-1 heading outside fenced code (a ``# comment`` in code is not a heading)."""
    fence = ""
    for line in text.splitlines():
        stripped = line.lstrip()
        if fence:
            if stripped.startswith(fence):
                fence = ""
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            continue
        m = _H1.match(line)
        if m:
            return m.group(1).strip()
    return ""


def turn_title(op: str, prompt: str, root=None, source: str | None = None) -> str:
    """The changeset title of a turn: the source's title for an ingest, "Health check" for lint, else the question
    (``Fold in: <question>`` for a fold, ``Assumptions checked against <path>`` for ``lint --challenge``)."""
    if op == "ingest" and source and root is not None:
        return source_title(root, source)
    if op == "lint":
        return "Health check"
    if op == "fold":
        return _one_line("Fold in: " + prompt, 80)
    if op == "challenge":
        return _one_line("Assumptions checked against " + prompt, 80)
    return _one_line(prompt, 80)
