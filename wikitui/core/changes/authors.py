"""Who a change is by (DESIGN §14 "Authors"): the config's ``author``, else git's ``user.name``.

log.md entries carry it beside the model (an agent's change has both; a person's own
edit has only the author), and wikitui's commits are made under it.
"""

from __future__ import annotations

from wikitui.core.vault.layout import Vault


def author_of(vault: Vault) -> str | None:
    """The name this vault's changes are made under here (None: neither the config nor git names one)."""
    from wikitui.core.config.settings import load_settings

    try:
        configured = load_settings(vault).author
    except Exception:  # noqa: BLE001 - an unreadable config must not stop an apply; it is reported elsewhere
        configured = None
    if configured and configured.strip():
        return " ".join(configured.split())
    from wikitui.core.changes.git import is_git_vault, run_git

    if not is_git_vault(vault):
        return None
    name = run_git(vault, "config", "user.name", check=False).stdout.strip()
    return name or None
