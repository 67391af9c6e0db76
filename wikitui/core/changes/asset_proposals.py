"""Proposing a file that is not a page (a chart's picture and sidecar) into a turn's changeset.

The ``propose_chart`` tool renders a chart and hands the two files here; they join
the turn's :class:`~wikitui.core.changes.builder.ChangesetBuilder` like a page: a
new file is a creation, a file already on disk an edit (the picture as a binary
change, :mod:`wikitui.core.changes.assets`). Only the places
:func:`~wikitui.core.changes.assets.is_asset_path` allows can be proposed.
"""

from __future__ import annotations

from wikitui.core.changes.assets import is_asset_path, is_binary_data
from wikitui.core.changes.builder import ChangesetBuilder, ProposalError, _Entry
from wikitui.core.changes.model import sha256_bytes
from wikitui.core.base.errors import UnsafePath
from wikitui.core.vault.files import decode_exact
from wikitui.core.vault.visible_text import describe, path_unsafe
from wikitui.core.base.words import plural


def propose_asset(builder: ChangesetBuilder, rel: str, content: bytes | str, reason: str = "") -> str:
    """Add a chart's picture (bytes) or sidecar (text) at vault-relative ``rel`` to the turn's changeset.

    Proposing the same path again in the turn replaces what was proposed before.

    Returns:
        One line for the model.

    Raises:
        ProposalError: the path is not an asset path, is refused, or the file on disk
            is of the other kind (text where a picture goes, or the reverse).
    """
    vault = builder.vault
    binary = isinstance(content, bytes)
    bad = path_unsafe(rel)
    if bad is not None:
        raise ProposalError(f"{rel!r}: a path may not hold the control character {describe(bad)}")
    if not is_asset_path(vault, rel):
        raise ProposalError(f"{rel}: only charts (.png) and their sidecars go there")
    try:
        target = vault.writable_path(rel)
    except UnsafePath as exc:
        raise ProposalError(f"refused: {exc}") from None
    entry = builder._entries.get(rel)
    if entry is None:
        try:
            data = target.read_bytes()
        except FileNotFoundError:
            entry = _Entry(rel, False, None, "", "")
        except OSError as exc:
            raise ProposalError(f"{rel}: cannot be read ({exc.strerror or exc})") from None
        else:
            if is_binary_data(data) != binary:
                what = "a binary file" if not binary else "a text file"
                raise ProposalError(f"{rel} is {what} on disk; choose another name")
            text = decode_exact(data)
            entry = _Entry(rel, True, sha256_bytes(data), text, text)
    new = decode_exact(content) if isinstance(content, bytes) else content
    entry.text, entry.binary = new, binary
    builder._register(entry, reason)
    size = f"{len(content):,} bytes" if binary else plural(new.count(chr(10)), "line")
    what = "new file" if not entry.exists else "new version of"
    return f"recorded {what} {rel} ({size})"
