"""Benchmark the core: vault load and link graph, search index build, updates and queries.

Run ``.venv/bin/python bench/core.py`` (``--quick`` is the default: one or two
repeats, a few minutes in all) or ``--full`` for more repeats. Prints JSON.

Measured on vault-small, vault-large (copied from ../shared/corpus when present)
and a generated 10,000-page vault, in one run, with these reference points taken
in the SAME run: a bare Whoosh script indexing the same files with the same
fields, and SQLite FTS5 indexing the same files and running the same queries.
The machine may be shared: the load average is printed next to the figures, and
medians are used throughout.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (  # noqa: E402
    ROOT,
    bare_whoosh_build,
    copy_corpus,
    corpus_missing,
    fts5_build,
    fts5_search,
    generate_vault,
    loadavg,
    median,
    ms,
    percentile,
    plain_python,
    timed,
)
from wikitui import gc_tuning  # noqa: E402
from wikitui.core.search.facade import SearchIndex  # noqa: E402
from wikitui.core.vault.graph import LinkGraph  # noqa: E402
from wikitui.core.vault.layout import Vault  # noqa: E402

WIKITUI = ROOT / ".venv" / "bin" / "wikitui"

TARGETS = {
    "graph_cold_ms (vault-large)": 250,
    "graph_warm_ms (vault-large)": 60,
    "index_build_ratio (ours / bare whoosh)": 1.25,
    "incremental_update_ms": 15,
    "search_p50_ms (vault-large)": 2,
    "cli_search_e2e_p50_ms": 150,
    "load_graph_10k_cold_s": 1.5,
    "peak_rss_10k_load_mb": 300,
}

QUERIES = {
    "vault-small": [
        "Einkünfte", "Kindergeld", "Werbungskosten", "Sonderausgaben", "Umsatzsteuer Vorsteuer",
        "Arbeitgeber Lohnsteuer", '"Einkünfte aus Gewerbebetrieb"', '"§ 15"', '"außergewöhnliche Belastungen"',
        "Lohnsteu*", "Abzug*", "Rente*", "Kindergelt~", "Steuerpflict~", "Freibetrg~", "tag:kindergeld",
        "tag:umsatzsteuer Vorsteuer", "Veranlagung Ehegatten", "Finanzamt", "Bemessungsgrundlage",
    ],
    "vault-large": [
        "history", "god", "india", "consciousness", "buddhism karma", "science religion", "language", "music",
        '"holy spirit"', '"tat tvam asi"', '"human rights"', "relig*", "trinit*", "philos*", "philosphy~",
        "languag~", "conciousness~", "war peace", "economics", "kind:page freedom",
    ],
}


def fts_query(query: str) -> str:
    """The same query in FTS5 syntax (FTS5 has no fuzzy search: ``word~`` becomes ``word``)."""
    q = re.sub(r"~\d?", "", query)
    q = re.sub(r"\btag:", "tags:", q)
    q = re.sub(r"\bkind:page\s*", "", q)
    return q.replace("§", "")


def generated_queries(facts: dict, rng: random.Random) -> list[str]:
    vocab, tags, phrases = facts["vocab"], facts["tags"], facts["phrases"]
    common, mid, rare = vocab[20:200], vocab[200:2000], vocab[2000:12000]
    qs = [rng.choice(common), rng.choice(mid), rng.choice(mid), rng.choice(rare), rng.choice(rare)]
    qs += [f"{rng.choice(mid)} {rng.choice(mid)}", f"{rng.choice(common)} {rng.choice(rare)}"]
    qs += [f'"{p}"' for p in phrases[:3]]
    qs += [rng.choice([w for w in mid if len(w) > 6])[:5] + "*", rng.choice(rare)[:4] + "*"]
    for w in rng.sample([w for w in mid if len(w) > 6], 3):
        i = rng.randrange(1, len(w) - 1)
        qs.append(w[:i] + w[i + 1 :] + "~")  # one letter dropped
    qs += [f"tag:{tags[0]}", f"tag:{tags[1]} {rng.choice(mid)}", f"type:concept {rng.choice(mid)}"]
    qs += [f"{rng.choice(mid)} -{rng.choice(common)}"]
    return qs


# ---------------------------------------------------------------- measurements
def _load(vault: Vault) -> LinkGraph:
    """A graph load as the entry points (CLI, app) do it: the garbage collector paused around it."""
    with gc_tuning.paused():
        return LinkGraph.load(vault)


def measure_graph(vault: Vault, cold_repeats: int, warm_repeats: int) -> dict:
    cache = vault.state_dir / "cache"
    cold = []
    for _ in range(cold_repeats):
        shutil.rmtree(cache, ignore_errors=True)
        cold.append(timed(lambda: _load(vault)))
    warm = [timed(lambda: _load(vault)) for _ in range(warm_repeats)]
    graph = _load(vault)
    return {
        "pages": len(graph.pages),
        "raw_files": len(graph.raw_files),
        "graph_cold_ms": ms(median(cold)),
        "graph_warm_ms": ms(median(warm)),
    }


def measure_build(root: Path, vault: Vault, repeats: int, tmp: Path) -> dict:
    ours, bare, fts = [], [], []
    for _ in range(repeats):
        bare.append(bare_whoosh_build(root, tmp / "bare-index"))
        shutil.rmtree(vault.state_dir / "index", ignore_errors=True)
        index = SearchIndex(vault)
        ours.append(timed(index.rebuild))
        index.close()
        seconds, conn = fts5_build(root, tmp / "fts.db")
        conn.close()
        fts.append(seconds)
    shutil.rmtree(tmp / "bare-index", ignore_errors=True)
    return {
        "index_build_s": round(median(ours), 3),
        "bare_whoosh_build_s": round(median(bare), 3),
        "index_build_ratio": round(median(ours) / median(bare), 3),
        "fts5_build_s": round(median(fts), 3),
        "index_language": SearchIndex(vault).language,
    }


def measure_incremental(vault: Vault, index: SearchIndex, edits: int, rng: random.Random) -> dict:
    pages = sorted(LinkGraph.load(vault).pages)
    chosen = rng.sample(pages, min(edits, len(pages)))
    by_paths, by_scan = [], []
    for i, rel in enumerate(chosen):
        path = vault.root / rel
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"\nbenchword{i} appended by the benchmark\n")
        by_paths.append(timed(lambda: index.update_paths([rel])))
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"\nbenchmore{i}\n")
        stats = None

        def scan_update():
            nonlocal stats
            stats = index.update()

        by_scan.append(timed(scan_update))
        assert stats is not None and stats.updated == 1, stats
    return {
        "incremental_update_ms": ms(median(by_paths)),
        "incremental_update_p95_ms": ms(percentile(by_paths, 95)),
        "incremental_update_with_scan_ms": ms(median(by_scan)),
        "noop_update_ms": ms(median([timed(index.update) for _ in range(3)])),
    }


def measure_search(
    updated: SearchIndex, optimised: SearchIndex, root: Path, tmp: Path, queries: list[str], repeats: int
) -> dict:
    """Search p50/p95 of three engines over the same queries, timed in rotation.

    ``updated`` is the index after the one-page updates (a few small segments),
    ``optimised`` a copy of it merged into one segment (what the app keeps after
    catching up), and SQLite FTS5 the reference. Each query is run by the three in
    turn, ``repeats`` times, so a slow spell of this shared machine falls on all
    three alike and the ratios between them hold even when the absolute figures
    do not.
    """
    _seconds, conn = fts5_build(root, tmp / "fts.db")
    engines = {"updated": updated.search, "optimised": optimised.search}
    times: dict[str, list[float]] = {"updated": [], "optimised": [], "fts5": []}
    per_query, failed = {}, 0
    for q in queries:
        fq = fts_query(q)
        try:
            fts5_search(conn, fq)
            fts_ok = True
        except Exception:
            failed += 1
            fts_ok = False
        for run in engines.values():
            run(q)  # warm: the file cache, the term tables' pages
        mine: dict[str, list[float]] = {"updated": [], "optimised": []}
        for _ in range(repeats):
            for name, run in engines.items():
                mine[name].append(timed(lambda: run(q)))
            if fts_ok:
                times["fts5"].append(timed(lambda: fts5_search(conn, fq)))
        for name in engines:
            times[name] += mine[name]
        per_query[q] = {"p50_ms": ms(median(mine["optimised"])), "hits": len(optimised.search(q))}
    conn.close()
    ratio = median(times["optimised"]) / median(times["fts5"]) if times["fts5"] else None
    return {
        "search_p50_ms": ms(median(times["updated"])),
        "search_p95_ms": ms(percentile(times["updated"], 95)),
        "search_optimised_p50_ms": ms(median(times["optimised"])),
        "search_optimised_p95_ms": ms(percentile(times["optimised"], 95)),
        "fts5_search_p50_ms": ms(median(times["fts5"])),
        "fts5_search_p95_ms": ms(percentile(times["fts5"], 95)),
        "fts5_failed_queries": failed,
        "search_optimised_to_fts5_ratio": round(ratio, 3) if ratio is not None else None,
        "per_query": per_query,
    }


def cli_available() -> str | None:
    """None when ``wikitui search`` runs; else why not."""
    if not WIKITUI.exists():
        return f"{WIKITUI} not found"
    try:
        out = subprocess.run([str(WIKITUI), "search", "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"wikitui search --help failed: {exc}"
    return None if out.returncode == 0 else f"wikitui search --help exited {out.returncode}: {out.stderr.strip()[:200]}"


def compile_package() -> None:
    """Write the package's bytecode, as an installed package has it.

    An editable install writes ``.pyc`` files on first import unless
    PYTHONDONTWRITEBYTECODE is set (it is on some sandboxes): then every run of
    ``wikitui search`` would compile the modules changed since from source.
    """
    import wikitui

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(wikitui.__file__).parent)], check=True,
                   capture_output=True)


def measure_cli(root: Path, queries: list[str], repeats: int) -> dict:
    """``wikitui search`` from process start to exit, and beside it (reference) a bare interpreter.

    The reference is a plain interpreter (:func:`bench._common.plain_python`: nothing installed, so
    not this project's venv with its editable install's path hook) running ``pass``, each run just
    after a search: the part of the figure wikitui cannot change.
    """
    compile_package()
    times, bare = [], []
    import tempfile

    python = str(plain_python(Path(tempfile.gettempdir()) / "wikitui-bench-core"))
    for q in queries:
        for _ in range(repeats):
            start = time.perf_counter()
            out = subprocess.run(
                [str(WIKITUI), "search", q, "--vault", str(root), "--limit", "10"], capture_output=True, text=True
            )
            times.append(time.perf_counter() - start)
            if out.returncode != 0:
                raise RuntimeError(f"wikitui search {q!r} failed: {out.stderr.strip()[:300]}")
            bare.append(timed(lambda: subprocess.run([python, "-c", "pass"], capture_output=True, check=True)))
    return {
        "cli_search_e2e_p50_ms": ms(median(times)),
        "cli_search_e2e_p95_ms": ms(percentile(times, 95)),
        "python_startup_p50_ms": ms(median(bare)),
    }


# Peak RSS from /proc/self/status VmHWM: ru_maxrss would carry over the memory of
# the (large) benchmark process this child was forked from, across exec.
_LOAD_SCRIPT = """
import resource, sys, time
start = time.perf_counter()
from wikitui import gc_tuning
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
v = Vault.open(sys.argv[1])
with gc_tuning.paused():  # as the entry points load it
    g = LinkGraph.load(v, save_cache=False)
elapsed = time.perf_counter() - start
try:
    with open("/proc/self/status") as fh:
        peak_kb = next(int(l.split()[1]) for l in fh if l.startswith("VmHWM:"))
except OSError:
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(elapsed, peak_kb, len(g.pages))
"""


def measure_fresh_process_load(root: Path, repeats: int) -> dict:
    """Cold load + graph in a fresh process (parse cache removed): seconds and peak RSS."""
    secs, rss = [], []
    for _ in range(repeats):
        shutil.rmtree(root / ".wikitui" / "cache", ignore_errors=True)
        out = subprocess.run([sys.executable, "-c", _LOAD_SCRIPT, str(root)], capture_output=True, text=True, check=True)
        elapsed, maxrss_kb, _pages = out.stdout.split()
        secs.append(float(elapsed))
        rss.append(int(maxrss_kb) / 1024)
    return {"load_graph_cold_fresh_process_s": round(median(secs), 3), "peak_rss_load_mb": round(max(rss), 1)}


def summary(vaults: dict, pages: int) -> dict:
    """The figures the targets speak of, side by side with the targets."""
    large = vaults.get("vault-large", {})
    gen = vaults.get(f"generated-{pages}", {})
    measured = {
        "graph_cold_ms (vault-large)": large.get("graph_cold_ms"),
        "graph_warm_ms (vault-large)": large.get("graph_warm_ms"),
        "index_build_ratio (ours / bare whoosh)": {k: v.get("index_build_ratio") for k, v in vaults.items()},
        "incremental_update_ms": {k: v.get("incremental_update_ms") for k, v in vaults.items()},
        "search_p50_ms (vault-large)": {
            "after incremental updates": large.get("search_p50_ms"),
            "optimised (as the app keeps it)": large.get("search_optimised_p50_ms"),
            "optimised, as a ratio to SQLite FTS5 timed alongside": large.get("search_optimised_to_fts5_ratio"),
        },
        "cli_search_e2e_p50_ms": {k: v.get("cli_search_e2e_p50_ms") for k, v in vaults.items()},
        "load_graph_10k_cold_s": gen.get("load_graph_cold_fresh_process_s"),
        "peak_rss_10k_load_mb": gen.get("peak_rss_load_mb"),
    }
    out = {name: {"target": TARGETS[name], "measured": value} for name, value in measured.items()}
    out["python_startup_p50_ms (reference for the CLI: a bare interpreter, same run)"] = {
        "target": None, "measured": {k: v.get("python_startup_p50_ms") for k, v in vaults.items()}}
    return out


# ----------------------------------------------------------------------- main
def bench_vault(name: str, root: Path, queries: list[str], args, tmp: Path, notes: list[str]) -> dict:
    rng = random.Random(11)
    vault = Vault.open(root)
    out: dict = {"load_before": loadavg()}
    out.update(measure_graph(vault, cold_repeats=args.cold, warm_repeats=args.warm))
    builds = 1 if name.startswith("generated") and args.quick else args.builds
    out.update(measure_build(root, vault, builds, tmp))
    index = SearchIndex(vault)
    index.update()
    out.update(measure_incremental(vault, index, args.edits, rng))
    out["index_segments_after_updates"] = len(list((vault.state_dir / "index").glob("*.seg")))
    # The app merges segments in its background indexing child once it has caught up:
    # that is the index a user searches, so a merged copy is measured beside this one.
    merged_root = tmp / f"{name}-merged"
    shutil.copytree(root, merged_root)
    merged = SearchIndex(Vault.open(merged_root))
    merged.optimize()
    out.update(measure_search(index, merged, root, tmp, queries, args.search_repeats))
    index.close()
    merged.close()
    shutil.rmtree(merged_root, ignore_errors=True)
    if name.startswith("generated"):
        out.update(measure_fresh_process_load(root, args.cold))
    why = cli_available()
    if why is None:
        out.update(measure_cli(root, queries[: args.cli_queries], args.cli_repeats))
    else:
        out["cli_search_e2e_p50_ms"] = None
        notes.append(f"{name}: `wikitui search` end to end skipped: {why}")
    out["load_after"] = loadavg()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", default=True, help="few repeats, a few minutes (default)")
    mode.add_argument("--full", dest="quick", action="store_false", help="more repeats")
    parser.add_argument("--pages", type=int, default=10_000, help="pages of the generated vault (default 10000)")
    parser.add_argument("--only", nargs="*", help="vault names to run (vault-small vault-large generated)")
    args = parser.parse_args(argv)
    q = args.quick
    args.cold, args.warm = (3, 5) if q else (5, 10)
    args.builds = 2 if q else 3  # ours and bare Whoosh alternate: one slow spell cannot decide the ratio
    args.edits = 10 if q else 30
    args.search_repeats = 7 if q else 25
    args.cli_queries, args.cli_repeats = (5, 4) if q else (10, 3)

    notes: list[str] = []
    result: dict = {
        "mode": "quick" if q else "full",
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0], "loadavg_start": loadavg()},
        "targets": TARGETS,
        "vaults": {},
    }
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="wikitui-bench-") as tmpdir:
        tmp = Path(tmpdir)
        wanted = set(args.only or ["vault-small", "vault-large", "generated"])
        for name in ("vault-small", "vault-large"):
            if name not in wanted:
                continue
            root = copy_corpus(name, tmp / name)
            if root is None:
                notes.append(corpus_missing(name))
                continue
            result["vaults"][name] = bench_vault(name, root, QUERIES[name], args, tmp, notes)
            shutil.rmtree(root, ignore_errors=True)
        if "generated" in wanted:
            root = tmp / "generated"
            t = time.perf_counter()
            facts = generate_vault(root, pages=args.pages)
            generate_s = round(time.perf_counter() - t, 1)
            label = f"generated-{args.pages}"
            queries = generated_queries(facts, random.Random(5))
            entry = bench_vault(label, root, queries, args, tmp, notes)
            entry["generate_s"] = generate_s
            result["vaults"][label] = entry
    result["machine"]["loadavg_end"] = loadavg()
    result["summary"] = summary(result["vaults"], args.pages)
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["notes"] = notes + [
        "graph cold = LinkGraph.load with .wikitui/cache removed (OS file cache warm); warm = with the cache.",
        "index_build_s = SearchIndex.rebuild() from no index (scan + parse + index + commit);"
        " bare whoosh = stock StemmingAnalyzer, default writer, same files and fields.",
        "incremental_update_ms = update_paths([one edited page]); with_scan = update() (scans the vault).",
        "search = SearchIndex.search(q, limit=10) including snippets and line numbers, searcher kept open,"
        " after the incremental edits (several small segments, not optimised); optimised = one segment.",
        "FTS5 has no fuzzy search: `word~` runs as `word`; `kind:` is dropped.",
        "cli e2e = `wikitui search` process start to exit, the package's bytecode compiled first (as installed).",
    ]
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
