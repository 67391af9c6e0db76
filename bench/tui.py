"""Benchmarks of the workspace (prints JSON). Not part of the test run.

    .venv/bin/python bench/tui.py [--skip-10k] [--skip-large]

Measures, each in a fresh interpreter (so import time counts, as it does for a user):

- time to first paint (from starting the process, the interpreter's own start included, to the first
  frame with the page shown; the child, ``bench/tui_child.py``, runs what ``wikitui VAULT`` runs) and
  time until the search index is complete, on the sample vault, a copy of
  vault-large and a generated 10,000-page vault; cold (no ``.wikitui/``, once) and
  warm (median of ``--runs``); the machine's load is printed too (2 shared cores
  make single runs noisy);
- the same first paint for a bare Textual app that shows a Tree of the same pages
  (built eagerly in ``compose``), measured the same way;
- the largest gap between frames (a 60 Hz timer's ticks) while the index builds;
- time from following a link (what ``enter`` does) to the new page painted, for a
  1,000-line page and for vault-small's ~1,500-line index.md.

Targets: first paint on vault-large <= 1.3x the bare app; 10,000 pages <= 1.5 s;
following a link <= 50 ms (1,000 lines) and <= 150 ms (vault-small's index.md);
no frame gap > 100 ms while the index builds.
"""

from __future__ import annotations

import time

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("WIKITUI_CORPUS", ROOT.parent / "shared" / "corpus"))
SIZE = (120, 40)
#: Seconds a child may run before it is considered stuck.
CHILD_TIMEOUT = 600
#: The first-paint children: they import only what the program they measure does.
CHILD = Path(__file__).resolve().with_name("tui_child.py")


# ----------------------------------------------------------------------------- vaults
def generate_vault(dest: Path, pages: int = 10_000, folders: int = 100) -> Path:
    """A synthetic wiki: ``pages`` pages in ``folders`` folders, each linking to a few others."""
    wiki = dest / "wiki"
    per = pages // folders
    for f in range(folders):
        (wiki / f"topic-{f:03d}").mkdir(parents=True, exist_ok=True)
    (dest / "raw").mkdir(exist_ok=True)
    names = [f"topic-{i // per:03d}/page-{i:05d}" for i in range(pages)]
    for i, name in enumerate(names):
        links = " ".join(f"[[page-{(i * 7 + k * 131) % pages:05d}]]" for k in range(1, 4))
        text = (
            f"---\ntitle: Page {i:05d}\ntype: concept\nsummary: Synthetic page number {i}.\n"
            f"tags: [bench, t{i % 17}]\n---\n\n# Page {i:05d}\n\n"
            f"Page {i} discusses subject {i % 97} and relates to {links}.\n\n"
            "## Details\n\n" + "".join(f"- point {k} about subject {(i + k) % 97}\n" for k in range(8))
        )
        (wiki / f"{name}.md").write_text(text, encoding="utf-8")
    (wiki / "index.md").write_text("# Index\n\n" + "\n".join(f"- [[{n.split('/')[-1]}]]" for n in names[:200]) + "\n")
    return dest


def long_page(lines: int = 1000) -> str:
    """A realistic long page: headings, paragraphs, lists, a table, code and links."""
    out = ["---", "title: Long Page", "type: topic", "---", "", "# Long Page", ""]
    i = 0
    while len(out) < lines:
        i += 1
        out += [f"## Section {i}", "", f"Paragraph {i} mentions [[Alice]] and the [[White Rabbit]] in passing,"]
        out += ["with **bold**, *italic* and `code` words to lay out.", ""]
        out += [f"- item {k} of section {i}, see [[Cheshire Cat]]" for k in range(5)] + [""]
        out += ["| a | b |", "|---|---|", f"| {i} | {i * 2} |", ""]
        out += ["```python", f"def section_{i}():", f"    return {i}", "```", ""]
    return "\n".join(out[:lines]) + "\n"


def copy_vault(src: Path, dest: Path) -> Path:
    """A copy without wikitui's state (a cold start)."""
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".wikitui"))
    return dest


# ----------------------------------------------------------------------- child runs
def child_follow(vault: str, source: str, target_name: str, out: str, repeats: int = 7) -> None:
    """Time following a link from page ``source`` to the page named ``target_name``, until painted."""
    import asyncio

    from wikitui.ui.app import make_app
    from wikitui.ui.widgets.page_view import PageView

    timings: list[float] = []

    async def run() -> None:
        app = make_app(vault, watch=False, index=False)
        async with app.run_test(size=SIZE) as pilot:
            while app.workspace.graph is None:
                await pilot.pause(0.05)
            main = app.main
            page = app.query_one(PageView)
            for _ in range(repeats):
                main.open_path(source)
                await pilot.pause()
                index = next(i for i, link in enumerate(page.links) if link.target == target_name)
                page.select_link(index)
                await pilot.pause()
                done = asyncio.Event()
                display = app._display

                def frame(screen, renderable, _display=display):
                    # The first frame written to the terminal once the new page is shown.
                    _display(screen, renderable)
                    if renderable is not None and main.current_path != source and not done.is_set():
                        timings.append(time.perf_counter() - t0)
                        done.set()

                app._display = frame
                t0 = time.perf_counter()
                page.action_follow()  # what enter does
                await done.wait()
                app._display = display
                assert main.current_path != source
            Path(out).write_text(json.dumps({"target": main.current_path, "lines": page.document.source.count("\n")}))

    asyncio.run(run())
    data = json.loads(Path(out).read_text())
    data["follow_ms_median"] = round(statistics.median(timings) * 1000, 1)
    data["follow_ms_max"] = round(max(timings) * 1000, 1)
    Path(out).write_text(json.dumps(data))


def run_child(*args: str, env: dict) -> dict:
    """Run this script in child mode; returns what the child wrote."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        out = fh.name
    try:
        subprocess.run([sys.executable, __file__, "--child", *args, out], env=env, check=True, timeout=CHILD_TIMEOUT)
        return json.loads(Path(out).read_text())
    finally:
        os.unlink(out)


def run_start(kind: str, vault: Path, env: dict) -> dict:
    """Start ``bench/tui_child.py`` (``wikitui`` or ``bare``) on ``vault``; its times counted from the process start.

    The clock starts before the interpreter does, as a user's does when they press enter.
    """
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        out = fh.name
    try:
        started = time.time()
        subprocess.run([sys.executable, str(CHILD), kind, str(vault), out], env=env, check=True, timeout=CHILD_TIMEOUT)
        data = json.loads(Path(out).read_text())
    finally:
        os.unlink(out)
    data["first_paint_s"] = data.pop("first_paint_at") - started
    if "index_done_at" in data:
        data["index_done_s"] = data.pop("index_done_at") - started
    return data


# ---------------------------------------------------------------------------- main
def main() -> None:
    """Run every measurement (or, with ``--child``, one of them) and print the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--skip-10k", action="store_true", help="skip the generated 10,000-page vault")
    parser.add_argument("--skip-large", action="store_true", help="skip vault-large and vault-small")
    parser.add_argument("--runs", type=int, default=5, help="first-paint runs per app and vault (median reported)")
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        {"follow": child_follow}[kind](*rest)
        return

    work = Path(tempfile.mkdtemp(prefix="wikitui-bench-"))
    home = work / "home"
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
               LITELLM_LOCAL_MODEL_COST_MAP="True")
    env.pop("WIKITUI_MODEL", None)
    vaults: dict[str, Path] = {"sample": copy_vault(ROOT / "sample", work / "sample")}
    if not args.skip_large and (CORPUS / "vault-large").is_dir():
        vaults["vault-large"] = copy_vault(CORPUS / "vault-large", work / "vault-large")
    if not args.skip_10k:
        vaults["generated-10k"] = generate_vault(work / "generated-10k")

    report: dict = {"terminal": f"{SIZE[0]}x{SIZE[1]}", "runs": args.runs, "vaults": {}}
    for name, vault in vaults.items():
        # Alternate the two apps so a busy moment of the machine hits both alike.
        bare_runs, warm_runs = [], []
        run_start("bare", vault, env)  # untimed: Textual's bytecode and files in the page cache
        cold = run_start("wikitui", vault, env)
        for _ in range(args.runs):
            bare_runs.append(run_start("bare", vault, env)["first_paint_s"])
            warm_runs.append(run_start("wikitui", vault, env))
        warm_paint = [w["first_paint_s"] for w in warm_runs]
        row: dict = {
            "pages": cold.get("pages"),
            "bare_first_paint_s": round(statistics.median(bare_runs), 3),
            "warm_first_paint_s": round(statistics.median(warm_paint), 3),
            "bare_first_paint_min_s": round(min(bare_runs), 3),
            "warm_first_paint_min_s": round(min(warm_paint), 3),
            "cold_first_paint_s": round(cold["first_paint_s"], 3),
            "cold_index_done_s": round(cold["index_done_s"], 2),
            "warm_index_done_s": round(statistics.median(w["index_done_s"] for w in warm_runs), 2),
            "cold_max_frame_gap_ms": cold["max_frame_gap_ms"],
            "warm_max_frame_gap_ms": max(w["max_frame_gap_ms"] for w in warm_runs),
        }
        row["first_paint_vs_bare"] = round(row["warm_first_paint_s"] / row["bare_first_paint_s"], 2)
        report["vaults"][name] = row

    # Following a link to a 1,000-line page (in a copy of the sample vault).
    follow_vault = copy_vault(ROOT / "sample", work / "follow")
    (follow_vault / "wiki" / "long-page.md").write_text(long_page(1000), encoding="utf-8")
    (follow_vault / "wiki" / "start.md").write_text("# Start\n\nRead the [[Long Page]].\n", encoding="utf-8")
    report["follow_1000_lines"] = run_child("follow", str(follow_vault), "wiki/start.md", "Long Page", env=env)
    if not args.skip_large and (CORPUS / "vault-small").is_dir():
        small = copy_vault(CORPUS / "vault-small", work / "vault-small")
        (small / "wiki" / "bench-start.md").write_text("# Start\n\nSee the [[index]].\n", encoding="utf-8")
        report["follow_vault_small_index"] = run_child("follow", str(small), "wiki/bench-start.md", "index", env=env)

    large = report["vaults"].get("vault-large")
    gen = report["vaults"].get("generated-10k")
    report["targets"] = {
        "vault_large_first_paint_le_1_3x_bare": None if not large else large["first_paint_vs_bare"] <= 1.3,
        "generated_10k_first_paint_le_1_5s": None if not gen else gen["warm_first_paint_s"] <= 1.5,
        "follow_1000_lines_le_50ms": report["follow_1000_lines"]["follow_ms_median"] <= 50,
        "follow_vault_small_index_le_150ms": (
            report["follow_vault_small_index"]["follow_ms_median"] <= 150 if "follow_vault_small_index" in report else None
        ),
        "no_frame_gap_over_100ms": all(
            max(v["cold_max_frame_gap_ms"], v["warm_max_frame_gap_ms"]) <= 100 for v in report["vaults"].values()
        ),
    }
    report["notes"] = [
        f"{name}: skipped, corpus not found at {CORPUS / name} "
        "(the corpora live in ../shared/corpus beside the project, or set WIKITUI_CORPUS)"
        for name in ("vault-large", "vault-small")
        if not args.skip_large and not (CORPUS / name).is_dir()
    ]
    report["load_average"] = [round(x, 2) for x in os.getloadavg()]
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
