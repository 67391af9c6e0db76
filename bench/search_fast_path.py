"""What the Whoosh backend's fast path buys (prints JSON). Not part of the test run.

    .venv/bin/python bench/search_fast_path.py [--pages N] [--runs N]

The fast path (``wikitui/core/search/whoosh/fast/``) reads Whoosh's internals, so
it has to earn its keep. Measured side by side in one run, on a generated vault
(``--pages``, default 3,000) and vault-large when the corpus is there:

- **import**: ``import_whoosh(fast=True)`` (stand-in modules while Whoosh loads)
  against a plain import, each in a fresh interpreter, alternating;
- **first search after a commit**: with index files read in place against
  Whoosh's copy into ``BytesIO`` (the process-wide patch), each in a fresh
  interpreter that edits one page, commits it and times the next search;
- **search p50**: the same queries through the fast scorer and through Whoosh's
  searcher (``WhooshBackend(fast=True)`` / ``fast=False``), alternating query by
  query.

The machine may be shared: the load average is printed; compare within a run.
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

from bench._common import ROOT, copy_corpus, generate_vault, loadavg, median, ms  # noqa: E402

IMPORT = """
import time, sys
from wikitui.core.search.whoosh.fast.loader import import_whoosh
t = time.perf_counter(); import_whoosh(fast={fast}); print(time.perf_counter() - t)
"""

AFTER_COMMIT = """
import time, sys
from wikitui.core.search.whoosh.fast import loader
import whoosh.query, whoosh.reading
if {in_place}:
    loader._no_copy_on_open()
from wikitui.core.search.facade import SearchIndex
from wikitui.core.search.whoosh.backend import WhooshBackend
from wikitui.core.vault.layout import Vault
vault = Vault.open({root!r})
idx = SearchIndex(vault, backend=WhooshBackend(vault, fast=False))
rel = vault.scan()[0][{n}].path
page = vault.root / rel
page.write_bytes(page.read_bytes() + b"\\nzebra crossing {n}\\n")
idx.update_paths([rel])
t = time.perf_counter(); idx.search("zebra"); print(time.perf_counter() - t)
"""


def _child(code: str) -> float:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return float(out.stdout.split()[-1])


def measure_import(runs: int) -> dict:
    fast, plain = [], []
    for _ in range(runs):
        fast.append(_child(IMPORT.format(fast=True)))
        plain.append(_child(IMPORT.format(fast=False)))
    return {"import_fast_ms": ms(median(fast)), "import_plain_ms": ms(median(plain)),
            "import_saved_ms": ms(median(plain) - median(fast))}


def measure_after_commit(root: Path, runs: int) -> dict:
    from wikitui.core.search.facade import SearchIndex
    from wikitui.core.vault.layout import Vault

    idx = SearchIndex(Vault.open(root))
    idx.update()
    idx.optimize()
    idx.close()
    in_place, copied = [], []
    for n in range(runs):
        in_place.append(_child(AFTER_COMMIT.format(in_place=True, root=str(root), n=2 * n)))
        copied.append(_child(AFTER_COMMIT.format(in_place=False, root=str(root), n=2 * n + 1)))
    return {"first_search_after_commit_in_place_ms": ms(median(in_place)),
            "first_search_after_commit_copied_ms": ms(median(copied))}


def measure_search(root: Path, queries: list[str], rounds: int) -> dict:
    from wikitui.core.search.facade import SearchIndex
    from wikitui.core.search.whoosh.backend import WhooshBackend
    from wikitui.core.vault.layout import Vault

    vault = Vault.open(root)
    fast = SearchIndex(vault, backend=WhooshBackend(vault, fast=True))
    public = SearchIndex(vault, backend=WhooshBackend(vault, fast=False))
    fast.update()
    for idx in (fast, public):  # warm: open the searchers, expand nothing yet
        idx.search(queries[0])
    times: dict[str, list[float]] = {"fast": [], "public": []}
    for _ in range(rounds):
        for q in queries:
            for name, idx in (("fast", fast), ("public", public)):
                t = time.perf_counter()
                idx.search(q)
                times[name].append(time.perf_counter() - t)
    return {"search_p50_fast_ms": ms(median(times["fast"])), "search_p50_public_ms": ms(median(times["public"])),
            "search_ratio_public_over_fast": round(median(times["public"]) / median(times["fast"]), 2)}


QUERIES = ["history", "god", "science religion", '"holy spirit"', "relig*", "philosphy~", "war -peace",
           "kind:page freedom", "(war OR peace) god", "music"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    out: dict = {"loadavg_before": loadavg(), "import": measure_import(args.runs)}
    with tempfile.TemporaryDirectory(prefix="wikitui-fastpath-") as tmp:
        gen = Path(tmp) / "generated"
        facts = generate_vault(gen, pages=args.pages)
        words = facts["vocab"][20:30]
        out[f"generated ({args.pages} pages)"] = {
            **measure_after_commit(gen, args.runs),
            **measure_search(gen, [*words, f'"{facts["phrases"][0]}"', words[0][:4] + "*"], 3),
        }
        large = copy_corpus("vault-large", Path(tmp) / "large")
        if large is not None:
            out["vault-large"] = {**measure_after_commit(large, args.runs), **measure_search(large, QUERIES, 3)}
    out["loadavg_after"] = loadavg()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
