"""The changeset data model: a :class:`Changeset` of :class:`FileChange` s with their hunks.

A changeset is what one agent turn proposed: per file the text it was proposed
against (and the hash of those bytes), the proposed text, and the hunks between
them, each one reviewable decision. It round-trips through JSON
(:meth:`Changeset.to_dict` / :meth:`Changeset.from_dict`) and prints as a patch
``git apply`` accepts (:meth:`Changeset.to_patch`). Import these names from
:mod:`wikitui.core.changes.builder`, which also holds the builder.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import secrets
from dataclasses import dataclass, field
from typing import NamedTuple

from wikitui.core.changes.assets import binary_hunk, format_binary_patch, from_base64, to_base64
from wikitui.core.changes.diffs import Hunk, compute_hunks, format_file_patch
from wikitui.core.base.errors import Conflict, WikituiError
from wikitui.core.vault.files import decode_exact, encode_exact

#: File actions.
ACTIONS = ("edit", "create", "delete", "move")


class ProposalError(WikituiError):
    """A proposal that cannot be recorded; the message tells the model what to do instead."""


class FileConflict(Conflict):
    """A file changed on disk in a way the change cannot be merged with.

    Attributes:
        path: The file (vault-relative).
        reason: Why, in a few words.
        regions: Each conflicting region, git-style (``<<<<<<< on disk`` ... ``>>>>>>> proposed``);
            empty when the whole file is at stake (deleted, created meanwhile).
    """

    def __init__(self, path: str, reason: str, regions: list[str] | str | None = None) -> None:
        self.path = path
        self.reason = reason
        self.regions = [regions] if isinstance(regions, str) and regions else list(regions or [])
        message = f"{path}: {reason}; nothing was written"
        if self.regions:
            message += "\n" + "".join(r if r.endswith("\n") else r + "\n" for r in self.regions).rstrip("\n")
        super().__init__(message)

    @property
    def region(self) -> str:
        """The conflicting regions as one text."""
        return "".join(self.regions)


def sha256_bytes(data: bytes) -> str:
    """The hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def new_changeset_id(now: _dt.datetime | None = None, prefix: str = "cs") -> str:
    """A short unique changeset id such as ``cs-20261130-a1b2c3`` (``mcp-...`` for an MCP session's)."""
    now = now or _dt.datetime.now()
    return f"{prefix}-{now:%Y%m%d}-{secrets.token_hex(3)}"


class ChangeStats(NamedTuple):
    """Size of a changeset: files touched, lines added, lines removed."""

    files: int
    added: int
    removed: int


@dataclass(slots=True)
class FileChange:
    """One file's change.

    Attributes:
        path: Vault-relative path (the old path of a move).
        action: ``edit``, ``create``, ``delete`` or ``move``.
        base_hash: sha256 of the file's bytes when proposed (None for a new file).
        base_text: The file's text when proposed ("" for a new file), BOM and CRLF kept.
        new_text: The proposed text ("" for a deletion).
        new_path: A move's destination.
        reason: Why, in the agent's words.
        hunks: The reviewable pieces; a move's first hunk is its rename (kind ``rename``).
        own_line: (old line, new line), 0-based, of a one-line change with a hunk of its
            own: the ``updated:`` date wikitui proposes with an edit (None when none).
        binary: A binary file (a chart's picture): ``base_text`` and ``new_text`` hold its
            bytes decoded with ``decode_exact``; one hunk, never merged (:mod:`.assets`).
    """

    path: str
    action: str
    base_hash: str | None
    base_text: str
    new_text: str
    new_path: str | None = None
    reason: str = ""
    hunks: list[Hunk] = field(default_factory=list)
    own_line: tuple[int, int] | None = None
    binary: bool = False

    @property
    def display_path(self) -> str:
        """``path``, or ``old → new`` for a move."""
        return f"{self.path} → {self.new_path}" if self.action == "move" else self.path

    @property
    def final_path(self) -> str:
        """Where the file ends up when the whole change is accepted."""
        return self.new_path if self.action == "move" and self.new_path else self.path

    def to_patch(self) -> str:
        """This file's part of a git-style unified patch."""
        if self.binary:
            old = encode_exact(self.base_text) if self.action != "create" else None
            return format_binary_patch(self.action, self.path, old, encode_exact(self.new_text))
        hunks = self.hunks
        if self.own_line is not None:
            # A hunk of its own may lack the context `git apply` wants; the patch is the whole
            # change anyway, so it is cut the usual way.
            hunks = [h for h in hunks if h.kind != "text"] + compute_hunks(self.base_text, self.new_text, 0)
        return format_file_patch(self.action, self.path, self.new_path, hunks)

    def to_dict(self) -> dict:
        """A JSON-ready dict (a binary file's texts as base64)."""
        code = to_base64 if self.binary else str
        return {
            "path": self.path,
            "action": self.action,
            "base_hash": self.base_hash,
            "base_text": code(self.base_text),
            "new_text": code(self.new_text),
            "new_path": self.new_path,
            "reason": self.reason,
            "hunks": [h.to_dict() for h in self.hunks],
            "own_line": list(self.own_line) if self.own_line else None,
            **({"binary": True} if self.binary else {}),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "FileChange":
        """The inverse of :meth:`to_dict`."""
        hunks = [Hunk.from_dict(h) for h in data.get("hunks", [])]
        fields = {k: data[k] for k in ("path", "action", "base_hash", "base_text", "new_text")}
        if fields["action"] not in ACTIONS:
            raise ValueError(f"unknown file action {fields['action']!r}")
        own = data.get("own_line")
        own_line = (int(own[0]), int(own[1])) if isinstance(own, list) and len(own) == 2 else None
        binary = data.get("binary") is True
        if binary:
            try:
                for key in ("base_text", "new_text"):
                    fields[key] = decode_exact(from_base64(fields[key]))
            except (ValueError, AttributeError) as exc:
                raise ValueError(f"binary file {fields['path']!r}: {key} is not base64") from exc
        return cls(**fields, new_path=data.get("new_path"), reason=data.get("reason", ""), hunks=hunks,
                   own_line=own_line, binary=binary)


def make_file_change(
    index: int, path: str, action: str, base_hash: str | None, base_text: str, new_text: str,
    new_path: str | None = None, reason: str = "", own_line: tuple[int, int] | None = None,
    binary: bool = False,
) -> FileChange:
    """A :class:`FileChange` with its hunks computed.

    A creation or deletion is one decision: one hunk holding every line (kind
    ``file`` and no lines when the file is empty). A move starts with a ``rename``
    hunk, then its content hunks. ``own_line`` (old line, new line) gets a hunk of its own.
    A binary file is one hunk (kind ``binary``, no lines).
    """
    fc = FileChange(path, action, base_hash, base_text, new_text, new_path, reason, own_line=own_line, binary=binary)
    if binary:
        hunks = [binary_hunk(index, path, action, base_text, new_text)]
    elif action in ("create", "delete"):
        hunks = compute_hunks(base_text, new_text, index, context=0)
        if not hunks:
            what = "new empty file" if action == "create" else "delete empty file"
            hunks = [Hunk(f"f{index}h0", index, f"{what} {path}", kind="file")]
    elif action == "move":
        rename = Hunk(f"f{index}h0", index, f"rename {path} → {new_path}", kind="rename")
        hunks = [rename, *compute_hunks(base_text, new_text, index, first=1, own_line=own_line)]
    else:
        hunks = compute_hunks(base_text, new_text, index, own_line=own_line)
    fc.hunks = hunks
    return fc


@dataclass(slots=True, kw_only=True)
class Changeset:
    """The proposals of one agent turn.

    Attributes:
        id: Short unique id (``cs-20261130-a1b2c3``); kept by what remains after a partial apply.
        op: The operation (``ingest``, ``query``, ``lint``, ``edit``).
        title: What it is about (a source's title, a question).
        created: ISO timestamp of the proposal.
        model: The model that proposed it.
        tokens: Tokens the turn spent (an int or a mapping).
        cost: The turn's cost in US dollars.
        files: The file changes, in proposal order.
        usage_logged: Whether tokens and cost already went into log.md (a partial apply logs them once).
        review: The second reviewer's request, logged apart from the turn's
            (``{"model", "tokens", "cost"}``; None when no ``review_model`` read it).
    """

    id: str
    op: str
    title: str
    created: str
    model: str | None = None
    tokens: int | dict | None = None
    cost: float | None = None
    files: list[FileChange] = field(default_factory=list)
    usage_logged: bool = False
    review: dict | None = None

    def hunk_ids(self) -> list[str]:
        """Every hunk id, in review order."""
        return [h.id for fc in self.files for h in fc.hunks]

    def hunk(self, hunk_id: str) -> Hunk:
        """The hunk with ``hunk_id`` (KeyError when there is none)."""
        for fc in self.files:
            for h in fc.hunks:
                if h.id == hunk_id:
                    return h
        raise KeyError(hunk_id)

    def file_of(self, hunk_id: str) -> FileChange:
        """The file a hunk belongs to (KeyError when there is none)."""
        return self.files[self.hunk(hunk_id).file]

    def keep_reasons(self, reasons: dict[str, str], undecided: set[str] | None = None) -> bool:
        """Put the person's reasons on their hunks (those of ``undecided`` hunks only, when given).

        A reason waits on its hunk, in the pending file, until the hunk is decided and the
        reason goes to the agent. Returns whether any hunk's reason changed.
        """
        changed = False
        for fc in self.files:
            for h in fc.hunks:
                reason = reasons.get(h.id, "") if undecided is None or h.id in undecided else ""
                if h.reason != reason:
                    h.reason, changed = reason, True
        return changed

    def stats(self) -> ChangeStats:
        """Files touched, lines added, lines removed."""
        added = sum(h.added for fc in self.files for h in fc.hunks)
        removed = sum(h.removed for fc in self.files for h in fc.hunks)
        return ChangeStats(len(self.files), added, removed)

    def to_patch(self) -> str:
        """The whole changeset as a unified patch that ``git apply`` accepts in the vault."""
        return "".join(fc.to_patch() for fc in self.files)

    def to_dict(self) -> dict:
        """A JSON-ready dict (see :meth:`from_dict`)."""
        return {
            "id": self.id, "op": self.op, "title": self.title, "created": self.created,
            "model": self.model, "tokens": self.tokens, "cost": self.cost,
            "usage_logged": self.usage_logged, "files": [fc.to_dict() for fc in self.files],
            "review": self.review,
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Changeset":
        """Rebuild a changeset saved with :meth:`to_dict`.

        Raises:
            ValueError: The data is not a changeset.
        """
        try:
            return cls(
                id=str(data["id"]), op=str(data["op"]), title=str(data["title"]), created=str(data["created"]),
                model=data.get("model"), tokens=data.get("tokens"), cost=data.get("cost"),
                files=[FileChange.from_dict(f) for f in data["files"]],
                usage_logged=bool(data.get("usage_logged", False)),
                review=data.get("review") if isinstance(data.get("review"), dict) else None,
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a changeset: missing or malformed {exc}") from exc
