"""A batch's persistent queue: ``.wikitui/batches/<id>.json``, written atomically after every change.

Each entry is one source in one state: ``queued``, ``planning``, ``writing``,
``proposed`` (its pending changeset's id), ``failed`` (why) or ``skipped`` (why).

Nothing is lost or done twice after a kill: an entry names the changeset id its turn
will save *before* the turn starts (the turn's builder is given that id). The turn
saves the changeset (pending), then the queue says ``proposed``. A kill between the
two leaves a ``planning``/``writing`` entry whose changeset exists (pending, or
already applied by the user): :meth:`Batch.recover` marks it proposed instead of
running the source again. An entry whose changeset does not exist is queued again.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path

from wikitui.core.changes.builder import new_changeset_id
from wikitui.core.changes.pending import PendingStore
from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.files import atomic_write
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.statedir import ensure_state_dir

BATCH_DIR = "batches"
STATES = ("queued", "planning", "writing", "proposed", "failed", "skipped")
#: States a source is in while its turn runs (a kill leaves them behind).
RUNNING = ("planning", "writing")
_ID = re.compile(r"^batch-[0-9]{8}-[0-9]{6}-[0-9a-f]{4}$")


class NoBatch(WikituiError):
    """No unfinished batch to resume (or the named one does not exist)."""


@dataclass
class Entry:
    """One source of a batch.

    Attributes:
        source: The source's vault-relative path.
        state: One of :data:`STATES`.
        sha256: The source's content hash when it was queued.
        size: Its size in bytes (for the estimate).
        changeset: The pending changeset's id: reserved before the turn, proposed after it.
        why: Why it failed or was skipped.
        tokens: ``{"in": n, "out": n}`` its turn spent.
        cost: US dollars its turn spent.
    """

    source: str
    state: str = "queued"
    sha256: str | None = None
    size: int = 0
    changeset: str | None = None
    why: str | None = None
    tokens: dict = field(default_factory=lambda: {"in": 0, "out": 0})
    cost: float = 0.0

    @property
    def retryable(self) -> bool:
        """Whether a resume runs it: waiting, interrupted, or failed with nothing proposed."""
        return self.state in ("queued", *RUNNING) or (self.state == "failed" and self.changeset is None)


@dataclass
class Batch:
    """A batch and where it lives.

    Attributes:
        id: ``batch-YYYYMMDD-HHMMSS-xxxx``.
        created: ISO timestamp.
        selection: What the user asked for (``raw/papers/``, ``raw/**/*.pdf``, ``--new``).
        model: The model it was started with.
        entries: The sources, in order.
        path: Its file (not serialised).
    """

    id: str
    created: str
    selection: str
    model: str | None
    entries: list[Entry]
    path: Path | None = None

    # ------------------------------------------------------------ queries
    def counts(self) -> dict[str, int]:
        """How many entries are in each state (every state named, zeros included)."""
        out = dict.fromkeys(STATES, 0)
        for e in self.entries:
            out[e.state] = out.get(e.state, 0) + 1
        return out

    @property
    def unfinished(self) -> bool:
        """Whether a resume has anything to do."""
        return any(e.retryable for e in self.entries)

    @property
    def spent(self) -> float:
        """US dollars the batch's turns spent so far."""
        return sum(e.cost for e in self.entries)

    # ------------------------------------------------------------ changes
    def save(self) -> None:
        """Write the queue atomically (temp file, fsync, rename)."""
        assert self.path is not None
        data = {"id": self.id, "created": self.created, "selection": self.selection, "model": self.model,
                "entries": [asdict(e) for e in self.entries]}
        atomic_write(self.path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")

    def reserve(self, entry: Entry) -> str:
        """Give ``entry`` the id its changeset will have, mark it planning and save (before its turn starts)."""
        entry.changeset = new_changeset_id()
        entry.state, entry.why = "planning", None
        entry.tokens, entry.cost = {"in": 0, "out": 0}, 0.0
        self.save()
        return entry.changeset

    def set_state(self, entry: Entry, state: str, *, why: str | None = None) -> None:
        """Move ``entry`` to ``state`` and save."""
        entry.state = state
        entry.why = why
        self.save()

    def recover(self, vault: Vault) -> list[Entry]:
        """Settle the entries a kill left running; returns those marked proposed.

        A ``planning``/``writing`` entry whose reserved changeset is pending or was
        applied since is ``proposed``; any other goes back to ``queued``.
        """
        store = PendingStore(vault)
        applied = _applied_ids(vault)
        settled = []
        for e in self.entries:
            if e.state not in RUNNING:
                continue
            if e.changeset and (e.changeset in applied or (store.folder / f"{e.changeset}.json").is_file()):
                e.state, e.why = "proposed", None
                settled.append(e)
            else:
                e.state, e.changeset = "queued", None
        self.save()
        return settled


def _applied_ids(vault: Vault) -> set[str]:
    from wikitui.core.changes.undo import list_records

    return {str(r.get("changeset")) for _rel, r in list_records(vault) if r.get("changeset")}


# ------------------------------------------------------------------ the store
def folder(vault: Vault) -> Path:
    """``.wikitui/batches/``."""
    return vault.state_dir / BATCH_DIR


def sessions_folder(vault: Vault, batch: Batch) -> Path:
    """``.wikitui/batches/<id>/sessions/``: the transcripts of the batch's sources, apart from the chat's own
    sessions (so the next start resumes the user's conversation, not the batch's last source)."""
    return folder(vault) / batch.id / "sessions"


def new_batch(vault: Vault, selection: str, model: str | None, entries: list[Entry]) -> Batch:
    """A new batch with ``entries``, saved."""
    ensure_state_dir(vault)
    now = _dt.datetime.now()
    batch_id = f"batch-{now:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"
    batch = Batch(batch_id, now.isoformat(timespec="seconds"), selection, model, entries,
                  folder(vault) / f"{batch_id}.json")
    batch.save()
    return batch


def load(path: Path) -> Batch:
    """The batch stored at ``path``.

    Raises:
        NoBatch: it is missing or does not parse.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        entries = [Entry(**{k: v for k, v in e.items() if k in Entry.__dataclass_fields__})
                   for e in data["entries"]]
        for e in entries:
            if e.state not in STATES:
                raise ValueError(f"unknown state {e.state!r}")
        return Batch(str(data["id"]), str(data["created"]), str(data.get("selection", "")), data.get("model"),
                     entries, path)
    except FileNotFoundError:
        raise NoBatch(f"no batch {path.stem}") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise NoBatch(f"batch {path.stem} is unreadable: {exc}") from None


def all_batches(vault: Vault) -> list[Batch]:
    """Every readable batch of the vault, oldest first."""
    try:
        paths = sorted(p for p in folder(vault).glob("batch-*.json") if _ID.match(p.stem))
    except OSError:
        return []
    out = []
    for p in paths:
        try:
            out.append(load(p))
        except NoBatch:
            continue
    return out


def last_unfinished(vault: Vault) -> Batch:
    """The newest batch with sources left to run.

    Raises:
        NoBatch: there is none.
    """
    for batch in reversed(all_batches(vault)):
        if batch.unfinished:
            return batch
    raise NoBatch("no unfinished batch to resume: start one with `wikitui ingest raw/FOLDER/` or `--new`")


def proposed_elsewhere(vault: Vault) -> tuple[dict[tuple[str, str], str], set[str]]:
    """((source, sha256) -> changeset id of every batch entry whose changeset is still pending review,
    the ids of every changeset any batch proposed)."""
    store = PendingStore(vault)
    out, ids = {}, set()
    for batch in all_batches(vault):
        for e in batch.entries:
            if e.changeset:
                ids.add(e.changeset)
            # Any state: a batch killed before its queue said "proposed" has its changeset pending all the same.
            if e.changeset and e.sha256 and (store.folder / f"{e.changeset}.json").is_file():
                out[(e.source, e.sha256)] = e.changeset
    return out, ids


def queue_sources(vault: Vault, paths: list[str], selection: str, model: str | None) -> str:
    """A new batch of ``paths`` (clipped sources, say), every one queued; ``wikitui ingest --resume`` runs it.

    Returns:
        The batch's id.
    """
    from wikitui.core.vault.staleness import file_sha256

    entries = []
    for path in dict.fromkeys(paths):
        absolute = vault.root / path
        entries.append(Entry(path, sha256=file_sha256(absolute) or "",
                             size=absolute.stat().st_size if absolute.is_file() else 0))
    return new_batch(vault, selection, model, entries).id
