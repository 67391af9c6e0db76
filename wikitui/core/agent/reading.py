"""Finding what the ``read`` tool may read, and describing files it cannot show as text.

Reading is confined like writing, only wider: any file of the vault's content (pages,
raw sources, attachments, ``WIKI.md``), never a dot-folder (``.wikitui``, ``.git``),
never outside the vault, never through a symlink that leads out of its content (to a
hidden file or folder such as ``.env``, ``.git/`` or ``.wikitui/``, or outside the vault).
"""

from __future__ import annotations

import difflib
import struct
from pathlib import Path, PurePosixPath

from wikitui.core.base.errors import UnknownPage, UnsafePath
from wikitui.core.vault.layout import SCHEMA_FILE

_IMAGE_TYPES = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".gif": "GIF", ".webp": "WebP", ".bmp": "BMP",
                ".tif": "TIFF", ".tiff": "TIFF", ".ico": "icon"}
_DOC_TYPES = {".pdf": "PDF document", ".docx": "Word document", ".xlsx": "Excel workbook", ".zip": "zip archive",
              ".epub": "EPUB book", ".mp3": "audio", ".mp4": "video", ".sqlite": "SQLite database"}


def _clean(name: str) -> str:
    n = name.strip().replace("\\", "/")
    if n.startswith("[[") and n.endswith("]]"):
        n = n[2:-2].split("|", 1)[0].split("#", 1)[0]
    while n.startswith("./"):
        n = n[2:]
    return n


def _check_confined(vault, rel: str) -> Path:
    p = PurePosixPath(rel)
    if p.is_absolute() or (len(rel) > 1 and rel[1] == ":"):
        raise UnsafePath(f"{rel}: absolute paths cannot be read; give a path inside the vault")
    if any(part == ".." for part in p.parts):
        raise UnsafePath(f"{rel}: '..' is not allowed; give a path inside the vault")
    if any(part.startswith(".") for part in p.parts):
        raise UnsafePath(f"{rel}: hidden files and folders are not part of the vault")
    target = vault.root / rel
    resolved = target.resolve()
    if not resolved.is_relative_to(vault.root):
        raise UnsafePath(f"{rel}: leads outside the vault")
    if resolved != vault.root and vault.content_target(target) is None:
        # A symlink is followed only to a page or source: never to .env, .git/, .wikitui/...
        raise UnsafePath(f"{rel}: leads to a hidden file or folder; only the vault's pages and sources are read")
    return target


def resolve_readable(vault, graph, name: str) -> tuple[str, Path]:
    """The vault-relative path and absolute path of what ``name`` names.

    ``name`` may be a vault-relative path, a path inside the wiki folder, a page's
    title, alias or file stem, or a raw file's name.

    Raises:
        UnsafePath: a path outside the vault's content.
        UnknownPage: nothing by that name (the message suggests near matches).
    """
    n = _clean(name)
    if not n:
        raise UnknownPage("a path or page title is required")
    candidates = [n]
    if vault.wiki_prefix and not n.startswith(vault.wiki_prefix + "/") and not vault.is_raw(n) and n != SCHEMA_FILE:
        candidates.append(vault.join_wiki(n))
    for cand in candidates:
        if "/" in cand or "." in cand:
            target = _check_confined(vault, cand)
            if target.is_file():
                return str(PurePosixPath(cand)), target
    hit = graph.find_page(n) or graph.resolve_target(n)
    if hit is not None:
        return hit, _check_confined(vault, hit)
    titles = {info.title: path for path, info in graph.pages.items()}
    pool = list(titles) + list(graph.pages) + list(graph.raw_files)
    close = difflib.get_close_matches(n, pool, n=3, cutoff=0.6)
    named = [f"{c} ({titles[c]})" if c in titles else c for c in close]
    hint = "; did you mean " + ", ".join(named) + "?" if close else \
        "; use search or list_pages to find it"
    raise UnknownPage(f"no page or file named {name!r}{hint}")


def overlaid(vault, graph, overlay, name: str) -> str | None:
    """The path ``name`` names when a batch's earlier proposals (``overlay``) hold it (a text or a deletion)."""
    n = _clean(name)
    if not n:
        return None
    candidates = [n, n + ".md"]
    if vault.wiki_prefix and not n.startswith(vault.wiki_prefix + "/") and not vault.is_raw(n) and n != SCHEMA_FILE:
        candidates += [vault.join_wiki(n), vault.join_wiki(n + ".md")]
    for cand in candidates:
        if overlay.knows(cand):
            return cand
    hit = graph.find_page(n)  # the overlay's graph: a proposed page's title or alias
    return hit if hit is not None and overlay.knows(hit) else None


def _image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG, GIF or JPEG header; None when unknown."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n":
            return struct.unpack(">II", data[16:24])
        if data[:6] in (b"GIF87a", b"GIF89a"):
            return struct.unpack("<HH", data[6:10])
        if data[:2] == b"\xff\xd8":
            i = 2
            while i + 9 < len(data):
                if data[i] != 0xFF:
                    i += 1
                    continue
                marker = data[i + 1]
                length = struct.unpack(">H", data[i + 2 : i + 4])[0]
                if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                    h, w = struct.unpack(">HH", data[i + 5 : i + 9])
                    return w, h
                i += 2 + length
    except struct.error:
        return None
    return None


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"  # pragma: no cover


def describe_binary(vault, graph, rel: str, data: bytes) -> str:
    """One or two lines describing a file that is not text (its kind, size, who links to it)."""
    suffix = PurePosixPath(rel).suffix.lower()
    size = _size(len(data))
    if suffix in _IMAGE_TYPES:
        dims = _image_size(data)
        shape = f", {dims[0]}x{dims[1]} pixels" if dims else ""
        text = (f"{rel}: {_IMAGE_TYPES[suffix]} image{shape}, {size}. Images are not shown as text; "
                "describe it from the pages that embed it")
    else:
        kind = _DOC_TYPES.get(suffix, "binary file")
        text = f"{rel}: {kind}, {size}; its contents cannot be shown as text"
    users = sorted({b.source for b in graph.backlinks(rel)})
    if users:
        text += "\nLinked from: " + ", ".join(users[:20])
    return text
