"""Where a published site's links are rooted (issue 24.7): ``link_root``, or the site's content folder.

A wiki published with a static-site generator writes links from the site's root:
``[[en/concepts/x]]`` in a Quartz or Hugo site means ``content/en/concepts/x.md``, and
``[[en]]`` the folder's own page (``content/en/index.md``, Hugo's ``_index.md``).
The vault's ``link_root`` (in ``.wikitui/config.toml``) names that folder; without it,
the content folder is read from the site's configuration where there is one:

- Quartz (``quartz.config.ts``/``.js``/``.mjs``): ``content/``, where Quartz builds from;
- Hugo (``hugo.toml``/``.yaml``/``.yml``/``.json``, or a ``config.toml``/``.yaml`` with a
  ``baseURL``): its ``contentDir``, ``content/`` by default;
- Obsidian Publish publishes the vault itself: its links are rooted where wikitui roots
  them already, so there is nothing to detect.

A link tries the root only when it does not resolve as it is (:mod:`~wikitui.core.vault.names`).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path, PurePosixPath

QUARTZ_CONFIGS = ("quartz.config.ts", "quartz.config.js", "quartz.config.mjs")
HUGO_CONFIGS = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json")
#: Older Hugo sites name their config config.toml: it is Hugo's when it sets a baseURL.
HUGO_OLD_CONFIGS = ("config.toml", "config.yaml", "config.yml")
_CONTENT_DIR = re.compile(r"""["']?contentDir["']?\s*[=:]\s*["']?([^"'\s,}]+)""")


def clean_root(value: str) -> str:
    """A configured root as a vault-relative folder ("" for the vault itself, or a path leading out)."""
    text = value.replace("\\", "/")
    if any(unicodedata.category(c) == "Cc" for c in text):
        return ""  # a control character names no folder
    while (trimmed := text.strip().strip("/")) != text:  # " / content / " -> "content"
        text = trimmed
    p = PurePosixPath(text)
    if str(p) in ("", ".") or any(part in ("..", "") or part.startswith(".") for part in p.parts):
        return ""
    return str(p)


def _read(path: Path) -> str | None:
    try:
        if path.is_file():
            return path.read_text(encoding="utf-8", errors="replace")[:65536]
    except OSError:
        pass
    return None


def detect_link_root(root: Path) -> str:
    """The content folder of the site configured at ``root`` ("" when there is none, or it is missing)."""
    found = ""
    if any((root / name).is_file() for name in QUARTZ_CONFIGS):
        found = "content"
    else:
        for name in (*HUGO_CONFIGS, *HUGO_OLD_CONFIGS):
            text = _read(root / name)
            if text is None or (name in HUGO_OLD_CONFIGS and "baseurl" not in text.lower()):
                continue
            m = _CONTENT_DIR.search(text)
            found = clean_root(m.group(1)) if m else "content"
            break
    return found if found and (root / found).is_dir() else ""
