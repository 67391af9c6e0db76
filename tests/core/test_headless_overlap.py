"""Headless ``ask`` and ``ingest`` import the model library while the vault loads, not after it."""

from __future__ import annotations

import threading

import pytest

from tests.fakeserver import text
from wikitui.cli import main
from wikitui.core.agent import llm
from wikitui.core.workspace import Workspace


@pytest.fixture
def overlap(monkeypatch):
    """Records whether litellm's import was under way while the vault's graph loaded."""
    graph_loading = threading.Event()
    seen: list[bool] = []
    real_load, real_graph = llm.load_litellm, Workspace.require_graph

    def load_litellm():
        if threading.current_thread().name == "import litellm":
            # Sequential code would reach the graph only after this returned: the wait would time out.
            seen.append(graph_loading.wait(10))
        return real_load()

    def require_graph(self):
        graph_loading.set()
        return real_graph(self)

    monkeypatch.setattr(llm, "load_litellm", load_litellm)
    monkeypatch.setattr(Workspace, "require_graph", require_graph)
    return seen


def test_ask_imports_litellm_while_the_graph_loads(fake_llm, sample_vault, overlap, capsys):
    fake_llm.script(text("The Queen of Hearts."))
    assert main(["ask", "Who made the tarts?", "--vault", str(sample_vault)]) == 0
    assert capsys.readouterr().out.startswith("The Queen of Hearts.")
    assert overlap == [True]


def test_ingest_imports_litellm_while_the_graph_loads(fake_llm, sample_vault, overlap, capsys):
    fake_llm.script(text("Plan: nothing new here."), text("Nothing to change."))
    assert main(["ingest", "raw/chapter-03.md", "--vault", str(sample_vault)]) == 1  # nothing proposed
    assert overlap == [True]
