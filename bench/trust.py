"""Trust checks (DESIGN §11), timed: lint's text checks, and citation checking in a turn.

Prints, on copies of the corpora (vault-small, vault-large):
- ``wikitui lint --json``'s work (run_lint) with and without the checks that read page text
  (``contradiction``, ``near-duplicate``): cold (the first lint, which reads every page and
  fills the cache) and warm (medians); the warm ratio's target is <= 1.5;
- the new checks' counts;
- citation checking of one turn (an answer with 12 citations, and a changeset of 3 edits)
  on vault-small: median milliseconds; the target is <= 5 ms.

Run: ``.venv/bin/python bench/trust.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import ROOT, copy_corpus, corpus_missing, loadavg, median, ms, timed  # noqa: E402
from wikitui.core.agent.citations import builder_unresolved, check_citations  # noqa: E402
from wikitui.core.changes.builder import ChangesetBuilder  # noqa: E402
from wikitui.core.vault.graph import LinkGraph  # noqa: E402
from wikitui.core.vault.layout import Vault  # noqa: E402
from wikitui.core.vault.lint import run_lint  # noqa: E402


def lint_figures(root: Path, runs: int) -> dict:
    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    run_lint(vault, graph, text_checks=False)  # the source hashes recorded, as any first lint does
    cold = timed(lambda: run_lint(vault, graph))
    without = [timed(lambda: run_lint(vault, graph, text_checks=False)) for _ in range(runs)]
    with_ = [timed(lambda: run_lint(vault, graph)) for _ in range(runs)]
    counts = run_lint(vault, graph).counts
    return {"pages": len(graph.pages), "cold_ms_with": ms(cold), "warm_ms_without": ms(median(without)),
            "warm_ms_with": ms(median(with_)), "ratio_warm": round(median(with_) / median(without), 2),
            "contradiction": counts["contradiction"], "near-duplicate": counts["near-duplicate"]}


#: ``wikitui lint --json`` as the CLI runs it (a fresh process, the graph from its cache), with the
#: text checks on or off: the same code, the switch passed in.
_CLI = """
import sys
from wikitui.cli import main
import wikitui.core.vault.lint as lint
if sys.argv[2] == "off":
    real = lint.run_lint
    lint.run_lint = lambda vault, graph: real(vault, graph, text_checks=False)
sys.argv = ["wikitui", "lint", "--json", "--vault", sys.argv[1]]
try:
    main()
except SystemExit:
    pass
"""


def cli_figures(root: Path, runs: int) -> dict:
    def once(mode: str) -> float:
        return timed(lambda: subprocess.run([sys.executable, "-c", _CLI, str(root), mode], cwd=ROOT,
                                            stdout=subprocess.DEVNULL, check=False))
    once("on")  # caches warm
    off = [once("off") for _ in range(runs)]
    on = [once("on") for _ in range(runs)]
    return {"cli_ms_without": ms(median(off)), "cli_ms_with": ms(median(on)),
            "cli_ratio": round(median(on) / median(off), 2)}


def citation_figures(root: Path, runs: int) -> dict:
    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    pages = sorted(p for p in graph.pages if p not in (vault.index_path, vault.log_path))[:20]
    titles = [graph.pages[p].title for p in pages[:10]]
    raws = sorted(graph.raw_files)[:2] or ["raw/none.md"]
    answer = " ".join(f"Claim {i} ([[{t}]])." for i, t in enumerate(titles)) + \
        f" See {raws[0]} and [[Nowhere Page]]. " * 1
    builder = ChangesetBuilder(vault, graph)
    for p in pages[10:13]:
        text = (root / p).read_text(encoding="utf-8", errors="replace")
        builder.new_page(p, text + f"\nSee also [[{titles[0]}]] and [[Another Missing Page]].\n", "bench")
    changeset = builder.build("edit", "bench")
    # As the turn does it: the answer checked, and the proposals so far.
    times = [timed(lambda: (check_citations(answer, graph), builder_unresolved(builder, graph)))
             for _ in range(runs)]
    return {"answer_citations": len(check_citations(answer, graph)), "changeset_files": len(changeset.files),
            "median_ms": ms(median(times))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    out: dict = {"loadavg": loadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("vault-small", "vault-large"):
            root = copy_corpus(name, Path(tmp) / name)
            if root is None:
                print(corpus_missing(name), file=sys.stderr)
                continue
            out[name] = {"lint": lint_figures(root, args.runs), "cli": cli_figures(root, args.runs)}
            if name == "vault-small":
                out[name]["citations"] = citation_figures(root, max(args.runs, 20))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
