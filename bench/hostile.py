"""Hostile input, timed: the cases DESIGN §8 "Bounded work" is about, each at full size.

    .venv/bin/python bench/hostile.py [--runs 3] [--json]

Each case runs the real ``wikitui`` command line in a child process on a copy of
the sample vault with one hostile page or query added, and reports the median
wall time, the child's peak memory (max RSS), and what it printed. Beside each,
the same command on the unmodified sample vault is timed in the same run, as the
reference: a hostile case should cost a few seconds per megabyte of input and a
few times its size in memory, not minutes and gigabytes.

Cases (what was reported in issue 9, and what bounds it now):

- a page whose frontmatter is a YAML alias bomb ("billion laughs"): refused, not expanded;
- a 5 MB line of 450,000 links to one page: ``lint --json``, ``links PAGE --json``
  (backlinks and mentions cut to 200 characters, one row per line);
- the same line with 450,000 distinct broken links: ``lint --json`` lists each occurrence;
- fuzzy queries with large distances (``abcdefghijkl~9``, ``alicekind:raw~9``):
  capped at 2 edits, at most 256 expanded terms;
- a query of 100,000 nested brackets: refused in one line.

Figures taken on a shared machine are noisy: compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample"
WIKITUI = [sys.executable, "-m", "wikitui.cli"] if not (Path(sys.executable).parent / "wikitui").exists() else [
    str(Path(sys.executable).parent / "wikitui")
]


def alias_bomb() -> str:
    lines = ["---", 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    names = "abcdefghi"
    for prev, name in zip(names, names[1:]):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return "\n".join([*lines, "title: *i", "---", "# Bomb", "", "body", ""])


def make_vaults(tmp: Path) -> dict[str, Path]:
    """The sample vault, and one copy per hostile page."""
    vaults = {}

    def copy(name: str) -> Path:
        dest = tmp / name
        shutil.copytree(SAMPLE, dest, ignore=shutil.ignore_patterns(".wikitui"))
        vaults[name] = dest
        return dest

    copy("sample")
    (copy("alias-bomb") / "wiki" / "bomb.md").write_text(alias_bomb(), encoding="utf-8")
    line = " ".join("[[alice]]" for _ in range(450_000))
    (copy("links-line") / "wiki" / "links.md").write_text(f"---\ntitle: Links\n---\n{line}\n", encoding="utf-8")
    line = " ".join(f"[[nowhere {i}]]" for i in range(450_000))
    (copy("broken-line") / "wiki" / "broken.md").write_text(f"---\ntitle: Broken\n---\n{line}\n", encoding="utf-8")
    line = " ".join("Alice met [[alice]]" for _ in range(250_000))
    (copy("mentions-line") / "wiki" / "mentions.md").write_text(f"---\ntitle: M\n---\n{line}\n", encoding="utf-8")
    return vaults


def run(argv: list[str], vault: Path) -> tuple[float, int, int, int]:
    """(seconds, peak RSS in KB, bytes on stdout, exit status) of one ``wikitui`` run."""
    start = time.perf_counter()
    proc = subprocess.Popen([*WIKITUI, *argv, "--vault", str(vault)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    size = 0
    assert proc.stdout is not None
    while chunk := proc.stdout.read(1 << 20):
        size += len(chunk)
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return seconds, usage.ru_maxrss, size, proc.returncode


def measure(argv: list[str], vault: Path, runs: int) -> dict:
    results = [run(argv, vault) for _ in range(runs)]
    return {
        "median_s": round(statistics.median(r[0] for r in results), 3),
        "max_rss_mb": round(max(r[1] for r in results) / 1024, 1),
        "stdout_bytes": results[-1][2],
        "exit": results[-1][3],
    }


CASES = [
    # (name, vault, argv, reference argv on the sample vault)
    ("alias bomb: index", "alias-bomb", ["index"], ["index"]),
    ("alias bomb: lint --json", "alias-bomb", ["lint", "--json"], ["lint", "--json"]),
    ("450,000 links, one line: lint --json", "links-line", ["lint", "--json"], ["lint", "--json"]),
    ("450,000 links, one line: links alice --json", "links-line", ["links", "alice", "--json"], ["links", "alice", "--json"]),
    ("450,000 links, one line: links Links --json", "links-line", ["links", "Links", "--json"], ["links", "alice", "--json"]),
    ("450,000 broken links: lint --json", "broken-line", ["lint", "--json"], ["lint", "--json"]),
    ("250,000 mentions and links: links alice --json", "mentions-line", ["links", "alice", "--json"], ["links", "alice", "--json"]),
    ("search 'abcdefghijkl~9'", "sample", ["search", "abcdefghijkl~9"], ["search", "abcdefghijkl~2"]),
    ("search 'alicekind:raw~9'", "sample", ["search", "alicekind:raw~9"], ["search", "alice"]),
    ("search 'alice~5'", "sample", ["search", "alice~5"], ["search", "alice~2"]),
    ("search of 100,000 nested brackets", "sample", ["search", "(" * 100_000], ["search", "alice"]),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per case (the median is reported)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    out = {"python": sys.version.split()[0], "cpus": os.cpu_count(), "loadavg_start": os.getloadavg(), "cases": []}
    with tempfile.TemporaryDirectory(prefix="wikitui-hostile-") as tmpdir:
        vaults = make_vaults(Path(tmpdir))
        for vault in vaults.values():  # first runs build the graph cache and the index: not timed
            run(["index"], vault)
        for name, vault, argv, ref in CASES:
            size = sum(p.stat().st_size for p in (vaults[vault] / "wiki").rglob("*.md"))
            case = {"case": name, "wiki_mb": round(size / 1e6, 2), **measure(argv, vaults[vault], args.runs)}
            case["reference"] = {"argv": ref, **measure(ref, vaults["sample"], args.runs)}
            case["time_ratio"] = round(case["median_s"] / max(case["reference"]["median_s"], 1e-9), 1)
            out["cases"].append(case)
            if not args.json:
                r = case["reference"]
                print(
                    f"{name:<50} {case['median_s']:>7.2f} s  {case['max_rss_mb']:>7.1f} MB  "
                    f"{case['stdout_bytes']:>10,} B out  exit {case['exit']}   "
                    f"(sample: {r['median_s']:.2f} s, {r['max_rss_mb']:.0f} MB; x{case['time_ratio']})"
                )
    out["loadavg_end"] = os.getloadavg()
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"load average {out['loadavg_start']} -> {out['loadavg_end']} on {out['cpus']} CPUs: figures are noisy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
