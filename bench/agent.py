"""Benchmark the agent's economy and its tool round trip against the fake OpenAI-compatible server.

Runs scripted turns through the real AgentSession, litellm and HTTP (no network, no
paid model). The fake server runs in a process of its own, as a model server does
(in-process, its thread would compete with the client for the GIL). Prints JSON:

* prompt tokens sent (summed over every request of a turn, counted with
  ``litellm.token_counter``) for an ask that needs 3 pages, one that needs 5, and an
  ingest, on the sample vault and on a copy of vault-small, against the total tokens of
  the wiki (target: an ask needing <= 5 pages sends <= 5% of vault-small's tokens);
* the tool round trip **measured at the server**: from the moment the last byte of
  answer N left the server to the arrival of request N+1 (target: median <= 60 ms on the
  sample vault on a quiet machine), split into

  - ``stream_end``: the client finishing the stream after the server's last byte
    (SSE parsing and chunk handling by the stream reader);
  - ``ours``: wikitui's own work (running the tools, the transcript, fitting the request);
  - ``request_build``: from ``LLMClient.stream`` until httpx sends (litellm's request building);
  - ``http``: from httpx's send to the server reading the request.

  Every round is counted, the process's first one too (``first_round_gap``: what a user's first
  question pays for lazy imports and cold caches). Beside wikitui, the same answers go through a
  plain tool loop on litellm's public stream and one on the OpenAI SDK (``bench/agent_plain.py``):
  what a few lines straight on the library take between two requests, wikitui's comparison.

  The three ways of reading a stream (core/agent/fast_stream.py) are measured in the same
  run, alternating turn by turn: ``wikitui`` (the default: the SSE events of the OpenAI
  SDK stream under litellm, parsed with ``json.loads``), ``openai_sdk`` (that stream's
  pydantic chunks, the reader before) and ``litellm_wrapper`` (litellm's
  CustomStreamWrapper, the reader before that); the ratios between them are the figures
  to trust on a loaded machine, not the milliseconds.

* a headless ``wikitui ask`` **from its process start** (a fresh process each run, as a script
  runs it): when its first request reaches the server, its first tool round, its last answer and
  its exit, beside the plain litellm and OpenAI SDK loops run as processes (``--compare DIR`` adds
  ``wikitui ask`` with another version of the code first on PYTHONPATH; ``--only-start`` runs only these);

* ``stream_end`` alone for one 4 KB ``propose_page`` answer (~260 chunks), per reader: the
  reader's own cost, which the round trip's median (mostly short answers) hides.

The fake server sets TCP_NODELAY, as model servers do: without it the answer's last small
writes waited in the server's kernel for the client's delayed ACK (~40 ms) after the server
had marked the answer finished, and that wait was counted as ``stream_end``.

Usage: ``.venv/bin/python bench/agent.py [--repeats N] [--compare DIR] [--only-start]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import loadavg, median, percentile  # noqa: E402
from bench.agent_plain import plain_loop  # noqa: E402

from tests.fakeserver import FAKE_API_KEY, FAKE_MODEL, Reply, ToolCalls, text, tool_call, tool_calls  # noqa: E402
from tests.fakeserver_process import RemoteFakeLLM  # noqa: E402

CORPUS = Path(os.environ.get("WIKITUI_CORPUS", ROOT.parent / "shared" / "corpus"))


def _env(fake: RemoteFakeLLM, home: Path) -> None:
    os.environ.update({
        "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
        "WIKITUI_MODEL": FAKE_MODEL, "WIKITUI_API_BASE": fake.api_base, "OPENAI_API_KEY": FAKE_API_KEY,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    })
    os.environ.pop("WIKITUI_CONFIG", None)


def _open(root: Path):
    from wikitui.core.search.facade import SearchIndex
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    index = SearchIndex(vault)
    index.update(graph)
    return vault, graph, index


def wiki_tokens(vault, graph, count) -> int:
    """Tokens of every page plus WIKI.md: what sending the whole wiki would cost."""
    from wikitui.core.vault.files import read_text

    total = sum(count(read_text(vault.root / p)) for p in graph.pages)
    schema = vault.root / "WIKI.md"
    return total + (count(read_text(schema)) if schema.exists() else 0)


def _sent_tokens(fake: RemoteFakeLLM, first: int, count_messages) -> int:
    return sum(count_messages(r["messages"], r.get("tools")) for r in fake.state()["requests"][first:])


def _requests(fake: RemoteFakeLLM) -> int:
    return len(fake.state()["requests"])


def ask_script(query: str, pages: list[str]) -> list[Reply]:
    """Search, read the pages (in one round), answer citing them."""
    cites = ", ".join(f"[[{Path(p).stem}]]" for p in pages)
    return [
        tool_call("search", query=query, scope="wiki", limit=8),
        tool_calls(*[("read", {"path": p}) for p in pages]),
        text(f"Here is what the wiki says, in a few paragraphs, drawing on {cites}. " * 4),
    ]


def edit_for(vault, page: str, source_title: str) -> dict:
    """An exact edit appending a 'see also' to the page's last non-empty line."""
    from wikitui.core.vault.files import read_text

    lines = [ln for ln in read_text(vault.root / page).splitlines() if ln.strip()]
    last = lines[-1]
    return {"old": last, "new": f"{last} See also [[{source_title}]]."}


def ingest_script(vault, source: str, query: str, pages: list[str]) -> list[Reply]:
    """Plan (read the source, search, read pages, state the plan), then write (a source page + edits)."""
    title = f"Source {Path(source).stem}"
    body = ("---\ntitle: " + json.dumps(title) + "\ntype: source\nsummary: A benchmark source summary.\n"
            f"sources: [{source}]\n---\n\n# {title}\n\n" + "A summary paragraph of the source. " * 30 + "\n")
    proposals = [("propose_page", {"path": vault.join_wiki(f"sources/{Path(source).stem}-bench.md"),
                                   "content": body, "reason": "source summary"})]
    proposals += [("propose_edit", {"path": p, "edits": [edit_for(vault, p, title)], "reason": "link the source"})
                  for p in pages]
    return [
        tool_call("read", path=source),
        tool_call("search", query=query, scope="wiki", limit=8),
        tool_calls(*[("read", {"path": p}) for p in pages]),
        text("Plan: takeaways... create the source page; update " + ", ".join(pages) + "."),
        tool_calls(*proposals),
        text("Proposed the source page and the links."),
    ]


async def measure(fake: RemoteFakeLLM, root: Path, *, ask_query: str, ingest_source: str, ingest_query: str) -> dict:
    from wikitui.core.agent.llm import LLMClient, load_litellm
    from wikitui.core.agent.session import AgentSession
    from wikitui.core.config.settings import load_settings

    litellm = load_litellm()

    def count_text(s: str) -> int:
        return litellm.token_counter(model=FAKE_MODEL, text=s)

    def count_messages(messages, tools) -> int:
        return litellm.token_counter(model=FAKE_MODEL, messages=messages, tools=tools)

    vault, graph, index = _open(root)
    total = wiki_tokens(vault, graph, count_text)
    hits = [h.path for h in index.search(ask_query, scope="wiki", limit=10)]
    settings = load_settings(vault)
    settings.context_tokens = 128_000  # a hosted model's window, as these targets were set for
    out: dict = {"vault": root.name, "pages": len(graph.pages), "wiki_tokens": total}
    for n in (3, 5):
        pages = hits[:n]
        session = AgentSession(vault, graph, index, settings, client=LLMClient(settings))
        first = _requests(fake)
        fake.script(*ask_script(ask_query, pages))
        done = await session.ask(f"A question needing {n} pages about {ask_query}")
        assert not done.failed, done
        sent = _sent_tokens(fake, first, count_messages)
        out[f"ask_{n}_pages"] = {"requests": _requests(fake) - first, "prompt_tokens_sent": sent,
                                 "share_of_wiki": round(sent / total, 4),
                                 "pages_read_tokens": sum(count_text((root / p).read_text("utf-8-sig")) for p in pages)}
    ingest_pages = [h.path for h in index.search(ingest_query, scope="wiki", limit=6)][:3]
    session = AgentSession(vault, graph, index, settings, client=LLMClient(settings))
    first = _requests(fake)
    fake.script(*ingest_script(vault, ingest_source, ingest_query, ingest_pages))
    errors: list[str] = []
    session.on_event = lambda ev: errors.append(ev.summary) if getattr(ev, "ok", True) is False else None
    done = await session.ingest(ingest_source, auto_go=True)
    assert not done.failed and done.changeset is not None, (done, errors)
    sent = _sent_tokens(fake, first, count_messages)
    out["ingest"] = {"requests": _requests(fake) - first, "prompt_tokens_sent": sent,
                     "share_of_wiki": round(sent / total, 4), "files_in_changeset": len(done.changeset.files),
                     "tool_errors": errors}
    index.close()
    return out


# ------------------------------------------------------------------ the round trip, at the server
class _SendTimes:
    """When httpx sends each request (the boundary between litellm's request building and the network)."""

    def __init__(self) -> None:
        import httpx

        self.times: list[float] = []
        original = httpx.AsyncClient.send
        times = self.times

        async def send(client, request, **kwargs):
            times.append(time.perf_counter())
            return await original(client, request, **kwargs)

        httpx.AsyncClient.send = send


def _split(server: list[dict], client: list[dict], sends: list[float]) -> list[dict]:
    """Per round trip (answer N -> request N+1): the gap at the server and its four parts, in ms."""
    rows = []
    for i in range(len(server) - 1):
        s0, s1, c0, c1 = server[i], server[i + 1], client[i], client[i + 1]
        rows.append({
            "gap": (s1["arrived"] - s0["finished"]) * 1000,
            "stream_end": (c0["ended"] - s0["finished"]) * 1000,
            "ours": (c1["called"] - c0["ended"]) * 1000,
            "request_build": (sends[i + 1] - c1["called"]) * 1000,
            "http": (s1["arrived"] - sends[i + 1]) * 1000,
        })
    return rows


async def round_trips(fake: RemoteFakeLLM, root: Path, repeats: int) -> dict:
    """The sample vault's turns (two asks and an ingest) repeated, both stream readers alternating."""
    from wikitui.core.agent.llm import LLMClient
    from wikitui.core.agent.session import AgentSession
    from wikitui.core.config.settings import load_settings

    sends = _SendTimes()
    vault, graph, index = _open(root)
    settings = load_settings(vault)
    settings.context_tokens = 128_000  # as a hosted model: nothing condensed, every round sent whole
    hits = [h.path for h in index.search("Cheshire Cat grin", scope="wiki", limit=10)]
    ingest_pages = [h.path for h in index.search("Dodo caucus race", scope="wiki", limit=6)][:3]
    readers = {"wikitui": "sse", "openai_sdk": "sdk", "litellm_wrapper": "litellm"}
    rows: dict[str, list[dict]] = {mode: [] for mode in readers}
    plain: dict[str, list[dict]] = {"plain_litellm_loop": [], "plain_openai_sdk_loop": []}
    first_round: dict[str, float] = {}
    for _rep in range(repeats):  # every round counted, the process's first one too (a user's first question)
        for mode in [*readers, *plain]:
            turns = [("ask", ask_script("Cheshire Cat grin", hits[:3])), ("ask", ask_script("Cheshire Cat grin", hits[:5])),
                     ("ingest", ingest_script(vault, "raw/chapter-03.md", "Dodo caucus race", ingest_pages))]
            for op, script in turns:
                if mode in plain:  # the same answers through a plain loop on the library (bench/agent_plain.py)
                    first = len(fake.state()["timeline"])
                    fake.script(*script)
                    await plain_loop("litellm" if mode == "plain_litellm_loop" else "sdk", rounds=len(script))
                    server = fake.state()["timeline"][first:]
                    plain[mode] += [{"gap": (b["arrived"] - a["finished"]) * 1000} for a, b in zip(server, server[1:])]
                    first_round.setdefault(mode, plain[mode][0]["gap"])
                    continue
                client = LLMClient(settings)
                client.reader = readers[mode]
                session = AgentSession(vault, graph, index, settings, client=client)
                first, first_send = len(fake.state()["timeline"]), len(sends.times)
                fake.script(*script)
                done = await (session.ask("A question about the Cheshire Cat") if op == "ask"
                              else session.ingest("raw/chapter-03.md", auto_go=True))
                assert not done.failed, done
                for pending in (vault.state_dir / "pending").glob("*.json"):
                    pending.unlink()  # the next ingest proposes the same pages again
                rows[mode] += _split(fake.state()["timeline"][first:], list(client.timeline),
                                     sends.times[first_send:])
                first_round.setdefault(mode, rows[mode][0]["gap"])
    index.close()

    def summary(data: list[dict]) -> dict:
        return {"rounds": len(data), **{k: round(median([r[k] for r in data]), 1) for k in data[0]},
                "gap_p90": round(percentile([r["gap"] for r in data], 90), 1)}

    out = {mode: summary(data) for mode, data in {**rows, **plain}.items()}
    for mode in ("openai_sdk", "litellm_wrapper", *plain):
        out[f"gap_ratio_{mode}_to_wikitui"] = round(out[mode]["gap"] / out["wikitui"]["gap"], 2)
    # The process's first round of each (wikitui's runs first: it pays the lazy imports of a first question).
    out["first_round_gap"] = {mode: round(gap, 1) for mode, gap in first_round.items()}
    return out


async def process_start(fake: RemoteFakeLLM, root: Path, repeats: int, compare: Path | None) -> dict:
    """A headless ``wikitui ask`` timed from its process start, beside the plain loops' processes.

    Each run is a fresh process answering the same 3-page ask (search, read, answer); times from
    the moment this process starts it: the first request's arrival at the server, the first tool
    round (answer 1's last byte to request 2), the last answer's last byte, and the process's exit.
    ``compare`` runs ``wikitui ask`` a second time with that folder first on PYTHONPATH (another
    version of the code), interleaved.
    """
    import subprocess

    _vault, _graph, index = _open(root)  # the index current, as after a workspace has run
    hits = [h.path for h in index.search("Cheshire Cat grin", scope="wiki", limit=10)]
    index.close()
    ask = [sys.executable, "-m", "wikitui", "ask", "A question about the Cheshire Cat", "--vault", str(root)]
    plain = [sys.executable, str(Path(__file__).with_name("agent_plain.py"))]
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    here = os.pathsep.join(x for x in (str(ROOT), base.get("PYTHONPATH", "")) if x)
    commands = {"wikitui ask": (ask, {**base, "PYTHONPATH": here})}
    if compare is not None:
        commands[f"wikitui ask ({compare})"] = (ask, {**base, "PYTHONPATH": str(compare)})
    commands["plain litellm loop"] = ([*plain, "litellm"], {**base, "PYTHONPATH": here})
    commands["plain OpenAI SDK loop"] = ([*plain, "sdk"], {**base, "PYTHONPATH": here})
    rows: dict[str, list[dict]] = {name: [] for name in commands}
    for rep in range(repeats + 1):  # the first run of each writes bytecode caches and is not counted
        for name, (cmd, env) in commands.items():
            first = len(fake.state()["timeline"])
            fake.script(*ask_script("Cheshire Cat grin", hits[:3]))
            start = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=str(root), timeout=300)
            exited = time.perf_counter()
            server = fake.state()["timeline"][first:]
            if rep:
                rows[name].append({"first_request": server[0]["arrived"] - start,
                                   "first_tool_round": server[1]["arrived"] - server[0]["finished"],
                                   "last_answer": server[-1]["finished"] - start, "exit": exited - start})
    out: dict = {"runs": repeats}
    for name, data in rows.items():
        out[name] = {k: round(median([r[k] for r in data]) * 1000) for k in data[0]}
    return out


async def stream_end_by_reader(fake: RemoteFakeLLM, repeats: int) -> dict:
    """One 4 KB ``propose_page`` answer (~260 chunks arriving together) read by each reader, alternating.

    The client's time after the server's last byte (``stream_end``) with nothing around the
    stream: the reader's own cost, the part of the round trip the reader decides.
    """
    from wikitui.core.agent.events import ToolCallDelta
    from wikitui.core.agent.llm import LLMClient
    from wikitui.core.config.settings import load_settings

    page = {"path": "wiki/sources/bench.md", "content": "A summary paragraph of the source. " * 115, "reason": "r"}
    readers = {"wikitui": "sse", "openai_sdk": "sdk", "litellm_wrapper": "litellm"}
    ends: dict[str, list[float]] = {mode: [] for mode in readers}
    chunks = 0
    settings = load_settings()
    for rep in range(3 * repeats + 1):  # the first of each reader warms up and is dropped
        for mode, reader in readers.items():
            client = LLMClient(settings)
            client.reader = reader
            fake.script(ToolCalls([("propose_page", page)], chunk=16))
            events = [ev async for ev in client.stream([{"role": "user", "content": "ingest"}],
                                                       cancel_event=asyncio.Event())]
            chunks = sum(isinstance(ev, ToolCallDelta) for ev in events)
            if rep:
                ends[mode].append((client.timeline[-1]["ended"] - fake.state()["timeline"][-1]["finished"]) * 1000)
    out: dict = {"tool_call_chunks": chunks}
    for mode, values in ends.items():
        out[mode] = {"stream_end": round(median(values), 1), "stream_end_p90": round(percentile(values, 90), 1)}
    for mode in ("openai_sdk", "litellm_wrapper"):
        out[f"ratio_{mode}_to_wikitui"] = round(out[mode]["stream_end"] / max(out["wikitui"]["stream_end"], 0.1), 1)
    return out


def _vault_small_copy(dest: Path) -> Path | None:
    src = CORPUS / "vault-small"
    if not src.is_dir():
        return None
    shutil.copytree(src, dest / "vault-small")
    root = dest / "vault-small"
    # Its sources live in archive/*.json; give the ingest a real statute as a markdown source.
    law = json.loads((src / "archive" / "ustg.json").read_text("utf-8"))
    par = law["paragraphen"][0]
    (root / "raw").mkdir(exist_ok=True)
    (root / "raw" / "ustg-1.md").write_text(f"# UStG {par['nummer']} {par['titel']}\n\n{par['inhalt']}\n", "utf-8")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="repeats of the round-trip turns per stream reader")
    parser.add_argument("--compare", type=Path, help="also time `wikitui ask` from process start with this code "
                                                      "folder first on PYTHONPATH (before/after a change)")
    parser.add_argument("--only-start", action="store_true", help="only the process-start rows")
    args = parser.parse_args()
    fake = RemoteFakeLLM()
    try:
        results: dict = {"loadavg": loadavg(), "note": "figures from a shared machine are noisy; trust the ratios"}
        with tempfile.TemporaryDirectory() as tmp:
            tmp_path = Path(tmp)
            _env(fake, tmp_path / "home")
            sample = tmp_path / "sample"
            shutil.copytree(ROOT / "sample", sample, ignore=shutil.ignore_patterns(".wikitui"))
            t0 = time.perf_counter()
            starts = tmp_path / "sample-starts"
            shutil.copytree(ROOT / "sample", starts, ignore=shutil.ignore_patterns(".wikitui"))
            results["headless_ask_from_process_start_ms"] = asyncio.run(
                process_start(fake, starts, max(args.repeats, 3), args.compare))
            if args.only_start:
                print(json.dumps(results, indent=2, ensure_ascii=False))
                return
            trips = tmp_path / "sample-trips"
            shutil.copytree(ROOT / "sample", trips, ignore=shutil.ignore_patterns(".wikitui"))
            results["round_trip_at_the_server_ms"] = asyncio.run(round_trips(fake, trips, args.repeats))
            results["target_gap_median_le_60ms_sample"] = results["round_trip_at_the_server_ms"]["wikitui"]["gap"] <= 60
            results["stream_end_4kb_propose_page_ms"] = asyncio.run(stream_end_by_reader(fake, args.repeats))
            results["sample"] = asyncio.run(measure(fake, sample, ask_query="Cheshire Cat grin",
                                                    ingest_source="raw/chapter-03.md", ingest_query="Dodo caucus race"))
            small = _vault_small_copy(tmp_path)
            if small is not None:
                results["vault-small"] = asyncio.run(measure(fake, small, ask_query="Vorsteuerabzug",
                                                             ingest_source="raw/ustg-1.md",
                                                             ingest_query="steuerbare Umsätze"))
                share = results["vault-small"]["ask_5_pages"]["share_of_wiki"]
                results["target_ask_5_pages_share_le_5pct"] = share <= 0.05
            else:
                results["vault-small"] = f"skipped: corpus not found at {CORPUS}"
            results["seconds"] = round(time.perf_counter() - t0, 1)
            results["loadavg_after"] = loadavg()
    finally:
        fake.stop()
    print(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
