"""Plans that run ahead (issue 23.3, config ``batch_concurrency``): while source a is written, source b plans;
writes stay in order, each over the overlay of the earlier sources' proposals.

The fake model holds a's first write request until b's plan request has reached the
server (with a deadline): with plans one after another it never would. b's plan reads
the gizmo page before a proposed it (not found); its write phase is told which pages the
batch proposed since, reads the page as a proposed it, and edits it: its changeset is
recorded against a's text (stacked), and the queue lists a, b, c proposed in order.
"""

from __future__ import annotations

import io
import threading
from contextlib import redirect_stderr, redirect_stdout

import pytest

from tests.core.batch_util import answer as summary_answer
from tests.core.batch_util import batch_files
from tests.core.test_batch_overlay import GIZMO, PAGE, _by_path, _source
from tests.fakeserver import Dynamic, text, tool_call
from wikitui.cli import main

WAIT_S = 20.0
SINCE = "While you planned, earlier sources of this batch proposed changes to"


@pytest.fixture
def vault(sample_vault):
    (sample_vault / "raw/papers").mkdir(parents=True)
    (sample_vault / "raw/papers/a.md").write_text("# Paper A\n\nGizmos are small devices.\n")
    (sample_vault / "raw/papers/b.md").write_text("# Paper B\n\nGizmos are cheap too.\n")
    (sample_vault / "raw/papers/c.md").write_text("# Paper C\n\nAbout cats.\n")
    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui/config.toml").write_text("batch_concurrency = 2\n")
    return sample_vault


class Model:
    """The fake model of this test, and what it saw."""

    def __init__(self) -> None:
        self.b_planning = threading.Event()
        self.overlapped: bool | None = None
        self.seen: dict[str, str] = {}
        self.order: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def __call__(self, body: dict):
        messages = body.get("messages", [])
        source = _source(messages)
        at = next((i for i, m in enumerate(messages) if m.get("role") == "user"
                   and "plan is approved" in str(m.get("content"))), None)
        with self.lock:
            self.order.append((source, "plan" if at is None else "write"))
        if source.endswith("c.md"):
            return summary_answer(body)
        if at is None:  # the plan phase
            if source.endswith("b.md"):
                self.b_planning.set()
            if messages[-1].get("role") == "tool":
                self.seen.setdefault(f"{source} plan read", str(messages[-1].get("content")))
                return text(f"Plan: the gizmo page, from {source}.")
            return tool_call("read", path=source if source.endswith("a.md") else PAGE)
        done = [m for m in messages[at:] if m.get("role") == "tool"]
        if source.endswith("a.md"):
            if not done:
                if self.overlapped is None:  # a's write waits until b's plan has begun (it never would, in order)
                    self.overlapped = self.b_planning.wait(WAIT_S)
                return tool_call("propose_page", path=PAGE, content=GIZMO, reason="a new concept")
            return text("Proposed it.")
        self.seen.setdefault("b write prompt", str(messages[at].get("content")))
        if not done:
            return tool_call("read", path=PAGE)
        if len(done) == 1:
            self.seen["b write read"] = str(done[0].get("content"))
            return tool_call("propose_edit", path=PAGE, reason="what b adds",
                             edits=[{"old": "a small device, from", "new": "a small device (also b), from"}])
        self.seen["b edit"] = str(done[-1].get("content"))
        return text("Edited the gizmo page.")


def test_b_plans_while_a_is_written_and_b_writes_over_what_a_proposed(fake_llm, vault):
    model = Model()
    fake_llm.script(*[Dynamic(model) for _ in range(40)])
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["ingest", "raw/papers/", "--vault", str(vault), "--yes"])
    assert code == 0, err.getvalue()
    # The server saw b's plan before a's write ended.
    assert model.overlapped is True
    first_b = model.order.index(("raw/papers/b.md", "plan"))
    last_a_write = max(i for i, o in enumerate(model.order) if o == ("raw/papers/a.md", "write"))
    assert first_b < last_a_write
    # b's plan was made before a proposed the page; its write phase was told, and read a's page.
    assert "A gizmo is" not in model.seen["raw/papers/b.md plan read"]
    assert SINCE in model.seen["b write prompt"] and PAGE in model.seen["b write prompt"]
    assert "A gizmo is a small device" in model.seen["b write read"]
    assert model.seen["b edit"].startswith("recorded 1 edit")
    # Writes in order, stacked: b's edit is recorded against a's proposed text.
    [queue] = batch_files(vault)
    assert [(e["source"], e["state"]) for e in queue["entries"]] == [
        ("raw/papers/a.md", "proposed"), ("raw/papers/b.md", "proposed"), ("raw/papers/c.md", "proposed")]
    [(cs_a, create), (cs_b, edit)] = _by_path(vault)[PAGE]
    assert [cs_a.id, cs_b.id] == [e["changeset"] for e in queue["entries"][:2]]
    assert create.action == "create" and edit.action == "edit" and edit.base_text == create.new_text
    assert "(also b)" in edit.new_text
    writes = [s for s, phase in model.order if phase == "write"]
    assert writes == sorted(writes)  # a's write requests, then b's, then c's: never interleaved
