"""Benchmark a page's history from git (DESIGN §15, issue 27): one page committed 500 times.

Run ``python bench/history.py [--versions 500] [--repeats 7]``. Prints JSON.

A git vault is made in a temporary folder with one page (200 lines) committed
``--versions`` times, one line changed each time, the way wikitui commits an accepted
changeset (``wikitui: edit | …`` with its changeset id, and its log.md entry), every
fifth commit a person's own. The commits are written with ``git fast-import`` (500
``git commit`` calls would only time the set-up). Then, interleaved, each round times:

- ``python -c pass``: the interpreter's start, what wikitui cannot change;
- ``wikitui history PAGE`` and ``wikitui history PAGE --json`` from process start to exit;
- the core call, :func:`wikitui.core.changes.versions.page_versions`, in this process (all versions
  with their texts, authors, changeset ids and log entries);
- the agent's ``history`` tool, in this process (the same, formatted for the model).

Target: ``history`` of the page answers within 300 ms (the core call; the command is shown beside it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import ROOT, loadavg, median, ms, timed  # noqa: E402

PAGE = "wiki/notes.md"
TARGET_MS = 300
#: The commands run this checkout's code (as an editable install would).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONPATH": str(ROOT)}


def _page(n: int) -> str:
    lines = [f"Line {i}: a sentence about the subject, version {n if i == n % 200 else 0}.\n" for i in range(200)]
    return "---\ntitle: Notes\ntype: concept\nsummary: One page, committed many times\n---\n\n" + "".join(lines)


def _data(text: str) -> bytes:
    raw = text.encode("utf-8")
    return b"data %d\n" % len(raw) + raw + b"\n"


def make_vault(root: Path, versions: int) -> None:
    """A git vault whose ``wiki/notes.md`` has ``versions`` commits (wikitui's and a person's)."""
    (root / "wiki").mkdir(parents=True)
    (root / "raw").mkdir()
    (root / "WIKI.md").write_text("# Schema\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    log = "# Log\n"
    stream = bytearray()
    start = 1_700_000_000
    for n in range(versions):
        mine = n % 5 != 4
        cs = f"cs-20261101-{n:06x}"
        if mine:
            subject, body = f"wikitui: edit | Change {n}", f"changeset: {cs}\n"
            log += f"\n## [2026-11-01] edit | Change {n}\n\n- pages: [[wiki/notes]]\n- model: openai/bench\n" \
                   f"- changeset: {cs}\n"
        else:
            subject, body = f"my own fix {n}", ""
        message = (subject + "\n\n" + body).encode("utf-8")
        who = b"wikitui <wikitui@localhost>" if mine else b"Robin <robin@example.com>"
        stream += b"commit refs/heads/main\n"
        stream += b"author %s %d +0000\ncommitter %s %d +0000\n" % (who, start + n * 60, who, start + n * 60)
        stream += b"data %d\n" % len(message) + message + b"\n"
        stream += b"M 100644 inline wiki/notes.md\n" + _data(_page(n))
        if mine:
            stream += b"M 100644 inline wiki/log.md\n" + _data(log)
        if n == 0:
            stream += b"M 100644 inline WIKI.md\n" + _data("# Schema\n")
            stream += b"M 100644 inline .gitignore\n" + _data(".wikitui/\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=bytes(stream), check=True)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True)


def run_command(argv: list[str], cwd: Path) -> float:
    """Seconds from process start to exit (the output discarded; a failure stops the bench)."""
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=ENV, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--versions", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    from wikitui.core.agent.tools import ToolBox
    from wikitui.core.changes.versions import page_versions
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    with tempfile.TemporaryDirectory(prefix="wikitui-bench-history-") as tmp:
        root = Path(tmp) / "vault"
        made = timed(lambda: make_vault(root, args.versions))
        vault = Vault.open(root)
        box = ToolBox(vault, LinkGraph.load(vault, use_cache=False, save_cache=False))
        found = page_versions(vault, PAGE)
        assert len(found) == args.versions, f"{len(found)} versions, {args.versions} expected"
        logged = sum(1 for v in found if v.log_entry)
        py = [sys.executable, "-c", "pass"]
        cli = [sys.executable, "-m", "wikitui", "history", PAGE, "--vault", str(root)]
        rows: dict[str, list[float]] = {"python -c pass": [], "wikitui history PAGE": [],
                                        "wikitui history PAGE --json": [], "core page_versions": [],
                                        "agent history tool": []}
        for argv in (py, cli):  # once untimed: bytecode written, the page cache warm
            run_command(argv, root)
        for _ in range(args.repeats):
            rows["python -c pass"].append(run_command(py, root))
            rows["wikitui history PAGE"].append(run_command(cli, root))
            rows["wikitui history PAGE --json"].append(run_command(cli + ["--json"], root))
            rows["core page_versions"].append(timed(lambda: page_versions(vault, PAGE)))
            rows["agent history tool"].append(timed(lambda: box.call("history", json.dumps({"path": PAGE}))))
    medians = {name: ms(median(xs)) for name, xs in rows.items()}
    print(json.dumps({
        "versions": args.versions, "versions_with_log_entry": logged, "repeats": args.repeats,
        "setup_s": round(made, 2), "median_ms": medians,
        "target_ms": TARGET_MS, "core_within_target": medians["core page_versions"] <= TARGET_MS,
        "command_within_target": medians["wikitui history PAGE"] <= TARGET_MS,
        "loadavg": loadavg(),
    }, indent=2))


if __name__ == "__main__":
    main()
