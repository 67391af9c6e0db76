"""Which converter a source needs, and the cached path from a raw file to its text.

:func:`source_text` is what the rest of wikitui calls: it confines the path to the
vault, converts what needs converting (through the cache) and decodes plain text.
It only reads the source: raw/ is never written (the cache lives in ``.wikitui/``).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from wikitui.core.base import faults
from wikitui.core.base.errors import UnsafePath
from wikitui.core.vault.files import is_binary
from wikitui.core.vault.formats.cache import TextCache, file_digest
from wikitui.core.vault.formats.conversion import MAX_FILE_BYTES, MAX_TEXT_BYTES, Conversion, failed, finish, human_size
from wikitui.core.vault.formats.kinds import CACHED_KINDS, kind_of

if TYPE_CHECKING:
    from wikitui.core.vault.formats.isolated import Converter

def convert_file(path: Path | str, kind: str | None = None) -> Conversion:
    """Convert one file, without the cache. Never raises for a bad file.

    Args:
        path: The file.
        kind: The converter to use (default: by the file's suffix; text for others).
    """
    path = Path(path)
    kind = kind or kind_of(path) or "text"
    try:
        size = path.stat().st_size
    except OSError as exc:
        return failed(kind, f"{path.name} could not be read: {exc.strerror or exc}", cacheable=False)
    if size > MAX_FILE_BYTES:
        return failed(kind, f"{path.name} is too large to convert ({human_size(size)}; "
                            f"the limit is {human_size(MAX_FILE_BYTES)})")
    faults.converting(path.name)
    if kind == "pdf":
        from wikitui.core.vault.formats.pdf import convert_pdf

        return convert_pdf(path)
    if kind == "html":
        from wikitui.core.vault.formats.html import convert_html

        return convert_html(path)
    if kind in ("docx", "pptx", "xlsx"):
        from wikitui.core.vault.formats.office import convert_office

        return convert_office(path, kind)
    if kind in ("csv", "json", "jsonl"):
        from wikitui.core.vault.formats import tabular

        return {"csv": tabular.convert_csv, "json": tabular.convert_json,
                "jsonl": tabular.convert_json_lines}[kind](path)
    if kind == "image":
        from wikitui.core.vault.formats.images import describe_image

        return describe_image(path)
    return _plain_text(path, size)


def _plain_text(path: Path, size: int) -> Conversion:
    from wikitui.core.vault.files import decode_text

    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_TEXT_BYTES)
    except OSError as exc:
        return failed("text", f"{path.name} could not be read: {exc.strerror or exc}", cacheable=False)
    if is_binary(data):
        return failed("binary", f"{path.name} is a binary file ({human_size(size)}) that wikitui cannot read as text")
    if len(data) < size:
        cut = data.rfind(b"\n") + 1 or len(data)
        text, _ok = decode_text(data[:cut])
        return finish("text", text, notes=[f"only the first {human_size(cut)} of {human_size(size)} were read"])
    text, _ok = decode_text(data)
    return finish("text", text)


def confined(vault, rel: str) -> Path:
    """The absolute path of a vault-relative file that may be read (inside the vault, not hidden).

    Raises:
        UnsafePath: ``rel`` is absolute, climbs out with ``..``, is hidden, or leads outside.
    """
    p = PurePosixPath(rel.replace("\\", "/"))
    if not rel or "\x00" in rel or p.is_absolute() or (len(rel) > 1 and rel[1] == ":") \
            or any(part in ("..", "") or part.startswith(".") for part in p.parts):
        raise UnsafePath(f"{rel}: not a file inside the vault")
    target = vault.root / p
    if not target.resolve().is_relative_to(vault.root):
        raise UnsafePath(f"{rel}: leads outside the vault")
    return target


def source_text(vault, rel: str, *, cache: TextCache | None = None, isolate: bool | Converter = False) -> Conversion:
    """The text of a vault file (a raw source, an attachment, a page): converted once, then cached.

    Args:
        vault: The vault (:class:`wikitui.core.vault.layout.Vault`).
        rel: The file's vault-relative path, e.g. ``raw/paper.pdf``.
        cache: The cache to use (default: the vault's ``.wikitui/text/``).
        isolate: Convert a cache miss in a child process with a time limit
            (:mod:`isolated`): for sources nobody has vetted, at a process start's cost;
            or in this :class:`~wikitui.core.vault.formats.isolated.Converter`'s child,
            kept for a run of files (an index build).

    Raises:
        UnsafePath: ``rel`` is not a file inside the vault.
    """
    path = confined(vault, rel)
    kind = kind_of(rel)
    if kind not in CACHED_KINDS:
        return convert_file(path, kind)
    cache = cache or TextCache.for_vault(vault)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:  # refused without reading it to hash it
            return convert_file(path, kind)
        digest = file_digest(path)
    except OSError as exc:
        return failed(kind, f"{path.name} could not be read: {exc.strerror or exc}", cacheable=False)
    hit = cache.get(digest, kind)
    if hit is not None:
        return hit
    if isolate is True:
        from wikitui.core.vault.formats.isolated import convert_isolated

        conversion = convert_isolated(path, kind)
    elif isolate:  # a Converter kept for a run of files
        conversion = isolate.convert(path, kind)
    else:
        conversion = convert_file(path, kind)
    cache.put(digest, conversion)
    return conversion
