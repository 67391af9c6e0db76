"""Benchmark: from ``PageView.show()`` to the first painted screen, against Textual's Markdown.

Run: ``.venv/bin/python bench/page_view.py [--runs N] [--markdown-timeout S]``. Prints JSON:
median milliseconds from ``show()`` until every visible line of the view has been
painted by Textual's compositor, for a generated 1,000-line mixed page, vault-small's
1,500-line index.md (when the corpus is present), a 5 MB page and a 5 MB single
paragraph (soft-wrapped lines, and all on one line); the time until the
background layout stops (the whole page; a huge page only a few thousand lines ahead)
and the longest the event loop was blocked meanwhile (how late a key press could be
handled); and, as the reference, Textual's own ``Markdown.update()`` on the 1,000-line
page (time-boxed: it takes seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path
from time import perf_counter

from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widgets import Markdown

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wikitui.ui.widgets.page_view import PageView  # noqa: E402

INDEX = ROOT.parent / "shared" / "corpus" / "vault-small" / "wiki" / "index.md"
SIZE = (120, 40)


def mixed_page(lines: int) -> str:
    """A page of about ``lines`` lines mixing every construct the page pane renders."""
    out = ["---", "title: Benchmark", "type: concept", "tags: [bench, speed]", "summary: A long page.", "---", ""]
    n = 0
    while len(out) < lines:
        n += 1
        out += [
            f"## Section {n}",
            "",
            f"Paragraph {n} links [[Page {n}]], [[Other|an alias]] and [[Page {n}#Part]], with **bold**,",
            f"*italic*, `code` and a [web link](https://example.com/{n}) that wraps over lines when",
            "the pane is narrow enough for the words to reach the edge of the view.",
            "",
            f"- item one [[Item {n}]]",
            "- item two",
            "  - nested item with ~~strike~~",
            "1. first",
            "2. second",
            "",
            "> a quoted line with [[Quote Target]]",
            "",
            "| Name | Value |",
            "|---|---:|",
            f"| [[Row {n}]] | {n} |",
            "| plain | 2 |",
            "",
            "```python",
            f"def f{n}(x):",
            "    return x * 2  # double",
            "```",
            "",
        ]
    return "\n".join(out[:lines]) + "\n"


def one_paragraph(size: int) -> str:
    """A page that is a single paragraph of about ``size`` characters, with a link every ~200."""
    return "".join(
        "The Hatter's watch ran two days slow, and tea went on at the long table;\n"
        f"[[Page {n}|guest {n}]] came in, *sat down* and asked for butter, then\n"
        "left before the Dormouse woke. Nobody minded: it was always six.\n"
        for n in range(size // 200 + 1)
    )


class TimedPageView(PageView):
    """Records when every visible line has been painted since :meth:`start`."""

    def start(self) -> None:
        self.seen: set[int] = set()
        self.painted_at: float | None = None

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if getattr(self, "painted_at", 0) is None:
            self.seen.add(y)
            if len(self.seen) >= self.scrollable_content_region.height:
                self.painted_at = perf_counter()
        return strip


class BenchApp(App):
    def compose(self) -> ComposeResult:
        yield TimedPageView()


async def time_page_view(text: str, runs: int) -> dict:
    app = BenchApp()
    firsts, completes, stalls = [], [], []
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(TimedPageView)
        await pilot.pause()
        for _ in range(runs):
            view.show_message("", "")
            await pilot.pause()
            view.start()
            t0 = perf_counter()
            view.show(text, path="bench.md", resolve=lambda link: None if "Other" in link.target else "x.md")
            while view.painted_at is None:
                await asyncio.sleep(0.0005)
            firsts.append((view.painted_at - t0) * 1000)
            # While the rest is laid out, how long can a key press wait? Watch the loop's stalls.
            await asyncio.sleep(0.05)  # the background layout starts after the first paint
            last, stall = perf_counter(), 0.0
            while view.laying_out:
                await asyncio.sleep(0.001)
                now = perf_counter()
                stall, last = max(stall, now - last), now
            completes.append((perf_counter() - t0) * 1000)
            stalls.append(stall * 1000)
    return {
        "first_paint_ms": round(statistics.median(firsts), 1),
        "first_paint_runs_ms": [round(f, 1) for f in firsts],
        "background_layout_done_ms": round(statistics.median(completes), 1),
        "laid_out_lines_then": len(view.document.lines),
        "complete": view.document.complete,
        "worst_event_loop_stall_while_laying_out_ms": round(max(stalls), 1),
        "lines": text.count("\n"),
        "bytes": len(text.encode()),
    }


class MarkdownApp(App):
    def compose(self) -> ComposeResult:
        yield Markdown()


async def time_markdown(text: str, timeout: float) -> dict:
    app = MarkdownApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        t0 = perf_counter()
        try:
            await asyncio.wait_for(app.query_one(Markdown).update(text), timeout)
            await pilot.pause()
        except asyncio.TimeoutError:
            return {"update_ms": None, "timed_out_after_s": timeout}
        return {"update_ms": round((perf_counter() - t0) * 1000, 1)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--markdown-timeout", type=float, default=20.0)
    args = parser.parse_args()
    page = mixed_page(1000)
    results: dict = {"size": list(SIZE), "page_view": {}}
    results["page_view"]["mixed_1000_lines"] = await time_page_view(page, args.runs)
    if INDEX.is_file():
        text = INDEX.read_text(encoding="utf-8-sig")
        results["page_view"]["vault_small_index"] = await time_page_view(text, args.runs)
    else:
        results["notes"] = [f"vault_small_index: skipped, {INDEX} not found (the corpora live in ../shared/corpus beside the project)"]
    big = mixed_page(1000) * 40
    while len(big) < 5_000_000:
        big += page
    results["page_view"]["five_mb"] = await time_page_view(big, max(1, args.runs // 2))
    # These were wall-clock asserts in tests/ui/test_page_view.py (no test asserts a time).
    para = one_paragraph(5_000_000)
    results["page_view"]["five_mb_paragraph"] = await time_page_view(para, max(1, args.runs // 2))
    results["page_view"]["five_mb_one_line"] = await time_page_view(para.replace("\n", " "), max(1, args.runs // 2))
    results["textual_markdown_reference"] = {"mixed_1000_lines": await time_markdown(page, args.markdown_timeout)}
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
