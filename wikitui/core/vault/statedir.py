"""``.wikitui/``, wikitui's own folder in a vault, kept out of git (DESIGN §2, §8).

Whenever wikitui creates or opens the folder it makes sure a ``.gitignore``
holding ``*`` is in it, so no vault shows ``.wikitui/`` in ``git status``, whether
or not the vault's own ``.gitignore`` names it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from wikitui.core.vault.files import atomic_write

if TYPE_CHECKING:  # pragma: no cover
    from typing import Protocol

    class Stated(Protocol):
        """What this module needs of a vault (a :class:`~wikitui.core.vault.layout.Vault`): its state folder."""

        @property
        def state_dir(self) -> Path: ...

#: wikitui's own folder in a vault.
STATE_DIR = ".wikitui"
GITIGNORE = "*\n"


def ensure_state_dir(vault: Stated | Path, *, create: bool = True) -> Path:
    """The vault's ``.wikitui/`` folder, with its ``.gitignore``.

    Args:
        vault: The vault (or its root folder: then ``.wikitui/`` in it).
        create: Make the folder when it is missing; otherwise only a folder that
            exists gets its ``.gitignore``.

    Returns:
        The folder's path. A read-only vault is left as it is (no error).
    """
    # A Vault's own state folder: .wikitui/, or its place in the user's cache for a folder opened as it is.
    folder = Path(vault) / STATE_DIR if isinstance(vault, (str, Path)) else vault.state_dir
    ignore = folder / ".gitignore"
    try:
        if not folder.is_dir():
            if not create or folder.is_symlink():
                return folder
            folder.mkdir(parents=True, exist_ok=True)
        if not ignore.exists() and not ignore.is_symlink():
            atomic_write(ignore, GITIGNORE)
    except OSError:
        pass  # a read-only vault: nothing wikitui writes there either
    return folder
