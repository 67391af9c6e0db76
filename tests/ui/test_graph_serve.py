"""`wikitui serve` shows the same graph view: the command it serves is the workspace, and in that workspace `g`
opens the page's graph (issue 27.1; the browser itself: tests/e2e/test_browser.py)."""

from __future__ import annotations

import shlex
import sys

import pytest

from tests.core.graph_util import graph_vault
from tests.ui.workspace_helpers import wait_for, wait_ready
from wikitui.cli import main
from wikitui.ui.app import WikituiApp
from wikitui.ui.screens.graph import GraphScreen


@pytest.fixture
def started(monkeypatch):
    """Replace textual-serve's blocking serve() by a record of the server it was asked to run."""
    from textual_serve.server import Server

    servers = []
    monkeypatch.setattr(Server, "serve", lambda self, debug=False: servers.append(self))
    return servers


def test_the_served_command_is_the_workspace_and_g_opens_the_graph_there(tmp_path, started, monkeypatch):
    root = graph_vault(tmp_path / "v")
    assert main(["serve", "--vault", str(root)]) == 0
    (server,) = started
    argv = shlex.split(server.command)
    assert argv[:3] == [sys.executable, "-m", "wikitui"]
    seen: list[str] = []

    async def drive(pilot):
        app = pilot.app
        await wait_ready(pilot)
        app.main.open_path("wiki/concepts/transformer.md")
        await pilot.pause()
        await pilot.press("g")
        await wait_for(pilot, lambda: isinstance(app.screen, GraphScreen) and app.screen.model is not None,
                       "the graph")
        seen.extend(app.screen.model.nodes)
        app.exit()

    real_run = WikituiApp.run
    monkeypatch.setattr(WikituiApp, "run", lambda self, **_: real_run(self, headless=True, size=(120, 40),
                                                                     auto_pilot=drive))
    monkeypatch.setattr("wikitui.ui.widgets.picture.prepare_terminal", lambda: None)
    monkeypatch.setenv("TERM", "xterm-256color")
    # What the served page runs in its terminal: `python -m wikitui VAULT`, i.e. the command line on VAULT.
    assert main(argv[3:]) == 0
    assert "wiki/concepts/self-attention.md" in seen and "?Missing Idea" in seen
