"""Benchmark: the page pane's layout model on huge paragraphs (no UI).

Run: ``.venv/bin/python bench/page_layout.py [--runs N]``. Prints JSON: median
milliseconds to word-wrap 100 KB and 400 KB of styled runs, to parse and lay out a
96 KB and a 384 KB single paragraph (with a link every ~200 characters), and to lay
out the first screen (50 lines) of a 2 MB paragraph, with the 400/100 ratios (a
linear wrap gives about 4, the old quadratic one gave 16); and 100 KB of unclosed
brackets against 100 KB of prose (bounded work: the same order).

These were wall-clock asserts in tests/ui/test_markdown_lines.py; a test that fails
on a loaded machine is a broken test (DESIGN §8), so the figures live here. A figure
taken on a shared machine is noisy: compare the ratios, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from time import perf_counter

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wikitui.ui.markdown.document import PageDocument, render_page  # noqa: E402
from wikitui.ui.markdown.wrap import wrap_runs  # noqa: E402


def styled_runs(size: int) -> list:
    """About ``size`` characters of runs: plain text, a link label, bold text."""
    unit = [("plain words that fill the line, ", "", None), ("a link label", "", 0), (" and ", "strong", None)]
    return unit * (size // 50)


def prose_paragraph(size: int) -> str:
    """One paragraph of about ``size`` characters: soft-wrapped lines, a [[link]] every ~200 characters."""
    return "".join(
        "The Hatter's watch ran two days slow, and tea went on at the long table;\n"
        f"[[Page {n}|guest {n}]] came in, *sat down* and asked for `butter`, then\n"
        "left before the Dormouse woke. Nobody minded: it was always six.\n"
        for n in range(size // 200 + 1)
    )


def median_ms(action, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = perf_counter()
        action()
        times.append((perf_counter() - started) * 1000)
    return round(statistics.median(times), 1)


def first_screen(text: str) -> None:
    doc = PageDocument(text, path="wiki/para.md")
    doc.set_width(100)
    doc.ensure_lines(50)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    small, big = styled_runs(100_000), styled_runs(400_000)
    wrap_small = median_ms(lambda: wrap_runs(small, 80), args.runs)
    wrap_big = median_ms(lambda: wrap_runs(big, 80), args.runs)
    para_small, para_big = prose_paragraph(96_000), prose_paragraph(384_000)
    page_small = median_ms(lambda: render_page(para_small, 100, path="wiki/para.md"), args.runs)
    page_big = median_ms(lambda: render_page(para_big, 100, path="wiki/para.md"), args.runs)
    huge = prose_paragraph(2_000_000)
    brackets, prose_100 = ("[" * 1_000 + "\n\n") * 100, prose_paragraph(100_000)
    results = {
        "wrap_runs_ms": {"100_kb": wrap_small, "400_kb": wrap_big, "ratio_400_to_100": round(wrap_big / wrap_small, 2)},
        "render_paragraph_ms": {
            "96_kb": page_small,
            "384_kb": page_big,
            "ratio_384_to_96": round(page_big / page_small, 2),
        },
        "first_screen_of_2_mb_paragraph_ms": median_ms(lambda: first_screen(huge), args.runs),
        # Hostile: 100 KB of unclosed "[" in 1 KB paragraphs (markdown-it alone: about a minute).
        "render_100_kb_of_brackets_ms": median_ms(lambda: render_page(brackets, 80, path="wiki/b.md"), args.runs),
        "render_100_kb_of_prose_ms": median_ms(lambda: render_page(prose_100, 80, path="wiki/p.md"), args.runs),
        "runs": args.runs,
    }
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
