"""Issue 21, point 3: lines a person writes in index.md below the marker are moved above it, never dropped.

The catalog below ``<!-- wikitui:index -->`` is wikitui's; what has the shape of a catalog
line (an entry ``- [[link]] — summary``, a group's ``## Heading``) is regenerated, and
anything else written there goes above the marker, in order, when the catalog is
written again, and the apply says so.
"""

from __future__ import annotations

from tests.core.changes_util import make_vault, open_vault, page, read
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.vault.catalog import INDEX_MARKER, regenerate_index, render_index
from wikitui.core.vault.create import INDEX_TEMPLATE, init_vault

HEAD = f"# Index\n\nMy notes about this wiki.\n\n{INDEX_MARKER}\n"
CATALOG = "\n## Concepts\n\n- [[Alpha]] — Alpha in one line\n- [[Beta]] — Beta in one line\n"
WRITTEN = (f"{HEAD}\n## Concepts\n\n- [[Alpha]] — Alpha in one line\nRead Alpha first, then Beta.\n\n"
           "Second thought.\n- [[Gone]] — a page since deleted\n\n## Further reading\n\n- the book itself\n")


def vault_with(tmp_path, index: str):
    root = make_vault(tmp_path / "v", {"alpha.md": page("Alpha", "Body.\n"), "beta.md": page("Beta", "Body.\n")},
                      index=index)
    return root, *open_vault(root)


def test_lines_written_below_the_marker_move_above_it_in_order(tmp_path):
    root, vault, graph = vault_with(tmp_path, WRITTEN)
    update = regenerate_index(vault, graph, WRITTEN)
    assert update.moved == ["Read Alpha first, then Beta.", "", "Second thought.", "## Further reading", "",
                            "- the book itself"]
    assert update.text == ("# Index\n\nMy notes about this wiki.\n\nRead Alpha first, then Beta.\n\nSecond thought.\n"
                           f"## Further reading\n\n- the book itself\n\n{INDEX_MARKER}\n" + CATALOG)
    assert render_index(vault, graph, update.text) == update.text  # nothing left to move: stable


def test_a_catalog_of_wikitui_own_lines_moves_nothing(tmp_path):
    root, vault, graph = vault_with(tmp_path, HEAD + "\n## Concepts\n\n- [[Old]] — stale\n")
    update = regenerate_index(vault, graph, HEAD + "\n## Concepts\n\n- [[Old]] — stale\n")
    assert update.moved == [] and update.text == HEAD + CATALOG


def test_an_apply_keeps_the_lines_above_the_marker_and_says_so(tmp_path):
    root, vault, graph = vault_with(tmp_path, WRITTEN)
    b = ChangesetBuilder(vault, graph)
    b.edit("alpha.md", [{"old": "Body.", "new": "Body, edited."}], "")
    result = apply_changeset(vault, graph, b.build("edit", "t"))
    index = read(root, "wiki/index.md")
    assert index.index("Read Alpha first, then Beta.") < index.index("Second thought.") < index.index(
        "- the book itself") < index.index(INDEX_MARKER)
    assert result.index_updated
    assert any("4 lines written below" in w and "moved above it" in w for w in result.warnings)


def test_init_index_says_what_the_marker_means(tmp_path):
    init_vault(tmp_path / "v")
    text = (tmp_path / "v/wiki/index.md").read_text(encoding="utf-8")
    assert text == INDEX_TEMPLATE
    assert "wikitui writes everything below the\nmarker line" in text
    assert "Lines you write below it are moved\nabove it" in text
