"""Benchmark ``wikitui search`` end to end with and without a running workspace (DESIGN §10 "a fast CLI").

Run ``.venv/bin/python bench/cli_search.py [--pages 50000] [--repeats 5]``. Prints JSON.

On vault-large (copied from ../shared/corpus) and a generated vault (``--pages``,
300 words and 10 links a page), after one ``wikitui index``, each round runs in
turn: a bare ``python -c pass`` (the reference: what wikitui cannot change),
``wikitui search`` with no workspace running (it walks the vault to bring the index
up to date), ``wikitui search`` while a workspace says it keeps the index current
(``.wikitui/live``, written by this process: it skips the walk), and qmd's CLI
search where ``qmd`` is on PATH (``npm i -g @tobilu/qmd``; skipped with a note
otherwise). Interleaving keeps a shared machine's swings out of the ratios.
Targets: with a workspace ≤ 3× ``python -c pass`` on both vaults; without one ≤ 4× on vault-large.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import ROOT, copy_corpus, generate_vault, loadavg, median, ms, percentile  # noqa: E402
from wikitui.core import live  # noqa: E402
from wikitui.core.vault.layout import Vault  # noqa: E402

WIKITUI = ROOT / ".venv" / "bin" / "wikitui"
PYTHON = WIKITUI.with_name(Path(sys.executable).name)
QUERIES = {
    "vault-large": ["history", "buddhism karma", "\"human rights\"", "relig*", "philosphy~"],
    "generated": ["white rabbit", "golden key", "history", "tag:science", "march hare"],
}
TARGETS = {"with_workspace_ratio": 3.0, "without_workspace_ratio (vault-large)": 4.0}


def run(cmd: list[str], cwd: Path | None = None) -> float:
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()[:300]}")
    return elapsed


def qmd_setup(root: Path, name: str, notes: list[str]) -> list[str] | None:
    """qmd's search command on this vault (its collection added first), or None when qmd is absent."""
    qmd = shutil.which("qmd")
    if qmd is None:
        notes.append("qmd not on PATH (npm i -g @tobilu/qmd): its CLI search was not timed")
        return None
    try:
        subprocess.run([qmd, "collection", "add", str(root), "--name", f"bench-{name}"],
                       capture_output=True, text=True, timeout=1800, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        notes.append(f"qmd collection add failed on {name}: {exc}")
        return None
    return [qmd, "search", "-c", f"bench-{name}"]


def bench_vault(name: str, root: Path, repeats: int, notes: list[str]) -> dict:
    vault = Vault.open(root)
    start = time.perf_counter()
    run([str(WIKITUI), "index", "--vault", str(root)])
    index_s = time.perf_counter() - start
    qmd = qmd_setup(root, name, notes)
    times: dict[str, list[float]] = {"python -c pass": [], "search, no workspace": [], "search, workspace running": []}
    if qmd:
        times["qmd search"] = []
    search = [str(WIKITUI), "search", "--vault", str(root), "--limit", "10"]
    for _ in range(repeats):
        for q in QUERIES[name]:
            times["python -c pass"].append(run([str(PYTHON), "-c", "pass"]))
            live.release(vault)
            times["search, no workspace"].append(run([*search, q]))
            live.beat(vault)  # this process is the running workspace now (its heartbeat is fresh)
            times["search, workspace running"].append(run([*search, q]))
            live.release(vault)
            if qmd:
                times["qmd search"].append(run([*qmd, q]))
    bare = median(times["python -c pass"])
    out = {"index_build_s": round(index_s, 1)}
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
    args = parser.parse_args(argv)
    notes: list[str] = []
    results: dict = {"load_before": loadavg()}
    with tempfile.TemporaryDirectory(prefix="wikitui-bench-cli-") as tmp:
        large = copy_corpus("vault-large", Path(tmp) / "vault-large")
        if large is None:
            notes.append("vault-large not found in ../shared/corpus: skipped")
        else:
            results["vault-large"] = bench_vault("vault-large", large, args.repeats, notes)
        if args.pages:
            gen = Path(tmp) / "generated"
            start = time.perf_counter()
            generate_vault(gen, pages=args.pages, words=300, link_range=(10, 10))
            results["generated"] = {"pages": args.pages, "generate_s": round(time.perf_counter() - start, 1),
                                    **bench_vault("generated", gen, args.repeats, notes)}
    results["load_after"] = loadavg()
    results["targets"] = TARGETS
    results["notes"] = notes
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
