"""A batch from the chat (issue 23.1-2): ``/ingest raw/papers/``, its pre-flight, ``/go``, the batch panel, esc
mid-batch, a card per source, and the next start offering to continue the queue.

The app is the one ``wikitui`` runs on a copy of the sample vault, the model the real
litellm client against the fake server answering as :mod:`tests.core.batch_util`'s
ingesting model. Each source's write is held at the server until the test lets it go, so
the panel is seen on each source and esc lands while source b is being written.
"""

from __future__ import annotations

import threading

import pytest

from tests.core.batch_util import answer, batch_files, pending_by_source
from tests.fakeserver import Dynamic
from tests.ui.test_chat_ingest import type_in_chat, wait_for
from tests.ui.test_workspace_snapshots import _settled
from tests.ui.workspace_helpers import screen_text, wait_ready, workspace
from wikitui.core.batch.events import Progress
from wikitui.core.vault.layout import Vault
from wikitui.ui.widgets.chat_input import complete
from wikitui.ui.widgets.batch_panel import BatchPanel
from wikitui.ui.widgets.chat_log import NoteLine
from wikitui.ui.widgets.chat_pane import ChatPane

PAPERS = {"raw/papers/a.md": "# Paper A\n\nAbout apples.\n", "raw/papers/b.md": "# Paper B\n\nAbout bees.\n",
          "raw/papers/c.md": "# Paper C\n\nAbout cats.\n"}
HOLD_S = 30.0


@pytest.fixture
def vault(sample_vault):
    for rel, body in PAPERS.items():
        (sample_vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (sample_vault / rel).write_text(body)
    return sample_vault


class HeldWrites:
    """The ingesting model, each source's first write request held until :meth:`release` (with a deadline)."""

    def __init__(self) -> None:
        self.gates = {rel: threading.Event() for rel in PAPERS}
        self.held: set[str] = set()
        self.requests: list[tuple[str, str]] = []  # (source, "plan" or "write")

    def release(self, source: str) -> None:
        self.gates[source].set()

    def __call__(self, body: dict):
        messages = body.get("messages", [])
        writing = any(m.get("role") == "user" and "plan is approved" in str(m.get("content")) for m in messages)
        source = next(str(m["content"]).split("Ingest ", 1)[1].split()[0].rstrip(".") for m in messages
                      if m.get("role") == "user" and "Ingest raw/" in str(m.get("content")))
        self.requests.append((source, "write" if writing else "plan"))
        if writing and messages[-1].get("role") != "tool":
            self.held.add(source)
            self.gates[source].wait(HOLD_S)
        return answer(body, usage=(1000, 100))


def notes(app) -> str:
    """The chat's notes, each as one plain text (the screen wraps them in the narrow agent pane)."""
    return "\n".join(n.plain for n in app.query_one(ChatPane).chat_log.query(NoteLine))


def panel_text(app) -> str:
    panel = app.query_one(BatchPanel)
    return str(panel.render()) if panel.has_class("-shown") else ""


@pytest.mark.parametrize(("concurrency", "stop_key"), [(1, "escape"), (2, "ctrl+c")],
                         ids=["one-at-a-time-esc", "plans-ahead-ctrl+c"])
async def test_a_batch_from_the_chat_stops_on_esc_and_the_next_start_offers_to_continue(fake_llm, vault, concurrency,
                                                                                       stop_key):
    """With plans ahead, c's plan runs while b is written: the stop cancels it and c is queued again, unwritten."""
    (vault / ".wikitui").mkdir(exist_ok=True)
    (vault / ".wikitui/config.toml").write_text(f"batch_concurrency = {concurrency}\n")
    model = HeldWrites()
    fake_llm.script(*[Dynamic(model) for _ in range(40)])
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        chat = app.query_one(ChatPane)
        await type_in_chat(pilot, "/ingest raw/papers/")
        await wait_for(pilot, lambda: chat.controller.batch.waiting is not None, "the pre-flight")
        await pilot.pause()
        shown = notes(app)
        assert "Batch raw/papers/: 3 source(s) to ingest, 0 skipped" in shown
        assert "Estimate: about" in shown and "with openai/fake-model" in shown
        assert "/go starts the batch" in shown
        assert not batch_files(vault)  # nothing queued, nothing spent before the confirmation

        await type_in_chat(pilot, "/go")
        await wait_for(pilot, lambda: "1 of 3" in panel_text(app) and "raw/papers/a.md" in model.held,
                       "source a being written")
        await wait_for(pilot, lambda: "writing raw/papers/a.md" in panel_text(app), "the panel on a")
        first = panel_text(app)
        assert "Batch raw/papers/ · 1 of 3" in first and "0 failed" in first and "esc stops after" in first
        assert "Batch raw/papers/ · 1 of 3" in screen_text(app)  # on the screen, above the input (wrapped)
        # The UI answers while the batch runs: typing goes into the input.
        await pilot.press("f5")
        await pilot.press("x")
        assert chat.chat_input.text.endswith("x")
        chat.chat_input.set_text("")
        model.release("raw/papers/a.md")
        await wait_for(pilot, lambda: "2 of 3" in panel_text(app) and "raw/papers/b.md" in model.held,
                       "source b being written")
        await wait_for(pilot, lambda: len(chat.chat_log.cards) == 1, "a's changeset card")
        second = panel_text(app)
        assert "1 proposed" in second and " tok · $" in second and " left" in second and second != first
        assert "raw/papers/b.md" in second

        if concurrency > 1:
            await wait_for(pilot, lambda: ("raw/papers/c.md", "plan") in model.requests, "c planning ahead")
        await pilot.press(stop_key)  # mid-batch: b is being written
        await wait_for(pilot, lambda: "stopping after raw/papers/b.md" in panel_text(app).replace("\n", " "), "the panel stopping")
        model.release("raw/papers/b.md")
        await wait_for(pilot, lambda: not chat.controller.batch.running, "the batch to stop")
        await pilot.pause()
        assert not app.query_one(BatchPanel).has_class("-shown")
        assert len(chat.chat_log.cards) == 2  # a's and b's: b was finished, not cancelled
        shown = notes(app)
        assert "Stopped (interrupted)" in shown and "/ingest --resume continues it" in shown
        [queue] = batch_files(vault)
        assert [(e["source"], e["state"]) for e in queue["entries"]] == [
            ("raw/papers/a.md", "proposed"), ("raw/papers/b.md", "proposed"), ("raw/papers/c.md", "queued")]
        assert "raw/papers/c.md" not in model.held and ("raw/papers/c.md", "write") not in model.requests
        # One at a time, c never started; with plans ahead, c planned while b was written, and esc dropped it.
        assert (("raw/papers/c.md", "plan") in model.requests) == (concurrency > 1)

    model.release("raw/papers/c.md")
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        chat = app.query_one(ChatPane)
        await pilot.pause()
        shown = notes(app)
        assert "An unfinished batch: raw/papers/ (2 proposed, 1 left)" in shown and "/ingest --resume" in shown
        await type_in_chat(pilot, "/ingest --resume")
        await wait_for(pilot, lambda: chat.controller.batch.waiting is not None, "the resume's pre-flight")
        await pilot.pause()
        assert "Resuming batch" in notes(app) and "1 source(s) to ingest" in notes(app)
        await type_in_chat(pilot, "/go")
        await wait_for(pilot, lambda: "Done." in notes(app), "the batch to end")
        assert not chat.controller.batch.running and len(chat.chat_log.cards) >= 1
    [queue] = batch_files(vault)
    assert {e["state"] for e in queue["entries"]} == {"proposed"}
    by_source = pending_by_source(Vault.open(vault))
    assert sorted(by_source) == sorted(PAPERS) and all(len(ids) == 1 for ids in by_source.values())


async def test_new_and_a_glob_show_their_pre_flight_and_anything_else_sent_leaves_it_unstarted(fake_llm, vault):
    (vault / ".wikitui").mkdir(exist_ok=True)
    (vault / ".wikitui/config.toml").write_text("batch_max_cost = 1.0\n")
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        chat = app.query_one(ChatPane)
        await type_in_chat(pilot, "/ingest --new")
        await wait_for(pilot, lambda: chat.controller.batch.waiting is not None, "the pre-flight")
        shown = notes(app)
        # The sample's twelve chapters are listed by pages: skipped, and why; the cap, and that it cannot act.
        assert "Batch --new: 3 source(s) to ingest, 12 skipped (12 ingested: a page lists it in sources)" in shown
        assert "skipped raw/chapter-01.md: ingested: a page lists it in sources" in shown
        assert "Cost cap $1.00 for this run (but the model's price is unknown: the cap cannot act)" in shown
        await type_in_chat(pilot, "/ingest raw/**/*.pdf")  # another command: the first batch is not started
        await wait_for(pilot, lambda: "No source matches raw/**/*.pdf." in notes(app), "the glob's answer")
        assert "The batch was not started" in notes(app) and chat.controller.batch.waiting is None
        await type_in_chat(pilot, "/go")  # nothing waits: /go is the ingest plan's, and there is none
        await pilot.pause()
        assert not chat.controller.batch.running
    assert not batch_files(vault) and fake_llm.requests == []


async def test_quitting_mid_batch_keeps_the_queue_for_the_next_start(fake_llm, vault):
    model = HeldWrites()
    fake_llm.script(*[Dynamic(model) for _ in range(40)])
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        chat = app.query_one(ChatPane)
        await type_in_chat(pilot, "/ingest raw/papers/*.md")
        await wait_for(pilot, lambda: chat.controller.batch.waiting is not None, "the pre-flight")
        await type_in_chat(pilot, "/go")
        model.release("raw/papers/a.md")
        await wait_for(pilot, lambda: "raw/papers/b.md" in model.held, "source b being written")
    for source in PAPERS:  # the app is gone: its held request may go
        model.release(source)
    [queue] = batch_files(vault)
    states = {e["source"]: e["state"] for e in queue["entries"]}
    assert states["raw/papers/a.md"] == "proposed" and states["raw/papers/c.md"] == "queued"
    assert states["raw/papers/b.md"] in ("writing", "queued")  # the quit came mid-write
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.pause()
        assert "An unfinished batch: raw/papers/*.md (1 proposed, 2 left)" in notes(app)


#: A batch mid-run, as the panel shows it (fixed figures: a snapshot shows no clock).
MID_RUN = Progress(n=2, total=3, source="raw/papers/b.md", phase="writing", tokens=12_345, cost=0.0123, left_s=75.0,
                   failed=1, proposed=1, planning_ahead=1)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_the_batch_panel(snap_compare, fake_llm, sample_vault, size):
    async def before(pilot):
        await _settled(pilot)
        await pilot.press("f5")  # the agent's pane, as a user watching the batch has it
        pilot.app.query_one(ChatPane).chat_input.cursor_blink = False  # keep the image independent of timing
        pilot.app.query_one(BatchPanel).show_progress("raw/papers/", MID_RUN)
        await pilot.pause()

    app = workspace(sample_vault, watch=False, theme="wikitui-dark")
    assert snap_compare(app, terminal_size=size, run_before=before)


def test_a_batch_typed_in_full_is_not_completed_so_enter_sends_it():
    raws = lambda: ["raw/chapter-01.md", "raw/papers/a.md", "raw/papers/b.md"]  # noqa: E731
    for typed in ("/ingest raw/papers/", "/ingest raw/**/*.pdf", "/ingest raw/papers/*.md", "/ingest --new",
                  "/ingest --resume"):
        assert complete(typed, raw_files=raws) is None, typed
    # A folder still being typed, or one with no source under it, completes as before.
    assert [c.label for c in complete("/ingest raw/pap", raw_files=raws).candidates] == [
        "raw/papers/a.md", "raw/papers/b.md"]
    assert complete("/ingest raw/papers/a", raw_files=raws) is not None
