"""Benchmarks of the review of a changeset; prints one JSON object.

Run: ``.venv/bin/python bench/review.py`` (from the project root).

Sections:
- ``keystroke_to_paint``: on a generated changeset of 15 files / 200 hunks built
  with the real ChangesetBuilder, the time from a key press (``j`` next hunk,
  ``a`` accept and move on, ``n`` next file) until the screen's next paint, in
  a headless app at 120x40. Target: median and p95 at most 50 ms.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FILES = 15
HUNKS = 200
TARGET_MS = 50.0


# ------------------------------------------------------------------ keystroke to paint
def _generated_changeset(root: Path):
    """A real changeset: FILES pages, HUNKS hunks spread over them (one edit per section)."""
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.vault.create import init_vault
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    init_vault(root)
    folder = root / "wiki" / "concepts"
    folder.mkdir(parents=True)
    per_file = [HUNKS // FILES + (1 if i < HUNKS % FILES else 0) for i in range(FILES)]
    for i, sections in enumerate(per_file):
        lines = ["---", f"title: Page {i}", "type: concept", f"summary: Generated page {i}", "---", f"# Page {i}", ""]
        for s in range(sections):
            # Eight lines per section keep each edit more than 2x3 context lines from the next: one hunk each.
            lines += [f"## Section {s}", "", f"Page {i} section {s} opens with a claim about [[Page {(i + 1) % FILES}]].",
                      "It goes on for a while, as prose in a wiki does, with enough words to wrap on a narrow pane.",
                      f"Closing line {s} of page {i}.", "", "- a list item", ""]
        (folder / f"page-{i:02}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    vault = Vault.open(root)
    builder = ChangesetBuilder(vault, LinkGraph.load(vault))
    for i, sections in enumerate(per_file):
        builder.edit(f"wiki/concepts/page-{i:02}.md", [
            {"old": f"Page {i} section {s} opens with a claim", "new": f"Page {i} section {s} now opens with a sharper claim"}
            for s in range(sections)
        ], "sharpen the claims")
    changeset = builder.build("edit", "Generated")
    assert changeset is not None
    assert len(changeset.files) == FILES and len(changeset.hunk_ids()) == HUNKS, changeset.stats()
    return changeset


def _summary(samples: list[float]) -> dict:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median_ms": round(statistics.median(ordered), 2), "p95_ms": round(p95, 2), "samples": len(ordered)}


async def _measure(changeset) -> dict:
    from textual.app import App

    from wikitui.ui.screens.review import ReviewScreen

    class BenchApp(App):
        def on_mount(self) -> None:
            self.push_screen(ReviewScreen(changeset))

    app = BenchApp()
    painted = asyncio.Event()
    paint_times: list[float] = []
    original_display = app._display

    def display(screen, renderable) -> None:  # the compositor's output, after render_line ran
        original_display(screen, renderable)
        if renderable is not None:
            paint_times.append(time.perf_counter())
            painted.set()

    app._display = display  # type: ignore[method-assign]
    results: dict[str, list[float]] = {"j": [], "a": [], "n": []}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()  # measure the settled screen (highlighting done ahead)

        async def press(key: str) -> float:
            painted.clear()
            start = time.perf_counter()
            await pilot.press(key)
            await asyncio.wait_for(painted.wait(), timeout=5)
            first = next(t for t in paint_times if t >= start)
            return (first - start) * 1000

        for _ in range(60):  # down through the hunks
            results["j"].append(await press("j"))
        while app.screen.state.file_index > 0:  # back to the first file, unmeasured
            await press("p")
        for _round in range(3):  # across the files, then back unmeasured
            for _ in range(FILES - 1):
                results["n"].append(await press("n"))
            for _ in range(FILES - 1):
                await press("p")
        for _ in range(60):  # accept and move on
            results["a"].append(await press("a"))
    return {key: _summary(samples) for key, samples in results.items()}


def keystroke_to_paint() -> dict:
    """Median and p95 key-to-paint latency of j, a and n on a 15-file / 200-hunk changeset."""
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        changeset = _generated_changeset(Path(tmp) / "vault")
        build_ms = (time.perf_counter() - started) * 1000
        keys = asyncio.run(_measure(changeset))
    worst = max(max(k["median_ms"], k["p95_ms"]) for k in keys.values())
    return {
        "changeset": {"files": FILES, "hunks": HUNKS, "build_ms": round(build_ms, 1)},
        "keys": keys,
        "target_ms": TARGET_MS,
        "within_target": worst <= TARGET_MS,
        # A shared machine skews the p95: the load says how busy it was.
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


#: Each section is a function returning a JSON-ready dict.
SECTIONS = {"keystroke_to_paint": keystroke_to_paint}


def main() -> None:
    """Run every section (or those named on the command line) and print the figures as JSON."""
    names = sys.argv[1:] or list(SECTIONS)
    print(json.dumps({name: SECTIONS[name]() for name in names}, indent=2))


if __name__ == "__main__":
    main()
