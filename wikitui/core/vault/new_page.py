"""Where a page created from an unresolved link goes, and its file name, as Obsidian does it.

Obsidian names the new note after the link as typed (``[[Nonexistent Page]]`` makes
``Nonexistent Page.md``), less the characters a file name cannot hold, and puts it
where its "Default location for new notes" says (``.obsidian/app.json``:
``newFileLocation`` ``root``, ``current`` or ``folder`` with ``newFileFolderPath``).
A vault without that setting gets wikitui's own default: beside the linking page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath

#: What Obsidian refuses in a file name (its own list, plus what no file system takes).
_FORBIDDEN = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f\x7f]+')


def page_file_name(name: str) -> str:
    """``name`` as a page's file name: as typed, forbidden characters made spaces, ``.md`` added."""
    stem = name[:-3] if name.lower().endswith(".md") else name
    stem = " ".join(_FORBIDDEN.sub(" ", stem).split()).strip(". ") or "Untitled"
    return f"{stem}.md"


def obsidian_location(root: Path) -> tuple[str, str] | None:
    """``(newFileLocation, newFileFolderPath)`` from the vault's ``.obsidian/app.json``; None when unset."""
    try:
        data = json.loads((root / ".obsidian" / "app.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("newFileLocation") not in ("root", "current", "folder"):
        return None
    folder = data.get("newFileFolderPath")
    return data["newFileLocation"], folder.strip("/") if isinstance(folder, str) else ""


def new_page_path(target: str, from_path: str | None, wiki_prefix: str,
                  location: tuple[str, str] | None = None) -> str:
    """The vault-relative path of a page made for the unresolved link ``target``.

    A path-qualified target (``places/Tea Party``) goes under the wiki root. A bare
    name goes where ``location`` (:func:`obsidian_location`) says, kept inside the
    wiki folder; by default beside the page that links to it (``from_path``).
    """
    target = target.strip().replace("\\", "/").strip("/")
    folder, _, name = target.rpartition("/")
    file_name = page_file_name(name)
    if folder:
        base = f"{wiki_prefix}/{folder}" if wiki_prefix else folder
    else:
        kind, configured = location or ("current", "")
        here = str(PurePosixPath(from_path).parent) if from_path and "/" in from_path else wiki_prefix
        if kind == "root":
            base = wiki_prefix
        elif kind == "folder" and configured:
            inside = not wiki_prefix or configured == wiki_prefix or configured.startswith(wiki_prefix + "/")
            base = configured if inside else f"{wiki_prefix}/{configured}"
        else:
            base = here
    base = "" if base == "." else base
    return f"{base}/{file_name}" if base else file_name
