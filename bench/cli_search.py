"""Benchmark ``wikitui search`` end to end with and without a running workspace (DESIGN §10 "a fast CLI").

Run ``.venv/bin/python bench/cli_search.py [--pages 50000] [--repeats 3] [--workdir DIR]``. Prints JSON.
(``bench/core.py`` times the search library in-process; this script times the command end to end.)

On vault-large (copied from ../shared/corpus) and a generated vault (``--pages``,
300 words and 10 links a page), after one ``wikitui index``, each round runs in
turn: a plain ``python -c pass`` (the reference: what wikitui cannot change; a venv with nothing
installed, :func:`bench._common.plain_python`, not this project's venv, whose start runs the editable
install's path hook),
``wikitui search`` with no workspace running (it walks the vault to bring the index
up to date), ``wikitui search`` while a workspace says it keeps the index current
(``.wikitui/live`` with no socket, written by this process: it skips the walk but searches itself),
``wikitui search`` while a workspace serves searches on its socket (this process runs the real server,
:mod:`wikitui.core.live.server`, on its own warm index: the command asks it), and qmd's CLI
search where ``qmd`` is on PATH (``npm i -g @tobilu/qmd bun``: qmd runs on Bun; skipped with a note
otherwise; its index goes to a temporary cache folder, never the home directory). Interleaving keeps a shared
machine's swings out of the ratios.

Every command runs once untimed first, and with ``PYTHONDONTWRITEBYTECODE`` removed from its environment:
an installed wikitui has its bytecode cached, and a shell that sets the variable (some containers do) would
otherwise time the compilation of wikitui's own modules (~100 ms) on every run. ``--workdir`` keeps the
copied and generated vaults (and their indexes) for the next run: generating and indexing 50,000 pages takes
minutes.
Targets: with a workspace ≤ 3× ``python -c pass`` on both vaults; without one ≤ 4× on vault-large.
(A workspace today runs the socket server: the "workspace serving" rows are the ones the target is about.)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import ROOT, copy_corpus, generate_vault, loadavg, median, ms, percentile, plain_python  # noqa: E402
from wikitui.core.live import heartbeat  # noqa: E402
from wikitui.core.live.server import serve_workspace  # noqa: E402
from wikitui.core.vault.layout import Vault  # noqa: E402
from wikitui.core.workspace import Workspace  # noqa: E402

WIKITUI = ROOT / ".venv" / "bin" / "wikitui"
QUERIES = {
    "vault-large": ["history", "buddhism karma", "\"human rights\"", "relig*", "philosphy~"],
    "generated": ["white rabbit", "golden key", "history", "tag:science", "march hare"],
}
TARGETS = {"with_workspace_ratio": 3.0, "without_workspace_ratio (vault-large)": 4.0}


#: The commands' environment: bytecode caches written and read, as for an installed wikitui.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(cmd: list[str], cwd: Path | None = None, env: dict | None = None) -> float:
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env or ENV)
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()[:300]}")
    return elapsed


def qmd_version(qmd: str) -> str:
    """The installed qmd's version (from its package.json beside the script), or "?"."""
    try:
        pkg = Path(os.path.realpath(qmd)).parent / "package.json"
        return json.loads(pkg.read_text()).get("version", "?")
    except (OSError, ValueError):
        return "?"


def qmd_setup(root: Path, name: str, cache: Path, notes: list[str]) -> list[str] | None:
    """qmd's search command on this vault (its collection added first), or None when qmd is absent.

    qmd keeps its index under ``$XDG_CACHE_HOME/qmd``: ``cache`` here, not the home directory.
    """
    qmd = shutil.which("qmd")
    if qmd is None:
        notes.append("qmd not on PATH (npm i -g @tobilu/qmd bun): its CLI search was not timed")
        return None
    env = {**ENV, "XDG_CACHE_HOME": str(cache)}
    try:
        listed = subprocess.run([qmd, "collection", "list"], capture_output=True, text=True, timeout=60, env=env)
        if f"bench-{name}" not in listed.stdout:
            subprocess.run([qmd, "collection", "add", str(root), "--name", f"bench-{name}"],
                           capture_output=True, text=True, timeout=3600, check=True, env=env)
    except (OSError, subprocess.SubprocessError) as exc:
        notes.append(f"qmd collection add failed on {name}: {exc}")
        return None
    notes.append(f"qmd {qmd_version(qmd)} ({name}): `qmd search -c bench-{name} -n 10 QUERY` (BM25, no model)")
    return [qmd, "search", "-c", f"bench-{name}", "-n", "10"]


def bench_vault(name: str, root: Path, repeats: int, cache: Path, notes: list[str], python: Path) -> dict:
    vault = Vault.open(root)
    start = time.perf_counter()
    run([str(WIKITUI), "index", "--vault", str(root)])
    index_s = time.perf_counter() - start
    qmd = qmd_setup(root, name, cache, notes)
    qmd_env = {**ENV, "XDG_CACHE_HOME": str(cache)}
    times: dict[str, list[float]] = {"python -c pass": [], "search, no workspace": [],
                                     "search, live file only": [], "search, workspace serving": []}
    if qmd:
        times["qmd search"] = []
    search = [str(WIKITUI), "search", "--vault", str(root), "--limit", "10"]
    # Untimed first runs: bytecode caches written, the index's files in the page cache.
    heartbeat.release(vault)
    run([str(python), "-c", "pass"])
    run([*search, "warm up"])
    ws = Workspace.open(root)  # the running workspace: its index current and open in this process
    ws.update_index()
    server = serve_workspace(ws)
    if server.path is None:
        notes.append(f"{name}: no Unix socket here: the serving rows time the fallback")
    heartbeat.beat(vault, sock=server.path)
    run([*search, "warm up"])
    heartbeat.release(vault)
    if qmd:
        run([*qmd, "warm up"], env=qmd_env)
    for _ in range(repeats):
        for q in QUERIES[name]:
            times["python -c pass"].append(run([str(python), "-c", "pass"]))
            heartbeat.release(vault)
            times["search, no workspace"].append(run([*search, q]))
            heartbeat.beat(vault)  # a running workspace (its heartbeat is fresh) that does not serve searches
            times["search, live file only"].append(run([*search, q]))
            heartbeat.beat(vault, sock=server.path)  # one that does: the command asks this process
            times["search, workspace serving"].append(run([*search, q]))
            heartbeat.release(vault)
            if qmd:
                times["qmd search"].append(run([*qmd, q], env=qmd_env))
    heartbeat.release(vault)
    server.close()
    ws.close()
    bare = median(times["python -c pass"])
    # Every serving run (and its warm-up) was answered by the socket, none fell back.
    out = {"index_build_s": round(index_s, 1), "socket answers": server.answered,
           "socket runs": len(times["search, workspace serving"]) + 1}
    for label, xs in times.items():
        out[f"{label} p50_ms"] = ms(median(xs))
        out[f"{label} p95_ms"] = ms(percentile(xs, 95))
        if label != "python -c pass":
            out[f"{label} / python -c pass"] = round(median(xs) / bare, 2)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=50_000, help="pages of the generated vault (0: none)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds over the queries")
    parser.add_argument("--workdir", type=Path, help="keep the vaults here and reuse them (default: a temp dir)")
    args = parser.parse_args(argv)
    notes: list[str] = []
    results: dict = {"load_before": loadavg()}
    with tempfile.TemporaryDirectory(prefix="wikitui-bench-cli-") as tmp:
        work = args.workdir or Path(tmp)
        cache = work / "qmd-cache"
        python = plain_python(work)
        large = work / "vault-large"
        if not large.is_dir():
            large = copy_corpus("vault-large", large)
        if large is None:
            notes.append("vault-large not found in ../shared/corpus: skipped")
        else:
            results["vault-large"] = bench_vault("vault-large", large, args.repeats, cache, notes, python)
        if args.pages:
            gen = work / f"generated-{args.pages}"
            start = time.perf_counter()
            done = gen / ".generated"  # a dot-file: not part of the vault's content
            if not done.exists():
                shutil.rmtree(gen, ignore_errors=True)  # a generation cut short
                generate_vault(gen, pages=args.pages, words=300, link_range=(10, 10))
                done.touch()
            results["generated"] = {"pages": args.pages, "generate_s": round(time.perf_counter() - start, 1),
                                    **bench_vault("generated", gen, args.repeats, cache, notes, python)}
    results["load_after"] = loadavg()
    results["targets"] = TARGETS
    results["notes"] = notes
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
