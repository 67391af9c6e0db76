"""Hidden files are never read through a symlink (issue 20.7).

``wiki/envlink.md -> ../.env`` inside the vault once let the MCP ``read`` tool and
``wiki://page/...`` return the vault's ``.env``. A symlink is followed only to a
page or source: never to a hidden file or folder (``.env``, ``.git/``,
``.wikitui/``) nor outside the vault. For the graph and the search index a
symlink is no page at all, whatever it points at.
"""

from __future__ import annotations

import json
import os

import pytest

from tests.core.changes_util import make_vault, page
from wikitui.cli import main
from wikitui.core.agent.tools import ToolBox
from wikitui.core.base.errors import WikituiError
from wikitui.core.mcp.session import McpSession
from wikitui.core.workspace import Workspace

SECRET = "hunter2-SECRET-TOKEN"
#: Each link (vault-relative) and where it points.
LINKS = {
    "wiki/envlink.md": "../.env",
    "wiki/gitlink.md": "../.git/config",
    "wiki/statelink.md": "../.wikitui/config.toml",
    "raw/envsource.md": "../.env",
    "wiki/hidden-folder": "../.wikitui",  # wiki/hidden-folder/config.toml reaches the state folder
    "wiki/outside.md": "../../outside.md",
}
BAD = [*(p for p in LINKS if p.endswith(".md")), "wiki/hidden-folder/config.toml", "envlink", "gitlink"]


@pytest.fixture
def vault(tmp_path):
    root = make_vault(tmp_path / "v", {"Alice.md": page("Alice", "# Alice\n\nAlice follows the rabbit.\n")})
    (root / ".env").write_text(f"API_KEY={SECRET}\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text(f"[core]\n\ttoken = {SECRET}\n")
    (root / ".wikitui").mkdir()
    (root / ".wikitui" / "config.toml").write_text(f'api_key = "{SECRET}"\n')
    (tmp_path / "outside.md").write_text(f"# Outside\n\n{SECRET}\n")
    for rel, target in LINKS.items():
        os.symlink(target, root / rel)
    os.symlink("Alice.md", root / "wiki" / "alice-link.md")  # to a page: still readable
    return root


def test_the_agents_read_tool_does_not_follow_a_link_to_a_hidden_file(vault):
    with Workspace.open(vault) as ws:
        ws.update_index()
        box = ToolBox(ws.vault, ws.require_graph(), ws.search_index)
        for path in BAD:
            out = box.call("read", json.dumps({"path": path}))
            assert not out.ok and out.text.startswith("error: ") and SECRET not in out.text, path
        good = box.call("read", json.dumps({"path": "wiki/alice-link.md"}))
        assert good.ok and "Alice follows the rabbit" in good.text


def test_mcp_read_and_the_page_resource_refuse_a_link_to_a_hidden_file(vault):
    with Workspace.open(vault) as ws:
        session = McpSession(ws, client="test")
        for path in BAD:
            ok, text = session.call("read", {"path": path})
            assert not ok and text.startswith("error: ") and SECRET not in text, path
            with pytest.raises(WikituiError) as info:
                session.read_resource(f"wiki://page/{path}")
            assert SECRET not in str(info.value), path
        assert "Alice follows the rabbit" in session.read_resource("wiki://page/wiki/alice-link.md")


def test_a_symlink_is_not_a_page_and_search_never_indexes_what_it_points_at(vault, capsys):
    with Workspace.open(vault) as ws:
        ws.update_index()
        graph = ws.require_graph()
        assert not any(p in graph.pages or p in graph.raw_files for p in LINKS)
        assert [h.path for h in ws.index.search(SECRET.split("-")[0])] == []
        # The watcher reports the links as changed (created, touched): still not pages, not indexed.
        ws.files_changed([*LINKS, "wiki/hidden-folder/config.toml", "wiki/alice-link.md"])
        assert not any(p in graph.pages or p in graph.raw_files for p in LINKS)
        assert "wiki/alice-link.md" not in graph.pages
        assert [h.path for h in ws.index.search(SECRET.split("-")[0])] == []
        box = ToolBox(ws.vault, graph, ws.search_index)
        out = box.call("search", json.dumps({"query": "hunter2"}))
        assert out.ok and SECRET not in out.text and out.text.startswith("0 hits")
    assert main(["search", "hunter2", "--json", "--vault", str(vault)]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["links", "Alice", "--json", "--vault", str(vault)]) == 0
    assert SECRET not in capsys.readouterr().out
