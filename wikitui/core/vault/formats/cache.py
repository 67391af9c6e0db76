"""The cache of converted text under ``.wikitui/text/``, keyed by the source's content.

A source is converted once; every later read (the ``read`` tool, the index, the
viewer) takes the cached text. The key is the sha256 of the file's bytes with the
converter's kind and version, so a changed file, or a newer converter, converts
again, and two copies of one file share an entry.

An entry is one file: a JSON header line (the Conversion's fields, the text's
length and a checksum of it), then the text. It is a rebuildable cache: an entry
that is missing, truncated, altered or of another version is simply converted
again and rewritten (atomically). Failures a change outside the file can fix (an
optional library not installed) are not stored.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from wikitui.core.vault.files import atomic_write
from wikitui.core.vault.formats.conversion import CONVERTER_VERSION, Conversion

#: The cache's folder inside ``.wikitui/``.
FOLDER = "text"
_BLOCK = 1024 * 1024


def file_digest(path: Path | str) -> str:
    """The sha256 of a file's bytes (hex), read in blocks: memory stays flat for any size."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _check(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class TextCache:
    """Converted text on disk, one entry per (content, kind, converter version).

    Args:
        folder: Where entries live (``<vault>/.wikitui/text``); created on the first store.
    """

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)

    @classmethod
    def for_vault(cls, vault) -> "TextCache":
        """The cache of ``vault`` (a :class:`wikitui.core.vault.layout.Vault`)."""
        return cls(vault.state_dir / FOLDER)

    def entry_path(self, digest: str, kind: str) -> Path:
        """The file an entry is stored in."""
        return self.folder / f"{digest}.{kind}.v{CONVERTER_VERSION}.txt"

    def get(self, digest: str, kind: str) -> Conversion | None:
        """The cached conversion, or None when there is none or the entry is damaged."""
        try:
            data = self.entry_path(digest, kind).read_bytes()
        except OSError:
            return None
        head, newline, body = data.partition(b"\n")
        if not newline:
            return None
        try:
            meta = json.loads(head)
            if (meta.get("version") != CONVERTER_VERSION or meta.get("kind") != kind
                    or meta.get("length") != len(body) or meta.get("check") != _check(body)):
                return None
            return Conversion(
                kind, body.decode("utf-8"), error=meta["error"], title=meta["title"], pages=meta["pages"],
                notes=tuple(meta["notes"]),
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, digest: str, conversion: Conversion) -> None:
        """Store ``conversion`` (unless it is not cacheable). A cache that cannot be written is skipped."""
        if not conversion.cacheable:
            return
        body = conversion.text.encode("utf-8")
        meta = conversion.as_dict()
        del meta["cacheable"]
        meta.update(version=CONVERTER_VERSION, length=len(body), check=_check(body))
        header = json.dumps(meta, ensure_ascii=True).encode("ascii")
        try:
            atomic_write(self.entry_path(digest, conversion.kind), header + b"\n" + body)
        except OSError:
            pass  # a read-only vault still reads its sources; it converts them each time
