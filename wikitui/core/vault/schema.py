"""What the vault's own schema asks for (DESIGN §10): the file, and the conventions lint checks by.

A vault keeps its conventions in ``WIKI.md``, else (kept with other tools) in ``AGENTS.md``
or ``CLAUDE.md`` at its root: :func:`read_schema` finds that file. Lint checks what the
vault asks for, not wikitui's defaults (:func:`lint_rules`):

- the frontmatter fields every page must carry are the ones the schema asks for: the
  fields a line of it calls required, else the keys of its frontmatter example (a
  ``---`` block in a code block; keys commented "optional" aside); a schema without an
  example asks for none. With no fields in the schema, wikitui's own (``title``,
  ``type``, ``summary``) are checked only where wikitui keeps the catalog (index.md
  has its marker) or the pages use them (a quarter of them or more carry ``type`` or
  ``summary``): an Obsidian vault without frontmatter is not a thousand problems;
- ``not-in-index`` only where wikitui keeps the catalog: a hand-written index.md is an
  essay, not a list every page must be in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wikitui.core.vault.catalog import INDEX_MARKER
from wikitui.core.vault.files import read_text
from wikitui.core.vault.layout import SCHEMA_FILE, Vault

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.vault.graph import LinkGraph

#: Schema files of other tools, read in this order when the vault has no WIKI.md.
OTHER_SCHEMA_FILES = ("AGENTS.md", "CLAUDE.md")
#: wikitui's own frontmatter fields, checked where the vault uses them.
DEFAULT_FIELDS = ("title", "type", "summary")
#: The share of pages carrying ``type`` or ``summary`` from which a vault uses wikitui's fields.
USES_FIELDS_SHARE = 0.25

_FENCE = re.compile(r"^\s*(```|~~~)")
_KEY = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*:(.*)$")
_TICKED = re.compile(r"`([A-Za-z_][\w-]*)`")
_REQUIRED = re.compile(r"\b(required|mandatory|must (have|carry|include))\b", re.IGNORECASE)
_ABOUT_FIELDS = re.compile(r"front ?matter|\bfields?\b|propert", re.IGNORECASE)


def read_schema(vault: Vault) -> tuple[str, str]:
    """``(file name, text)`` of the vault's schema: WIKI.md when present, else AGENTS.md, else CLAUDE.md.

    A file that is missing, unreadable or blank does not count; with none, ``(WIKI.md, "")``.
    """
    for name in (SCHEMA_FILE, *OTHER_SCHEMA_FILES):
        path = vault.root / name
        try:
            if not path.is_file():
                continue
            text = read_text(path)
        except (OSError, ValueError):
            continue
        if text.strip():
            return name, text
    return SCHEMA_FILE, ""


def _code_blocks(text: str) -> list[list[str]]:
    """The schema's code blocks, fenced or indented by four spaces (or a tab), as lists of lines."""
    blocks: list[list[str]] = []
    fenced: list[str] | None = None
    indented: list[str] = []
    for line in text.splitlines():
        if fenced is not None:
            if _FENCE.match(line):
                blocks.append(fenced)
                fenced = None
            else:
                fenced.append(line)
            continue
        if _FENCE.match(line):
            fenced = []
            continue
        if line.startswith(("    ", "\t")):
            indented.append(line[4:] if line.startswith("    ") else line[1:])
            continue
        if indented and line.strip():
            blocks.append(indented)
            indented = []
    if indented:
        blocks.append(indented)
    return blocks


def _example_keys(text: str) -> tuple[list[str], set[str]]:
    """The keys of the schema's first frontmatter example (a ``---`` block inside a code block),
    and those of them a comment calls optional."""
    for block in _code_blocks(text):
        lines = [line.strip() for line in block]
        if "---" not in lines:
            continue
        start = lines.index("---") + 1
        end = lines.index("---", start) if "---" in lines[start:] else len(lines)
        keys: list[str] = []
        optional: set[str] = set()
        for line in block[start:end]:
            if line[:1].isspace():
                continue  # a nested value, not a key of the frontmatter
            m = _KEY.match(line)
            if m and m.group(1) not in keys:
                keys.append(m.group(1))
                if "optional" in m.group(2).lower():
                    optional.add(m.group(1))
        if keys:
            return keys, optional
    return [], set()


def schema_fields(text: str) -> tuple[str, ...]:
    """The frontmatter fields a schema asks every page for ("" schema: none).

    The fields a line outside code calls required (``title``, ``type`` and ``summary`` are
    required) when one does; else the keys of its frontmatter example, those commented
    "optional" aside. Without an example, only a line about frontmatter or fields names them.
    """
    if not text.strip():
        return ()
    keys, optional = _example_keys(text)
    required: list[str] = []
    for line in text.splitlines():
        if not _REQUIRED.search(line) or line.startswith(("    ", "\t")):
            continue
        if keys or _ABOUT_FIELDS.search(line):
            for name in _TICKED.findall(line):
                if (not keys or name in keys) and name not in required:
                    required.append(name)
    if required:
        return tuple(required)
    return tuple(k for k in keys if k not in optional)


@dataclass(frozen=True, slots=True)
class LintRules:
    """What lint checks in this vault.

    Attributes:
        fields: The frontmatter fields every page must carry; empty: no frontmatter check
            (a frontmatter that does not parse is still reported).
        why: Who asks for them, for the messages ("CLAUDE.md asks for title, lang, sources");
            "" when no field is asked for.
        catalog_kept: Whether index.md carries wikitui's marker (``not-in-index`` is checked then only).
    """

    fields: tuple[str, ...]
    why: str
    catalog_kept: bool


def catalog_kept(vault: Vault) -> bool:
    """Whether wikitui keeps the catalog: index.md exists and carries its marker line."""
    try:
        return INDEX_MARKER in read_text(vault.root / vault.index_path)
    except (OSError, ValueError):
        return False


def _pages_use_default_fields(vault: Vault, graph: "LinkGraph") -> bool:
    special = {vault.index_path, vault.log_path}
    pages = [info for path, info in graph.pages.items() if path not in special]
    if not pages:
        return False
    using = sum(1 for info in pages if info.has_frontmatter and (info.meta.get("type") or info.meta.get("summary")))
    return using >= USES_FIELDS_SHARE * len(pages)


def lint_rules(vault: Vault, graph: "LinkGraph") -> LintRules:
    """The conventions lint checks this vault by (see the module's docstring)."""
    kept = catalog_kept(vault)
    name, text = read_schema(vault)
    asked = schema_fields(text)
    if asked:
        return LintRules(asked, f"{name} asks for {', '.join(asked)}", kept)
    default = ", ".join(DEFAULT_FIELDS)
    if kept:
        return LintRules(DEFAULT_FIELDS, f"wikitui's catalog asks for {default}", kept)
    if _pages_use_default_fields(vault, graph):
        return LintRules(DEFAULT_FIELDS, f"the vault's pages use {default}", kept)
    return LintRules((), "", kept)
