"""Pages others changed since you last read them (DESIGN §14): marked in the tree until opened.

A sync that writes pages that came in records them in ``.wikitui/unread.json``; opening
a page takes it off. The record is this machine's (``.wikitui/`` never travels).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from wikitui.core.vault.files import atomic_write
from wikitui.core.vault.layout import Vault

UNREAD_NAME = "unread.json"


def read_unread(vault: Vault) -> set[str]:
    """The pages changed by others and not opened here since (none when the record is missing or unreadable)."""
    try:
        data = json.loads((vault.state_dir / UNREAD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {p for p in data if isinstance(p, str)} if isinstance(data, list) else set()


def _write(vault: Vault, paths: set[str]) -> None:
    from wikitui.core.vault.statedir import ensure_state_dir

    if not paths:
        (vault.state_dir / UNREAD_NAME).unlink(missing_ok=True)
        return
    atomic_write(ensure_state_dir(vault) / UNREAD_NAME, json.dumps(sorted(paths), indent=0) + "\n")


def add_unread(vault: Vault, paths: Iterable[str]) -> set[str]:
    """Mark pages as changed by others (index.md and log.md, which wikitui writes itself, are not marked)."""
    skip = {vault.index_path, vault.log_path}
    new = {p for p in paths if vault.is_page_path(p) and p not in skip}
    now = read_unread(vault) | new
    if new:
        _write(vault, now)
    return now


def mark_read(vault: Vault, path: str) -> bool:
    """The page was opened: no longer marked. Whether it was marked."""
    now = read_unread(vault)
    if path not in now:
        return False
    now.discard(path)
    _write(vault, now)
    return True


def forget_missing(vault: Vault, existing: Iterable[str]) -> set[str]:
    """Drop pages that no longer exist from the record; what stays marked."""
    now = read_unread(vault)
    kept = now & set(existing)
    if kept != now:
        _write(vault, kept)
    return kept
