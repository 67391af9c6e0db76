"""Naming a pending changeset the short way: ``latest``, its id, or a unique prefix of it.

``wikitui pending show a1b`` and ``wikitui pending apply cs-2026`` find the one
pending changeset whose id, or whose id's last part (the random one), starts with
what was typed; two matches are an error naming both, so a script never acts on
the wrong one.
"""

from __future__ import annotations

from wikitui.core.changes.model import Changeset
from wikitui.core.changes.pending import PendingStore, UnknownChangeset

#: The word that names the newest pending changeset.
LATEST = "latest"


class AmbiguousChangeset(UnknownChangeset):
    """A prefix matches more than one pending changeset."""


def _matches(changeset_id: str, ref: str) -> bool:
    return changeset_id.startswith(ref) or changeset_id.rsplit("-", 1)[-1].startswith(ref)


def find_pending(store: PendingStore, ref: str) -> Changeset:
    """The pending changeset ``ref`` names.

    Args:
        store: The vault's pending changesets.
        ref: ``latest``, a full id, or a unique prefix of an id or of its last part.

    Raises:
        UnknownChangeset: None matches (or none is pending for ``latest``).
        AmbiguousChangeset: Several match.
    """
    ref = ref.strip()
    items = store.list()
    if not items:
        raise UnknownChangeset("no changeset is pending in this vault")
    if ref == LATEST:
        return items[-1]
    if not ref:
        raise UnknownChangeset("no changeset id given (an id, a unique prefix of one, or `latest`)")
    exact = [cs for cs in items if cs.id == ref]
    if exact:
        return exact[0]
    found = [cs for cs in items if _matches(cs.id, ref)]
    if not found:
        raise UnknownChangeset(f"no pending changeset matches {ref!r} (see `wikitui pending list`)")
    if len(found) > 1:
        names = ", ".join(cs.id for cs in found[:5]) + (", ..." if len(found) > 5 else "")
        raise AmbiguousChangeset(f"{ref!r} matches {len(found)} pending changesets ({names}); give more of the id")
    return found[0]
