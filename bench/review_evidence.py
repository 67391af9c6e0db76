"""Benchmark of the review with evidence (DESIGN §11 "Evidence", issue 25); prints one JSON object.

Run: ``.venv/bin/python bench/review_evidence.py`` (from the project root).

A 40-hunk changeset (8 pages, 5 hunks each, built with the real ChangesetBuilder), every hunk
carrying two evidence items from a 2,000-line raw source (one of them a quote the source does
not hold, so the ⚠ rows are drawn too), reviewed in a headless app at 120x40 with the vault
given (the evidence rows are read by the review's worker). For each key (``j`` next hunk,
``v`` next evidence line, ``n`` next file, ``a`` accept and move on): the time from the key
press to the screen's next paint, median and p95, side by side with the same changeset
without evidence (no ``v`` there). A key that changes nothing on screen is no frame: it is
counted apart (``keys_without_a_frame``), not timed. Target: median and p95 at most 50 ms (the review's frame budget).
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

PAGES = 8
PER_PAGE = 5
SOURCE_LINES = 2_000
TARGET_MS = 50.0


def _changeset(root: Path, with_evidence: bool):
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.vault.create import init_vault
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    init_vault(root)
    (root / "raw" / "long.md").write_text("".join(
        f"Line {n} of the long source holds fact number {n}, told at some length so it wraps in the review.\n"
        for n in range(1, SOURCE_LINES + 1)), encoding="utf-8")
    folder = root / "wiki" / "concepts"
    folder.mkdir(parents=True)
    for i in range(PAGES):
        lines = ["---", f"title: Page {i}", "type: concept", f"summary: Generated page {i}", "---", f"# Page {i}", ""]
        for s in range(PER_PAGE):
            lines += [f"## Section {s}", "", f"Page {i} section {s} opens with a claim about the source.",
                      "It goes on for a while, as prose in a wiki does, with enough words to wrap.",
                      f"Closing line {s} of page {i}.", "", "- a list item", ""]
        (folder / f"page-{i:02}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    vault = Vault.open(root)
    builder = ChangesetBuilder(vault, LinkGraph.load(vault))
    for i in range(PAGES):
        edits = []
        for s in range(PER_PAGE):
            n = 1 + (i * PER_PAGE + s) * 37 % SOURCE_LINES
            edit = {"old": f"Page {i} section {s} opens with a claim",
                    "new": f"Page {i} section {s} now opens with a sharper claim, fact {n}"}
            if with_evidence:
                edit["evidence"] = [{"source": "raw/long.md", "quote": f"holds fact number {n}, told",
                                     "lines": f"{n}"},
                                    {"source": "raw/long.md", "quote": f"a quote no line holds ({n})"}]
            edits.append(edit)
        builder.edit(f"wiki/concepts/page-{i:02}.md", edits, "sharpen the claims")
    changeset = builder.build("edit", "Generated")
    assert changeset is not None
    assert len(changeset.hunk_ids()) == PAGES * PER_PAGE, changeset.stats()  # no `updated:`: no date hunks
    return vault, changeset


def _summary(samples: list[float]) -> dict:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median_ms": round(statistics.median(ordered), 2), "p95_ms": round(p95, 2), "samples": len(ordered)}


async def _measure(vault, changeset) -> dict:
    from textual.app import App

    from wikitui.ui.screens.review import ReviewScreen
    from wikitui.ui.widgets.diff_view import DiffView

    class BenchApp(App):
        def on_mount(self) -> None:
            self.push_screen(ReviewScreen(changeset, vault=vault))

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
    results: dict[str, list[float]] = {"j": [], "v": [], "n": [], "a": []}
    unpainted: dict[str, int] = {key: 0 for key in results}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()  # the evidence rows are read: measure the settled screen
        await pilot.pause()
        rows = len(app.screen.query_one(DiffView).shown_rows("evidence"))

        async def press(key: str) -> float:
            painted.clear()
            start = time.perf_counter()
            await pilot.press(key)
            try:
                await asyncio.wait_for(painted.wait(), timeout=1)
            except TimeoutError:  # nothing changed on screen: not a frame, not counted
                unpainted[key] += 1
                print("no frame:", key, app.screen.state.file_index, app.screen.state.hunk_index, file=sys.stderr)
                return -1.0
            first = next(t for t in paint_times if t >= start)
            return (first - start) * 1000

        hunks = len(changeset.hunk_ids())
        with_evidence = any(h.evidence for f in changeset.files for h in f.hunks)
        for _ in range(hunks - 1):  # down through every hunk of every file
            results["j"].append(await press("j"))
            for _ in range(2 if with_evidence else 0):  # onto the hunk's evidence lines
                results["v"].append(await press("v"))
        while app.screen.state.file_index > 0:
            await press("p")
        for _ in range(2):
            for _ in range(PAGES - 1):
                results["n"].append(await press("n"))
            for _ in range(PAGES - 1):
                await press("p")
        for _ in range(hunks - 1):
            results["a"].append(await press("a"))
    return {"evidence_rows_first_file": rows, "keys_without_a_frame": unpainted,
            **{key: _summary([x for x in samples if x >= 0]) for key, samples in results.items() if samples}}


def frame_time_per_key() -> dict:
    """Key-to-paint latency of the review of a 40-hunk changeset, with evidence and without, side by side."""
    out = {}
    for label, with_evidence in (("with_evidence", True), ("without_evidence", False)):  # side by side
        with tempfile.TemporaryDirectory() as tmp:
            vault, changeset = _changeset(Path(tmp) / "vault", with_evidence)
            out[label] = asyncio.run(_measure(vault, changeset))
    worst = max(max(v["median_ms"], v["p95_ms"]) for v in out["with_evidence"].values()
                if isinstance(v, dict) and "median_ms" in v)
    return {
        "changeset": {"files": PAGES, "hunks": PAGES * PER_PAGE, "source_lines": SOURCE_LINES},
        **out,
        "target_ms": TARGET_MS,
        "within_target": worst <= TARGET_MS,
        "load_average_1min": round(os.getloadavg()[0], 2),  # a shared machine skews the p95
    }


#: Each section is a function returning a JSON-ready dict.
SECTIONS = {"frame_time_per_key": frame_time_per_key}


def main() -> None:
    """Run every section (or those named on the command line) and print the figures as JSON."""
    names = sys.argv[1:] or list(SECTIONS)
    print(json.dumps({name: SECTIONS[name]() for name in names}, indent=2))


if __name__ == "__main__":
    main()
