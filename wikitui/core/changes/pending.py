"""Pending changesets, kept on disk so that a crash or a quit loses none (DESIGN §4).

Each pending changeset is one JSON file, ``.wikitui/pending/<id>.json``, written
atomically (temp file, fsync, rename): a reader sees the old file or the new one,
never half of either.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from wikitui.core.changes.model import Changeset
from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.files import atomic_write, json_bytes
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.statedir import ensure_state_dir

PENDING_DIR = "pending"
#: Changeset ids as :func:`~wikitui.core.changes.model.new_changeset_id` makes them (never a path):
#: ``cs-`` for the agent's turns, ``mcp-`` for an MCP session's proposals.
_ID = re.compile(r"^(?:cs|mcp)-[0-9]{8}-[0-9a-f]{6}$")


class UnknownChangeset(WikituiError):
    """No pending changeset has that id (or its file is unreadable)."""


class PendingStore:
    """The vault's pending changesets.

    Args:
        vault: The vault.
    """

    def __init__(self, vault: Vault) -> None:
        self.vault = vault

    @property
    def folder(self) -> Path:
        """``.wikitui/pending/``."""
        return self.vault.state_dir / PENDING_DIR

    @staticmethod
    def _check_id(changeset_id: str) -> str:
        if not isinstance(changeset_id, str) or not _ID.match(changeset_id):
            raise UnknownChangeset(f"not a changeset id: {changeset_id!r}")
        return changeset_id

    def relpath(self, changeset_id: str) -> str:
        """The vault-relative path of a pending changeset's file."""
        return self.vault.state_rel(f"{PENDING_DIR}/{self._check_id(changeset_id)}.json")

    @staticmethod
    def encode(changeset: Changeset) -> bytes:
        """A changeset as the bytes of its JSON file."""
        return json_bytes(changeset.to_dict())  # a page's kept invalid bytes travel as \udcXX escapes

    def write_raw(self, changeset_id: str, data: bytes | None) -> None:
        """Write a changeset file's bytes (None: remove it)."""
        path = self.vault.root / self.relpath(changeset_id)
        if data is None:
            path.unlink(missing_ok=True)
        else:
            ensure_state_dir(self.vault)
            atomic_write(path, data)

    def save(self, changeset: Changeset) -> None:
        """Store (or replace) a pending changeset."""
        self.write_raw(changeset.id, self.encode(changeset))

    def load(self, changeset_id: str) -> Changeset:
        """A pending changeset by id.

        Raises:
            UnknownChangeset: None has that id, or its file does not parse.
        """
        path = self.vault.root / self.relpath(changeset_id)
        try:
            return Changeset.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise UnknownChangeset(f"no pending changeset {changeset_id}") from None
        except (OSError, ValueError) as exc:
            raise UnknownChangeset(f"pending changeset {changeset_id} is unreadable: {exc}") from None

    def keep_reasons(self, changeset_id: str, reasons: dict[str, str]) -> bool:
        """Keep the person's reasons on the hunks of a pending changeset (by hunk id); whether it was saved.

        Read from disk afresh: a changeset applied or dropped meanwhile is not brought back.
        """
        try:
            changeset = self.load(changeset_id)
        except UnknownChangeset:
            return False
        if not changeset.keep_reasons(reasons):
            return False
        self.save(changeset)
        return True

    def list(self) -> list[Changeset]:
        """Every pending changeset, oldest first (unreadable files are skipped)."""
        out: list[Changeset] = []
        try:
            names = sorted(p.stem for p in self.folder.glob("*.json"))
        except OSError:
            return []
        for name in names:
            if not _ID.match(name):
                continue
            try:
                out.append(self.load(name))
            except UnknownChangeset:
                continue
        out.sort(key=lambda cs: (cs.created, cs.id))
        return out

    def latest(self) -> Changeset | None:
        """The newest pending changeset, or None."""
        items = self.list()
        return items[-1] if items else None

    def discard(self, changeset_id: str) -> bool:
        """Drop a pending changeset; whether there was one."""
        path = self.vault.root / self.relpath(changeset_id)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        return True
