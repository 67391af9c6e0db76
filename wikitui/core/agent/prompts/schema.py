"""Which file is the vault's schema: ``WIKI.md``, else another tool's (DESIGN §10).

People who keep a wiki with Claude Code or Codex often already describe it in
``AGENTS.md`` or ``CLAUDE.md`` at the vault's root. With no ``WIKI.md`` that file is
the schema the agent follows, and the prompt names it, so the model knows where the
rules come from.
"""

from __future__ import annotations

from wikitui.core.vault.files import read_text
from wikitui.core.vault.layout import SCHEMA_FILE, Vault

#: Schema files of other tools, read in this order when the vault has no WIKI.md.
OTHER_SCHEMA_FILES = ("AGENTS.md", "CLAUDE.md")


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


def schema_heading(name: str) -> str:
    """The prompt's heading over the schema's text, naming the file it came from."""
    if name == SCHEMA_FILE:
        return f"## {SCHEMA_FILE} (this vault's schema and conventions)"
    return (f"## The vault's schema, from {name} (this vault has no {SCHEMA_FILE}; follow {name} where these "
            f"instructions say {SCHEMA_FILE})")
