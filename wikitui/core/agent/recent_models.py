"""The models a vault's agent turns used lately (``.wikitui/models.json``), most recent first, for ``/model``.

A small, disposable fact of the vault's state, like the sessions beside it: a missing
or corrupt file reads as no models, a read-only vault keeps nothing, and the file is
written only when the order changes (a turn with the model already first writes nothing).
"""

from __future__ import annotations

import json

from wikitui.core.vault.files import atomic_write
from wikitui.core.vault.layout import Vault

_FILE = "models.json"
#: Most models remembered.
LIMIT = 8


def recent_models(vault: Vault) -> list[str]:
    """The models used lately in ``vault``, most recent first (empty when none are known)."""
    try:
        data = json.loads((vault.state_dir / _FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    models = data.get("recent") if isinstance(data, dict) else None
    if not isinstance(models, list):
        return []
    return [m for m in models if isinstance(m, str) and m.strip()][:LIMIT]


def remember_model(vault: Vault, model: str | None) -> None:
    """Put ``model`` first among the vault's recent models (nothing for no model)."""
    if not model:
        return
    known = recent_models(vault)
    if known[:1] == [model]:
        return
    models = [model, *(m for m in known if m != model)][:LIMIT]
    try:
        atomic_write(vault.state_dir / _FILE, json.dumps({"recent": models}, indent=2) + "\n")
    except OSError:
        pass
