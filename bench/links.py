"""Benchmark link resolution: the link graph of a 3,000-page vault whose names repeat across folders.

    .venv/bin/python bench/links.py [--pages 3000] [--repeats 5]

Resolution depends on the linking page's folder when a name is ambiguous (Obsidian's
rule: an exact vault path, else a note in the linking note's folder, else the shortest
path). The generated vault puts every title in two to four folders (as Obsidian's help
vault has ``Obsidian Sync/Security and privacy.md`` and ``Obsidian Publish/Security and
privacy.md``), so most links are ambiguous: the worst case for a per-folder resolution.
Also measured on vault-large (copied from ../shared/corpus when present). Prints JSON:
medians of the cold load (no cache: parse and resolve), of resolving every link again
(``_rebuild``: what a page whose title changes costs), and of the warm load (cache), in
wall-clock time and in this process's CPU time (steadier on a shared machine).

To compare with another checkout, run this file with that checkout first on the path:
``PYTHONPATH=/path/to/other python bench/links.py`` imports the other ``wikitui``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if os.environ.get("PYTHONPATH"):  # another checkout to compare with comes first
    sys.path[:0] = os.environ["PYTHONPATH"].split(os.pathsep)

from bench._common import copy_corpus, corpus_missing, loadavg, median, ms, timed  # noqa: E402
from wikitui import gc_tuning  # noqa: E402
from wikitui.core.vault.graph import LinkGraph  # noqa: E402
from wikitui.core.vault.layout import Vault  # noqa: E402


def generate_ambiguous(dest: Path, pages: int, seed: int = 3) -> None:
    """``pages`` notes in 30 folders; each of ``pages // 3`` names is used in 2 to 4 folders; 6 links a page."""
    rng = random.Random(seed)
    folders = [f"Area {a}/Topic {t}" if t else f"Area {a}" for a in range(10) for t in range(3)]
    names = [f"Note {i}" for i in range(pages // 3)]
    made: list[str] = []
    while len(made) < pages:
        name = rng.choice(names)
        folder = rng.choice(folders)
        rel = f"{folder}/{name}.md"
        if rel not in made:
            made.append(rel)
    (dest / ".obsidian").mkdir(parents=True)
    for rel in made:
        links = " ".join(f"[[{rng.choice(names)}]]" for _ in range(6))
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {Path(rel).stem}\n\nSee {links}.\n", encoding="utf-8")


def measure(root: Path, repeats: int) -> dict:
    vault = Vault(root)
    cache = vault.state_dir / "cache"

    def load() -> LinkGraph:
        with gc_tuning.paused():
            return LinkGraph.load(vault)

    def both(fn) -> tuple[float, float]:
        cpu = time.process_time()
        wall = timed(fn)
        return wall, time.process_time() - cpu

    cold = []
    for _ in range(repeats):
        shutil.rmtree(cache, ignore_errors=True)
        cold.append(both(load))
    graph = load()
    with gc_tuning.paused():
        rebuild = [both(graph._rebuild) for _ in range(repeats)]  # noqa: SLF001 - the step measured
    warm = [both(load) for _ in range(repeats)]
    out: dict = {"pages": len(graph.pages), "links": graph.link_count(), "unresolved": len(graph.unresolved())}
    for name, runs in (("graph_cold", cold), ("resolve_all", rebuild), ("graph_warm", warm)):
        out[f"{name}_ms"] = ms(median([w for w, _ in runs]))
        out[f"{name}_cpu_ms"] = ms(median([c for _, c in runs]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    result: dict = {"loadavg_start": loadavg(), "vaults": {}, "notes": []}
    with tempfile.TemporaryDirectory(prefix="wikitui-bench-links-") as tmpdir:
        tmp = Path(tmpdir)
        gen = tmp / "ambiguous"
        generate_ambiguous(gen, args.pages)
        result["vaults"][f"ambiguous-{args.pages}"] = measure(gen, args.repeats)
        large = copy_corpus("vault-large", tmp / "vault-large")
        if large is None:
            result["notes"].append(corpus_missing("vault-large"))
        else:
            result["vaults"]["vault-large"] = measure(large, args.repeats)
    result["loadavg_end"] = loadavg()
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
