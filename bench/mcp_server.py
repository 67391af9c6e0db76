"""Benchmark ``wikitui mcp``: the first tool answer after the process starts, and a ``search`` call in the server.

Run ``.venv/bin/python bench/mcp_server.py [--repeats 3]``. Prints JSON. On a copy of vault-large (from
../shared/corpus), indexed first: each round starts the server with the MCP SDK's own client, times process
start to the first ``search`` answer, then asks for the resource list (the SDK serves it: the server hands the
session over to it, see ``wikitui/core/mcp/early.py``) and times further ``search`` calls (client round trip, the
server's part and the pipe included). The first round is a first start on the vault (no handshake remembered
yet: the SDK loads before anything is answered); later rounds start as every later session does.
Targets: first answer ≤ 1 s; a search ≤ 20 ms.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import anyio  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from bench._common import ROOT, copy_corpus, loadavg, median, ms  # noqa: E402

QUERIES = ["history", "buddhism karma", '"human rights"', "relig*", "philosphy~"]


async def one_session(root: Path, calls: int) -> tuple[float, float, list[float]]:
    params = StdioServerParameters(command=str(ROOT / ".venv/bin/wikitui"), args=["mcp", "--vault", str(root)])
    start = time.perf_counter()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("search", {"query": "history"})
            first = time.perf_counter() - start
            t = time.perf_counter()
            await session.list_resources()  # answered by the SDK: it has loaded and taken over
            handover = time.perf_counter() - t
            calls_s = []
            for i in range(calls):
                t = time.perf_counter()
                await session.call_tool("search", {"query": QUERIES[i % len(QUERIES)]})
                calls_s.append(time.perf_counter() - t)
    return first, handover, calls_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wikitui-bench-mcp-") as tmp:
        root = copy_corpus("vault-large", Path(tmp) / "vault-large")
        if root is None:
            print(json.dumps({"notes": ["vault-large not found in ../shared/corpus"]}))
            return 0
        subprocess.run([str(ROOT / ".venv/bin/wikitui"), "index", "--vault", str(root)], check=True,
                       capture_output=True)
        load_before = loadavg()
        firsts, handovers, calls = [], [], []
        for _ in range(args.repeats + 1):
            first, handover, searches = anyio.run(one_session, root, 20)
            firsts.append(first)
            handovers.append(handover)
            calls.extend(searches)
    print(json.dumps({"load_before": load_before, "load_after": loadavg(),
                      "first_start_first_answer_ms": ms(firsts[0]),
                      "first_answer_p50_ms": ms(median(firsts[1:])),
                      "first_answers_ms": [ms(f) for f in firsts[1:]],
                      "sdk_takeover_ms": [ms(h) for h in handovers],
                      "search_call_p50_ms": ms(median(calls)),
                      "targets": {"first_answer_ms": 1000, "search_call_ms": 20}}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
