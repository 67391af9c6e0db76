"""How long a search index's update takes to give up on a held write lock (prints JSON). Not part of the test run.

    .venv/bin/python bench/search_lock.py [--runs N] [--lock-timeout S]

Another process (a long rebuild) holds the Whoosh write lock; ``SearchIndex.update()``
with ``lock_timeout`` skips instead of failing (``stats.busy``; tests/core/test_search.py
checks that) and the old index still answers. This prints how long the skip takes, which
was once a test's ``< 2`` seconds: a figure for a person to judge (it should stay near
``lock_timeout``), not an assertion a loaded machine can break. The load average is printed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import loadavg, median, ms  # noqa: E402

PAGE = "---\ntitle: {title}\ntype: concept\nsummary: {title} in one line\ntags: []\naliases: []\n---\n\n# {title}\n\n{body}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lock-timeout", type=float, default=0.1)
    args = parser.parse_args()

    from whoosh import index as whoosh_index

    from wikitui.core.search.facade import SearchIndex
    from wikitui.core.search.whoosh import backend as search_mod
    from wikitui.core.vault.layout import Vault

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "v"
        (root / "wiki" / "concepts").mkdir(parents=True)
        (root / "WIKI.md").write_text("# Schema\n", encoding="utf-8")
        page = root / "wiki" / "concepts" / "marmalade.md"
        page.write_text(PAGE.format(title="Marmalade", body="Orange marmalade in a jar."), encoding="utf-8")
        vault = Vault.open(root)
        with SearchIndex(vault) as index:
            index.rebuild()
        skips, busy = [], []
        for run in range(args.runs):
            other = whoosh_index.open_dir(str(vault.state_dir / "index"), indexname=search_mod.index_name())
            writer = other.writer()  # another process in the middle of a long rebuild
            try:
                page.write_text(PAGE.format(title="Marmalade", body=f"Treacle, take {run}."), encoding="utf-8")
                quick = SearchIndex(vault, lock_timeout=args.lock_timeout)
                started = time.perf_counter()
                stats = quick.update()
                skips.append(time.perf_counter() - started)
                busy.append(bool(stats.busy))
                quick.close()
            finally:
                writer.cancel()
    print(json.dumps({
        "load": loadavg(),
        "lock_timeout_ms": ms(args.lock_timeout),
        "busy_skip_ms": {"median": ms(median(skips)), "max": ms(max(skips))},
        "all_busy": all(busy),
        "was_asserted": "< 2000 ms",
    }, indent=2))


if __name__ == "__main__":
    main()
