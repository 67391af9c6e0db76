"""Naming a pending changeset by a prefix: never the wrong one, whatever is typed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.core.changes_util import make_vault, open_vault
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.model import Changeset
from wikitui.core.changes.pending import PendingStore, UnknownChangeset
from wikitui.core.changes.pending_ref import AmbiguousChangeset, find_pending


class Listed:
    """The one thing :func:`find_pending` asks of a store: its changesets, oldest first."""

    def __init__(self, ids: list[str]) -> None:
        self.items = [Changeset(id=i, op="edit", title=f"title {i}", created=f"2026-11-30T10:{n:02d}:00")
                      for n, i in enumerate(ids)]

    def list(self) -> list[Changeset]:
        return list(self.items)


def test_latest_full_id_and_prefixes_on_a_real_store(tmp_path):
    root = make_vault(tmp_path / "v", {"a.md": "# A\n\nAlpha.\n"})
    vault, graph = open_vault(root)
    store = PendingStore(vault)
    with pytest.raises(UnknownChangeset, match="no changeset is pending"):
        find_pending(store, "latest")
    made = []
    for n, new in enumerate(("Alef", "Aleph")):
        b = ChangesetBuilder(vault, graph)
        b.edit("a.md", [{"old": "Alpha", "new": new}], "why")
        cs = b.build("edit", new)
        cs.id, cs.created = f"cs-20261130-{'ab12cd' if n == 0 else 'ab34ef'}", f"2026-11-30T1{n}:00:00"
        store.save(cs)
        made.append(cs)
    assert find_pending(store, "latest") == made[1]
    assert find_pending(store, made[0].id) == made[0]
    assert find_pending(store, "ab1") == made[0] and find_pending(store, "cs-20261130-ab3") == made[1]
    with pytest.raises(AmbiguousChangeset, match="matches 2 pending changesets"):
        find_pending(store, "ab")
    with pytest.raises(UnknownChangeset, match="no pending changeset matches"):
        find_pending(store, "ff")


def test_an_exact_id_wins_over_a_longer_one_it_prefixes():
    store = Listed(["mcp-1", "mcp-12"])
    assert find_pending(store, "mcp-1").id == "mcp-1"


ids = st.lists(st.from_regex(r"cs-2026113[0-9]-[0-9a-f]{6}", fullmatch=True), min_size=1, max_size=6, unique=True)


@settings(max_examples=200, deadline=None)
@given(ids=ids, ref=st.text(max_size=14) | st.sampled_from(["cs-", "cs-2026", "a", "0", "latest"]))
def test_a_reference_names_one_matching_changeset_or_is_refused(ids, ref):
    store = Listed(ids)
    try:
        found = find_pending(store, ref)
    except AmbiguousChangeset:
        assert sum(i.startswith(ref.strip()) or i.rsplit("-", 1)[1].startswith(ref.strip()) for i in ids) > 1
        return
    except UnknownChangeset:
        assert ref.strip() != "latest"
        return
    r = ref.strip()
    if r == "latest":
        assert found.id == ids[-1]
    else:
        assert found.id == r or found.id.startswith(r) or found.id.rsplit("-", 1)[1].startswith(r)
        others = [i for i in ids if i != found.id and (i.startswith(r) or i.rsplit("-", 1)[1].startswith(r))]
        assert found.id == r or not others  # a prefix is used only when it names one
