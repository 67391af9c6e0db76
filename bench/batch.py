"""A batch of 100 sources through the fake model server on 1,000- and 10,000-page vaults (issue 23, "Measured").

    .venv/bin/python bench/batch.py [--sizes 1000,10000] [--sources 100] [--concurrency 1]

Not part of the test run. For each size: a generated vault (``bench/_common.generate_vault``,
40-word bodies, index.md written by wikitui's catalog, the search index built once) and
``--sources`` synthetic sources in raw/notes/, each a page of field notes about three of
the vault's pages (known: that is what recall is checked against). The batch runs
in-process through :class:`~wikitui.core.batch.runner.BatchRunner`, as ``wikitui ingest
raw/notes/ --yes`` runs it, against the fake server in a process of its own (the model of
``tests/core/batch_util.py``: read, plan, one summary page, an answer: four requests a source).

Printed (JSON):

- **own time per source**: each source's wall time (from the previous source's end to its
  own) less the time the server spent on its requests (arrival to the answer's last byte,
  measured at the server): wikitui's own work. Median of the first 10 sources against the
  last 10 (flat: the overlay of the earlier sources' proposals costs nothing that grows),
  and p90.
- **memory**: peak RSS (``ru_maxrss``) after the vault loaded and after the batch, and the
  RSS at the 10th and the last source.
- **first request**: the tokens of each turn's first request (system prompt, the user's
  message and the tool schemas; litellm's counter) against the window, and **recall**:
  the share of sources whose three pages' catalog entries that request carries.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import generate_vault, loadavg, median, ms, percentile  # noqa: E402

WINDOW = 32_768


def _serve(replies: int) -> None:
    """``bench/batch.py --serve N``: the fake server with the ingesting model, in this process; prints its port."""
    import threading

    from tests.core.batch_util import ingesting
    from tests.fakeserver import FakeLLM

    fake = FakeLLM().start()
    fake.script(*ingesting(replies, usage=(2000, 200)))
    print(fake.port, flush=True)
    threading.Event().wait()


class _Server:
    """The fake server in a child process (as a model server runs), its state read back over HTTP."""

    def __init__(self, replies: int) -> None:
        import subprocess

        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--serve", str(replies)],
                                     stdout=subprocess.PIPE, text=True, cwd=str(ROOT))
        port = int(self.proc.stdout.readline().strip()) if self.proc.stdout else 0
        self.api_base = f"http://127.0.0.1:{port}/v1"
        self.port = port

    def state(self) -> dict:
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_control/state", timeout=60) as response:
            return json.loads(response.read())

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def _rss_kb() -> int:
    """The resident set now, in KiB (Linux)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except OSError:
        return 0


def _build(root: Path, pages: int, sources: int) -> dict[str, list[str]]:
    """The vault and its sources; source -> the three pages it is about."""
    from wikitui.core.vault.catalog import render_index
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    generate_vault(root, pages=pages, words=40)
    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    head = "# Index\n\nThe generated wiki's catalog.\n\n<!-- wikitui:index -->\n"
    (root / vault.index_path).write_text(render_index(vault, graph, head), encoding="utf-8")
    (root / ".wikitui").mkdir(exist_ok=True)
    (root / ".wikitui/config.toml").write_text(f"context_tokens = {WINDOW}\n", encoding="utf-8")
    rng = random.Random(pages)
    listed = sorted(p for p in graph.pages if p not in (vault.index_path, vault.log_path))
    about: dict[str, list[str]] = {}
    (root / "raw/notes").mkdir(parents=True, exist_ok=True)
    for k in range(sources):
        three = rng.sample(listed, 3)
        rel = f"raw/notes/notes-{k:03d}.md"
        body = f"# Field notes {k}\n\n" + "\n\n".join(f"## {graph.pages[p].title}\n\n{graph.pages[p].summary}"
                                                     for p in three)
        (root / rel).write_text(body + "\n", encoding="utf-8")
        about[rel] = three
    return about


def _source_of(messages: list[dict]) -> str | None:
    for m in messages:
        content = m.get("content")
        if m.get("role") == "user" and isinstance(content, str) and "Ingest raw/" in content:
            return content.split("Ingest ", 1)[1].split()[0].rstrip(".")
    return None


async def _run(root: Path, server: _Server, concurrency: int) -> tuple[list[tuple[str, float]], object, dict]:
    from wikitui.core.batch.events import SourceFinished
    from wikitui.core.batch.preflight import prepare
    from wikitui.core.batch.runner import BatchRunner
    from wikitui.core.config.settings import load_settings
    from wikitui.core.workspace import Workspace

    started = time.perf_counter()
    ws = Workspace.open(root)
    ws.require_graph()
    ws.update_index()
    loaded_s = time.perf_counter() - started
    settings = load_settings(ws.vault)
    settings.batch_concurrency = concurrency
    memory = {"after_load_maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "rss_kb": {}}
    finished: list[tuple[str, float]] = []

    def on_event(event) -> None:
        if isinstance(event, SourceFinished):
            finished.append((event.source, time.perf_counter()))
            if event.n in (10, event.total):
                memory["rss_kb"][f"source_{event.n}"] = _rss_kb()

    runner = BatchRunner(ws, settings, on_event)
    plan = prepare(ws, "raw/notes/", settings=settings, client=runner.client)
    batch = plan.start(ws.vault)
    t0 = time.perf_counter()
    await runner.run(batch)
    memory["after_batch_maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    memory["load_s"] = round(loaded_s, 1)
    counts = batch.counts()
    return [("", t0), *finished], counts, memory


def measure(pages: int, sources: int, concurrency: int) -> dict:
    from wikitui.core.agent.llm import LLMClient
    from wikitui.core.config.settings import Settings
    from wikitui.core.vault.catalog import catalog_lines
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        about = _build(root, pages, sources)
        server = _Server(sources * 4 + 50)
        os.environ.update({"WIKITUI_MODEL": "openai/fake-model", "WIKITUI_API_BASE": server.api_base,
                           "OPENAI_API_KEY": "sk-bench", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                           "HOME": tmp, "XDG_CONFIG_HOME": str(Path(tmp) / ".config")})
        try:
            marks, counts, memory = asyncio.run(_run(root, server, concurrency))
            state = server.state()
        finally:
            server.stop()
        # The server's time on each source's requests (arrival to the last byte of the answer).
        at_server: dict[str, float] = {}
        first: dict[str, dict] = {}
        for body, slot in zip(state["requests"], state["timeline"]):
            source = _source_of(body.get("messages", []))
            if source is None:
                continue
            at_server[source] = at_server.get(source, 0.0) + slot["finished"] - slot["arrived"]
            first.setdefault(source, body)
        own = []
        for (_, before), (source, after) in zip(marks, marks[1:]):
            own.append(after - before - at_server.get(source, 0.0))
        # The first request of each turn: its tokens, and whether the source's three pages' entries are in it.
        client = LLMClient(Settings(model="openai/gpt-4o"))
        graph = LinkGraph.load(Vault.open(root))
        sent, hits = [], []
        for source, body in first.items():
            tools = client.count_tokens(text=json.dumps(body.get("tools") or []))
            sent.append(client.count_tokens(body["messages"]) + tools)
            system = "\n".join(str(m.get("content")) for m in body["messages"] if m.get("role") == "system")
            hits.append(all(catalog_lines(graph, [graph.pages[p]])[-1] in system for p in about[source]))
    return {
        "pages": pages, "sources": sources, "concurrency": concurrency, "counts": {k: v for k, v in counts.items() if v},
        "own_ms_per_source": {"first_10_median": ms(median(own[:10])), "last_10_median": ms(median(own[-10:])),
                              "median": ms(median(own)), "p90": ms(percentile(own, 90))},
        "server_ms_per_source_median": ms(median(list(at_server.values()))),
        "memory": memory,
        "first_request_tokens": {"median": int(median(sent)), "max": max(sent), "window": WINDOW},
        "recall_three_pages_in_first_request": round(sum(hits) / len(hits), 3) if hits else None,
    }


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        _serve(int(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--sources", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    out: dict = {"loadavg_before": loadavg(), "runs": []}
    for size in (int(s) for s in args.sizes.split(",")):
        out["runs"].append(measure(size, args.sources, args.concurrency))
        print(json.dumps(out["runs"][-1]), file=sys.stderr, flush=True)
    out["loadavg_after"] = loadavg()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
