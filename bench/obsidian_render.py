"""Benchmark: what Obsidian's syntax (issue 24.5) costs the page renderer, side by side with the parser without it.

Run: ``.venv/bin/python bench/obsidian_render.py [--runs N]``. Prints JSON: the median
milliseconds to import the two ``mdit-py-plugins`` modules (dollarmath, footnote) in a
fresh interpreter, and to parse and to lay out (parse + wrap, 100 columns) a generated
page of about 5,000 lines (mixed constructs, math, highlights, footnotes, tags, callouts,
tasks, tables) with the full parser and with a parser whose new rules are turned off
(math, footnotes, ``==mark==``: the parser as it was before); and the time to find the
inline ``#tags`` of that page (what the search index does for each page).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from time import perf_counter
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wikitui.core.vault.tags import inline_tags  # noqa: E402
from wikitui.ui.markdown import chunk_blocks  # noqa: E402
from wikitui.ui.markdown.document import render_page  # noqa: E402
from wikitui.ui.markdown.parser import _bounded_inline, _new_parser, markdown_parser  # noqa: E402

#: The rules the plugins and the ``mark`` rule add: off, the parser is the one before issue 24.5.
NEW_RULES = ["math_inline", "math_block", "footnote_def", "footnote_ref", "mark"]


def large_page(lines: int) -> str:
    out = ["---", "title: Bench", "type: concept", "---", ""]
    n = 0
    while len(out) < lines:
        n += 1
        out += [
            f"## Section {n}",
            "",
            f"Paragraph {n} links [[Page {n}]] and [[Page {n}#Part]], with **bold**, ==a highlight==, $x_{n}^2$,",
            f"a #tag{n} and #area/sub{n}, `code #no`, a footnote[^{n}] and a [web link](https://example.com/#{n}).",
            "",
            "$$",
            f"a_{n} & b \\\\",
            "c \\_ d",
            "$$",
            "",
            "> [!faq]- A folded question",
            "> Its answer, on two lines.",
            "",
            "- [ ] open", "- [?] asked", "- [-] dropped",
            "",
            "| Name | Context-efficiency |", "|---|---|", f"| Row {n} | A cell with several words in it |",
            "",
            f"[^{n}]: Note {n}.",
            "",
        ]
    return "\n".join(out[:lines]) + "\n"


def median_ms(action, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = perf_counter()
        action()
        times.append((perf_counter() - started) * 1000)
    return round(statistics.median(times), 1)


def import_ms(runs: int) -> float:
    code = ("import time; import markdown_it; t = time.perf_counter(); "
            "import mdit_py_plugins.dollarmath, mdit_py_plugins.footnote; print((time.perf_counter() - t) * 1000)")
    times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
             for _ in range(runs)]
    return round(statistics.median(times), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    text = large_page(5000)
    full = markdown_parser()
    before = _new_parser().disable(NEW_RULES)
    before.core.ruler.at("inline", _bounded_inline)

    def layout(md) -> None:
        with mock.patch.object(chunk_blocks, "markdown_parser", lambda: md):
            render_page(text, 100, path="wiki/bench.md")

    results = {
        "page": {"lines": text.count("\n"), "chars": len(text)},
        "import_plugins_ms": import_ms(args.runs),
        "parse_ms": {"before": median_ms(lambda: before.parse(text, {}), args.runs),
                     "after": median_ms(lambda: full.parse(text, {}), args.runs)},
        "layout_ms": {"before": median_ms(lambda: layout(before), args.runs),
                      "after": median_ms(lambda: layout(full), args.runs)},
        "inline_tags_ms": median_ms(lambda: inline_tags(text), args.runs),
    }
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
