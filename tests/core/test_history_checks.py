"""Issue 27 points 2 and 3, parts the first tests left out: search's ``since:``/``until:`` by the day a changeset
touched the page (not only its ``updated`` date)."""

from __future__ import annotations

import datetime as dt

from tests.core.changes_util import make_vault, page
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.workspace import Workspace


def test_since_and_until_keep_a_page_a_changeset_touched_in_range_without_an_updated_date(tmp_path):
    root = make_vault(tmp_path / "v", {
        "touched.md": page("Touched rabbit", "A rabbit.\n"),  # no `updated:`: only the log dates it
        "stale.md": page("Stale rabbit", "A rabbit too.\n", updated="2026-01-01"),
        "quiet.md": page("Quiet rabbit", "A rabbit, never changed.\n"),
    })
    ws = Workspace.open(root)
    b = ChangesetBuilder(ws.vault, ws.require_graph())
    b.edit("touched.md", [{"old": "A rabbit.", "new": "A white rabbit."}], "")
    b.edit("stale.md", [{"old": "A rabbit too.", "new": "A rabbit, again."}], "")
    cs = b.build("edit", "Rabbits", model="openai/tester")
    assert cs is not None
    ws.apply(cs)
    ws.update_index()
    today = dt.date.today().isoformat()
    # stale.md's `updated:` is bumped by the edit; touched.md has none: the log's day dates it.
    assert "updated:" not in (root / "wiki/touched.md").read_text(encoding="utf-8")

    def paths(query: str) -> list[str]:
        return sorted(h.path for h in ws.index.search(query, limit=10))

    assert paths(f"rabbit since:{today}") == ["wiki/stale.md", "wiki/touched.md"]
    assert paths("rabbit since:7d") == ["wiki/stale.md", "wiki/touched.md"]
    assert paths("rabbit until:2025-12-31") == []
    assert [h.path for h in ws.index.search(f"since:{today}")] == ["wiki/touched.md", "wiki/stale.md"]
    # A log entry of an earlier day dates the page on that day too.
    log = root / "wiki/log.md"
    log.write_text(log.read_text(encoding="utf-8") + "\n## [2026-03-04] edit | Earlier\n\n"
                   "- pages: [[wiki/quiet]]\n- changeset: cs-20260304-abcdef\n", encoding="utf-8")
    assert paths("rabbit since:2026-03-01 until:2026-03-31") == ["wiki/quiet.md"]


def test_a_link_names_a_page_deleted_since_by_its_file_name(tmp_path):
    import shutil

    import pytest

    from tests.core.changes_util import git, git_init
    from wikitui.core.changes.dated import page_named_then

    if shutil.which("git") is None:
        pytest.skip("the git CLI is not installed")
    root = make_vault(tmp_path / "v", {"people/hatter.md": page("Hatter", "Tea.\n"), "cat.md": page("Cat", "Grin.\n")})
    git_init(root)
    git(root, "rm", "-q", "wiki/people/hatter.md")
    git(root, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "gone")
    ws = Workspace.open(root)
    graph = ws.require_graph()
    assert page_named_then(ws.vault, graph, "Cat") == "wiki/cat.md"  # as links resolve now
    for name in ("Hatter", "hatter", "people/Hatter", "wiki/people/hatter.md"):
        assert page_named_then(ws.vault, graph, name) == "wiki/people/hatter.md", name
    assert page_named_then(ws.vault, graph, "Dodo") is None
