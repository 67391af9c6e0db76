"""Which file is the vault's schema: ``WIKI.md``, else another tool's (DESIGN §10).

People who keep a wiki with Claude Code or Codex often already describe it in
``AGENTS.md`` or ``CLAUDE.md`` at the vault's root. With no ``WIKI.md`` that file is
the schema the agent follows, and the prompt names it, so the model knows where the
rules come from.
"""

from __future__ import annotations

from wikitui.core.vault.layout import SCHEMA_FILE
# Which file is the schema is the vault's business (lint reads it too); re-exported for the prompts.
from wikitui.core.vault.schema import OTHER_SCHEMA_FILES, read_schema

__all__ = ["OTHER_SCHEMA_FILES", "read_schema", "schema_heading"]


def schema_heading(name: str) -> str:
    """The prompt's heading over the schema's text, naming the file it came from."""
    if name == SCHEMA_FILE:
        return f"## {SCHEMA_FILE} (this vault's schema and conventions)"
    return (f"## The vault's schema, from {name} (this vault has no {SCHEMA_FILE}; follow {name} where these "
            f"instructions say {SCHEMA_FILE})")
