"""The MCP session without the protocol: hostile calls, the session's changeset through review, edits from elsewhere."""

from __future__ import annotations

import json

import pytest

from tests.core.test_tools import tree_hash
from wikitui.core.mcp.session import McpSession
from wikitui.core.workspace import Workspace


@pytest.fixture
def session(sample_vault):
    ws = Workspace.open(sample_vault)
    yield McpSession(ws, client="test-client")
    ws.close()


def propose_rabbit_edit(session: McpSession, new: str = "with bright pink eyes") -> tuple[bool, str]:
    return session.call("propose_edit", {"path": "wiki/characters/white-rabbit.md",
                                         "edits": [{"old": "with pink eyes", "new": new}], "reason": "precise"})


def test_hostile_arguments_that_no_client_library_sends_are_errors_too(session, sample_vault):
    before = tree_hash(sample_vault / "wiki")
    deep: object = "x"
    for _ in range(100_000):
        deep = [deep]
    calls = [
        ("search", {"query": deep}),
        ("read", {"path": "lone \ud800 surrogate"}),
        ("propose_page", {"path": "wiki/y.md", "content": "lone \ud800 surrogate", "reason": "r"}),
        ("propose_page", {"path": "wiki/\x00.md", "content": "x", "reason": "r"}),
        ("lint", {"path": deep}),
        ("lint", {"path": "x", "extra": 1}),
        ("search", "not an object"),
        ("read", {"path": "wiki/characters/alice.md", "offset": float("nan")}),
    ]
    for name, args in calls:
        ok, text = session.call(name, args)
        assert not ok and text.startswith("error:"), (name, text[:200])
    assert tree_hash(sample_vault / "wiki") == before
    assert session.workspace.pending.list() == []


def test_the_sessions_changeset_is_applied_and_undone_like_any_other(session, sample_vault):
    page = sample_vault / "wiki/characters/white-rabbit.md"
    before = page.read_bytes()
    assert propose_rabbit_edit(session)[0]
    (changeset,) = session.workspace.pending.list()
    assert changeset.id == session.changeset_id and changeset.id.startswith("mcp-")
    assert changeset.title == "Proposed over MCP by test-client"

    result = session.workspace.apply(changeset)
    assert result.written == ["wiki/characters/white-rabbit.md"]
    assert b"bright pink eyes" in page.read_bytes()
    assert session.workspace.pending.list() == []

    session.workspace.undo()
    assert page.read_bytes() == before


def test_after_the_person_reviews_it_the_next_proposal_starts_a_new_changeset(session, sample_vault):
    assert propose_rabbit_edit(session)[0]
    first = session.changeset_id
    session.workspace.apply(session.workspace.pending.load(first))

    ok, text = session.call("propose_edit", {"path": "wiki/characters/white-rabbit.md",
                                             "edits": [{"old": "bright pink eyes", "new": "very pink eyes"}],
                                             "reason": "again"})
    assert ok, text
    second = session.changeset_id
    assert second != first and second.startswith("mcp-")
    (pending,) = session.workspace.pending.list()
    assert pending.id == second  # the applied proposal is not proposed again
    assert [f.path for f in pending.files] == ["wiki/characters/white-rabbit.md"]

    # Rejected (discarded) in the workspace: the same.
    session.workspace.pending.discard(second)
    assert session.call("propose_delete", {"path": "wiki/characters/dinah.md", "reason": "r"})[0]
    (pending,) = session.workspace.pending.list()
    assert pending.id not in (first, second)
    assert [f.path for f in pending.files] == ["wiki/characters/dinah.md"]


def test_edits_made_elsewhere_reach_search_and_read_through_the_watcher(session, sample_vault):
    assert "0 hits" in session.call("search", {"query": "zanzibarquux"})[1]
    new = sample_vault / "wiki/objects/zanzibar.md"
    new.write_text("---\ntitle: Zanzibar\ntype: entity\nsummary: s\n---\n\nThe zanzibarquux clock.\n",
                   encoding="utf-8")
    session.files_changed(["wiki/objects/zanzibar.md"])
    ok, text = session.call("search", {"query": "zanzibarquux"})
    assert ok and "wiki/objects/zanzibar.md" in text
    assert "Zanzibar" in session.call("read", {"path": "Zanzibar"})[1]


def test_resources_are_confined_to_the_vault(session, sample_vault):
    from wikitui.core.base.errors import WikituiError

    assert session.read_resource("wiki://page/Alice") == (sample_vault / "wiki/characters/alice.md").read_text(
        encoding="utf-8")
    for uri in ("wiki://page/%2E%2E/%2E%2E/etc/passwd", "wiki://page/.wikitui/x", "wiki://nope"):
        with pytest.raises(WikituiError):
            session.read_resource(uri)
    json.dumps(session.tools())  # the schemas travel as JSON


def test_a_chart_being_drawn_does_not_hold_up_the_sessions_other_calls(session, monkeypatch):
    """Issue 20.5c: drawing is done before the session's lock is taken; a search meanwhile is answered."""
    import threading

    from wikitui.core.outputs import charts

    drawing, release = threading.Event(), threading.Event()
    draw_bar = charts._DRAW["bar"]

    def slow_bar(ax, series):  # matplotlib at work on a big chart, until the test lets it finish
        drawing.set()
        release.wait(60)
        draw_bar(ax, series)

    monkeypatch.setitem(charts._DRAW, "bar", slow_bar)
    assert session.call("search", {"query": "rabbit"})[0]  # warm: the graph and the index are loaded
    spec = {"kind": "bar", "title": "Tea", "series": [{"name": "", "x": ["a", "b"], "y": [1, 2]}]}
    chart: list = []
    proposer = threading.Thread(target=lambda: chart.append(session.call(
        "propose_chart", {"path": "wiki/assets/tea.png", "spec": spec, "reason": "a chart"})))
    proposer.start()
    try:
        assert drawing.wait(60)
        found: list = []
        searcher = threading.Thread(target=lambda: found.append(session.call("search", {"query": "rabbit"})))
        searcher.start()
        searcher.join(60)  # a safety net only: it answers at once, while the chart is still being drawn
        assert found and found[0][0] and not release.is_set()
    finally:
        release.set()
        proposer.join(60)
    assert chart and chart[0][0] and "pending changeset mcp-" in chart[0][1]


def test_a_chart_over_the_limits_is_an_error_result_naming_the_limit(session):
    labels = [f"c{i}" for i in range(10_000)]
    ok, text = session.call("propose_chart", {"path": "wiki/assets/big.png", "reason": "big",
                                              "spec": {"kind": "bar", "series": [{"x": labels, "y": [1] * 10_000}]}})
    assert not ok and text.startswith("error: ") and "at most 100 categories (got 10,000)" in text
