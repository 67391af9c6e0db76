"""Files of a changeset that are not pages: a chart's picture (binary) and its sidecar (DESIGN §9).

A changeset carries a picture as a *binary* file change: its bytes travel in the
change's texts decoded with :func:`~wikitui.core.vault.files.decode_exact` (so the
write transaction, its journal and the undo history handle them unchanged) and as
base64 in the pending JSON. A binary change is one decision (one hunk of kind
``binary``), is never merged (a picture changed on disk is a conflict), and is
written into a patch in git's binary format (``GIT binary patch``) that ``git apply``
accepts with the rest of the patch.

Where such files may go: under the wiki folder's ``assets/`` with the suffixes of
:data:`ASSET_SUFFIXES`; nothing else that is not a page may be written.
"""

from __future__ import annotations

import base64
import hashlib
import zlib

from wikitui.core.changes.diffs import Hunk, quote_path
from wikitui.core.vault.files import encode_exact
from wikitui.core.vault.layout import Vault

#: What a changeset may write besides pages: chart pictures and their sidecars.
ASSET_SUFFIXES = (".png", ".chart.json")
#: Suffixes whose files are binary.
BINARY_SUFFIXES = (".png",)
#: The folder (inside the wiki folder) assets go to.
ASSETS_DIR = "assets"
_NULL_ID = "0" * 40


def is_asset_path(vault: Vault, rel: str) -> bool:
    """Whether ``rel`` (vault-relative) is where a chart's picture or sidecar may be written."""
    prefix = f"{vault.wiki_prefix}/{ASSETS_DIR}/" if vault.wiki_prefix else f"{ASSETS_DIR}/"
    low = rel.lower()
    return rel.startswith(prefix) and low.endswith(ASSET_SUFFIXES) and "/." not in rel and "/../" not in rel


def is_binary_data(data: bytes) -> bool:
    """Whether file bytes are binary (a NUL byte in the first 8 KiB, as git decides)."""
    return b"\x00" in data[:8192]


def is_binary_text(text: str | None) -> bool:
    """Whether a text decoded with ``decode_exact`` holds a binary file's bytes."""
    return text is not None and "\x00" in text[:8192]


def binary_hunk(index: int, path: str, action: str, base_text: str, new_text: str) -> Hunk:
    """The one hunk of a binary file change: accepted or rejected as a whole."""
    old, new = len(encode_exact(base_text)), len(encode_exact(new_text))
    if action == "create":
        header = f"new binary file {path} ({new:,} bytes)"
    else:
        header = f"binary file {path} changes ({old:,} → {new:,} bytes)"
    return Hunk(f"f{index}h0", index, header, kind="binary")


def to_base64(text: str) -> str:
    """A binary change's text as base64 (for the pending JSON)."""
    return base64.b64encode(encode_exact(text)).decode("ascii")


def from_base64(data: str) -> bytes:
    """The inverse of :func:`to_base64`, as bytes."""
    return base64.b64decode(data.encode("ascii"), validate=True)


def git_blob_id(data: bytes) -> str:
    """The object id git gives a file with these bytes (sha1 of ``blob <size>\\0<data>``)."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data, usedforsecurity=False).hexdigest()


def _encode_line(chunk: bytes) -> str:
    n = len(chunk)
    size = chr(ord("A") + n - 1) if n <= 26 else chr(ord("a") + n - 27)
    return size + base64.b85encode(chunk, pad=True).decode("ascii") + "\n"


def _literal(data: bytes) -> str:
    """One ``literal`` block of a git binary patch: the bytes deflated, in base85 lines of 52 bytes."""
    packed = zlib.compress(data, 9)
    lines = "".join(_encode_line(packed[i:i + 52]) for i in range(0, len(packed), 52))
    return f"literal {len(data)}\n{lines}\n"


def format_binary_patch(action: str, path: str, old: bytes | None, new: bytes) -> str:
    """A binary file's part of a patch, in git's binary format (what ``git diff --binary`` writes).

    ``git apply`` needs the full object ids on the ``index`` line to apply it; it
    checks the file's current bytes against the old one.

    Args:
        action: ``create`` or ``edit``.
        path: The vault-relative path.
        old: The bytes before (None for a new file).
        new: The bytes after.
    """
    side_a, side_b = quote_path(f"a/{path}"), quote_path(f"b/{path}")
    out = [f"diff --git {side_a} {side_b}\n"]
    old_id = _NULL_ID if old is None else git_blob_id(old)
    if action == "create" or old is None:
        out.append("new file mode 100644\n")
        out.append(f"index {old_id}..{git_blob_id(new)}\n")
    else:
        out.append(f"index {old_id}..{git_blob_id(new)} 100644\n")
    out.append("GIT binary patch\n")
    out.append(_literal(new))
    out.append(_literal(old or b""))  # the reverse, as git writes it
    return "".join(out)
