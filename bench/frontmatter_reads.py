"""Frontmatter reads, timed: which YAML stack reads what (README "Architecture", the YAML notes).

    .venv/bin/python bench/frontmatter_reads.py [--runs 7]

Every frontmatter block of the corpora (``../shared/corpus``, or ``WIKITUI_CORPUS``)
and of the sample vault is read three ways, side by side in one run:

- wikitui's reader (:func:`wikitui.core.vault.page.load_frontmatter`): the flat reader
  for flat blocks, PyYAML (libyaml, through python-frontmatter's handler) for the rest;
- PyYAML alone for every block (what dropping the flat reader would cost);
- ruamel.yaml's round-trip loader alone (what edits use, because it keeps every byte).

Then ``frontmatter_value(page, "updated")``, the read an edit makes of every proposed
page (``bump_updated``), with wikitui's reader against the ruamel load it used before.
Medians of ``--runs`` runs, in milliseconds for all blocks; the machine may be shared.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import CORPUS, ROOT, loadavg  # noqa: E402
from wikitui.core.vault import page  # noqa: E402
from wikitui.core.vault.frontmatter_edit import frontmatter_value  # noqa: E402


def vault_texts(root: Path) -> list[str]:
    """Every markdown file's text under ``root``, BOM removed."""
    return [p.read_text(encoding="utf-8", errors="replace").lstrip("\ufeff") for p in sorted(root.rglob("*.md"))]


def median_ms(fn, runs: int) -> float:
    """The median wall time of ``fn()`` over ``runs`` runs, in ms."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times) * 1000, 1)


def read_all(blocks: list[str], load) -> None:
    for fm in blocks:
        try:
            load(fm)
        except Exception:  # noqa: BLE001 - a block that does not parse is read (and refused) all the same
            pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    import yaml
    from ruamel.yaml import YAML

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    ruamel = YAML(typ="rt")

    def pyyaml_only(fm: str) -> object:
        return yaml.load(fm, Loader=loader)

    def ruamel_rt(fm: str) -> object:
        return ruamel.load(fm)

    def ruamel_value(text: str) -> object:  # the read frontmatter_value made before: a round-trip load
        fm = page.split_frontmatter(text)[0]
        data = ruamel.load(fm) if fm and fm.strip() else None
        return data.get("updated") if isinstance(data, dict) else None

    vaults = {name: CORPUS / name for name in ("vault-small", "vault-large", "alice")}
    vaults["sample"] = ROOT / "sample"
    print(f"load average {loadavg()}; medians of {args.runs} runs, ms for all blocks of a vault")
    header = (f"{'vault':<12} {'blocks':>6} {'flat':>6} | {'wikitui reader':>14} {'PyYAML only':>11} "
              f"{'ruamel rt':>9} | {'value: wikitui':>14} {'value: ruamel':>13}")
    print(header)
    print("-" * len(header))
    page._YAML.load()  # PyYAML imported before timing, as after a vault's first non-flat block
    for name, root in vaults.items():
        if not root.is_dir():
            print(f"{name:<12} skipped: not found at {root}")
            continue
        texts = vault_texts(root)
        blocks = [fm for fm in (page.split_frontmatter(t)[0] for t in texts) if fm is not None]
        flat = sum(1 for fm in blocks if page.load_simple(fm) is not None)
        ours = median_ms(lambda: read_all(blocks, page.load_frontmatter), args.runs)
        plain = median_ms(lambda: read_all(blocks, pyyaml_only), args.runs)
        rt = median_ms(lambda: read_all(blocks, ruamel_rt), max(1, args.runs // 2))
        value_ours = median_ms(lambda: [frontmatter_value(t, "updated") for t in texts], args.runs)
        value_rt = median_ms(lambda: read_all(texts, ruamel_value), max(1, args.runs // 2))
        print(f"{name:<12} {len(blocks):>6} {flat:>6} | {ours:>14} {plain:>11} {rt:>9} | {value_ours:>14} "
              f"{value_rt:>13}")


if __name__ == "__main__":
    main()
