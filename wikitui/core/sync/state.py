"""A sync's conflicts waiting for the person, and how they chose to resolve them (``.wikitui/sync.json``).

A sync that meets a conflict writes nothing and pushes nothing; it keeps here the
two commits it was merging and each conflict. The person resolves each path (take
ours, take theirs, or the page as they edited it on disk) and syncs again; a
resolution holds only while both sides are still at the commits it was made for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from wikitui.core.sync.combine import Conflict
from wikitui.core.vault.files import atomic_write
from wikitui.core.vault.layout import Vault

STATE_NAME = "sync.json"
#: How a conflicted path may be resolved: our version, theirs, or the file as it is on disk now (edited by hand).
CHOICES = ("ours", "theirs", "file")


@dataclass
class SyncState:
    """The conflicts of the last sync and their resolutions.

    Attributes:
        ours: Our commit when the conflicts were found.
        theirs: The upstream commit.
        conflicts: Each conflicted path.
        resolved: Each path's chosen resolution (one of :data:`CHOICES`).
    """

    ours: str
    theirs: str
    conflicts: list[Conflict] = field(default_factory=list)
    resolved: dict[str, str] = field(default_factory=dict)

    def open_paths(self) -> list[str]:
        """The conflicted paths not yet resolved."""
        return [c.path for c in self.conflicts if c.path not in self.resolved]

    def to_json(self) -> dict:
        """JSON-ready."""
        return {"ours": self.ours, "theirs": self.theirs, "resolved": self.resolved,
                "conflicts": [{"path": c.path, "why": c.why, "regions": c.regions} for c in self.conflicts]}


def load_state(vault: Vault) -> SyncState | None:
    """The waiting conflicts, or None (none recorded, or the file is unreadable: the next sync finds them again)."""
    try:
        data = json.loads((vault.state_dir / STATE_NAME).read_text(encoding="utf-8"))
        return SyncState(
            ours=str(data["ours"]), theirs=str(data["theirs"]),
            conflicts=[Conflict(str(c["path"]), str(c["why"]), [str(r) for r in c.get("regions", [])])
                       for c in data["conflicts"]],
            resolved={str(k): str(v) for k, v in data.get("resolved", {}).items() if v in CHOICES},
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save_state(vault: Vault, state: SyncState) -> None:
    """Record the conflicts and resolutions (atomically)."""
    from wikitui.core.vault.statedir import ensure_state_dir

    atomic_write(ensure_state_dir(vault) / STATE_NAME, json.dumps(state.to_json(), indent=1) + "\n")


def clear_state(vault: Vault) -> None:
    """Forget the conflicts (the sync that resolved them went through)."""
    (vault.state_dir / STATE_NAME).unlink(missing_ok=True)
