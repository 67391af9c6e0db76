"""The review marks a hunk that adds an unresolved link (DESIGN §11), as a person sees it."""

from __future__ import annotations

from tests.ui.test_review import ReviewApp, vault_root  # noqa: F401 - the fixture
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.ui.widgets.diff_view import DiffView


def marks(app) -> list[tuple[int, str]]:
    diff = app.screen.query_one(DiffView)
    return [(row.hunk, row.content.plain) for row in diff._rows if row.kind == "note"]


async def test_a_hunk_adding_a_link_to_nowhere_is_marked_and_the_others_are_not(vault_root):
    vault = Vault.open(vault_root)
    builder = ChangesetBuilder(vault, LinkGraph.load(vault))
    builder.edit("wiki/concepts/attention.md", [
        {"old": "Attention sentence 1a about", "new": "Attention sentence 1a, see [[Transformer]], about"},
        {"old": "Attention sentence 5b with a second thought.", "new": "Attention sentence 5b, see [[Nowhere Yet]]."},
    ], "links")
    changeset = builder.build("edit", "links")
    app = ReviewApp(changeset, vault=vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert marks(app) == [(1, "⚠ adds an unresolved link: [[Nowhere Yet]]")]
        rows = app.screen.query_one(DiffView)._rows
        hunk1 = [i for i, row in enumerate(rows) if row.hunk == 1]
        assert rows[hunk1[0]].kind == "header" and rows[hunk1[1]].kind == "note"  # right under its header
