"""The searchable text of raw sources that need a converter (PDF, HTML, Office, CSV/JSON, images).

The index holds a source's converted text (:func:`~wikitui.core.vault.formats.source_text`,
cached under ``.wikitui/text/``), so a PDF's words are found like a page's. A file
that cannot be converted is indexed by its name and its one-line reason, and never
fails the build (converters never raise for a bad file; anything else is caught here).
Snippets read the cached text only: a search never starts a conversion.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from wikitui.core.vault.formats.isolated import Converter


@dataclass(slots=True)
class _Folder:
    """What :func:`source_text` needs of a vault: its (resolved) root."""

    root: Path


def _cache(root: Path):
    from wikitui.core.vault.formats.cache import FOLDER, TextCache

    return TextCache(_state_dir(root) / FOLDER)


def _state_dir(root: Path) -> Path:
    """The vault's own state folder (``.wikitui/``, or the user's cache for a folder opened as it is)."""
    from wikitui.core.vault.layout import Vault

    return Vault(root).state_dir


def converted_text(root: Path | str, rel: str, *, isolate: bool | Converter = False) -> tuple[str, str | None]:
    """(text, title) of a raw source for the index: its converted text, or its one-line reason.

    ``isolate``: convert a cache miss in a child process with a time limit (True: a
    one-off child; a ``Converter``: its child, kept for a run of files).
    """
    from wikitui.core.vault.formats import source_text

    root = Path(root).resolve()
    name = os.path.basename(rel)
    try:
        conversion = source_text(_Folder(root), rel, cache=_cache(root), isolate=isolate)
    except Exception as exc:  # noqa: BLE001 - one bad file must never fail the index build
        return f"{name}: could not be converted ({type(exc).__name__})", None
    if not conversion.ok:
        return conversion.error or f"{name}: no text", None
    return conversion.text, conversion.title


def cached_text(root: Path | str, rel: str) -> str | None:
    """The converted text of a raw source if it is in the cache (for snippets), else None."""
    from wikitui.core.vault.formats.cache import file_digest
    from wikitui.core.vault.formats.kinds import CACHED_KINDS, kind_of

    root = Path(root)
    kind = kind_of(rel)
    if kind not in CACHED_KINDS:
        return None
    try:
        hit = _cache(root).get(file_digest(root / rel), kind)
    except OSError:
        return None
    return hit.text if hit is not None and hit.ok else None
