"""What the workspace remembers about a vault between runs (``.wikitui/state.json``).

Only small, disposable facts live here (the page last open); losing the file
loses nothing that matters, so a missing or corrupt file reads as empty.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from wikitui.core.vault.files import atomic_write
from wikitui.core.vault.layout import Vault

_FILE = "state.json"


@dataclass
class VaultState:
    """Remembered per-vault UI state.

    Attributes:
        last_page: Vault-relative path of the page open when the app last left it.
    """

    last_page: str | None = None

    @classmethod
    def load(cls, vault: Vault) -> "VaultState":
        """Read the state of ``vault`` (defaults when absent or unreadable)."""
        try:
            data = json.loads((vault.state_dir / _FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict):
            return cls()
        last = data.get("last_page")
        return cls(last_page=last if isinstance(last, str) else None)

    def save(self, vault: Vault) -> None:
        """Write the state; a read-only vault simply keeps nothing."""
        try:
            atomic_write(vault.state_dir / _FILE, json.dumps(asdict(self), indent=2) + "\n")
        except OSError:
            pass
