"""Benchmark: the graph view (issue 27.1) — a 200-neighbour local graph, and vault-large's whole-wiki view.

Run: ``.venv/bin/python bench/graph.py [--runs N]``. Prints JSON, medians in milliseconds:

- ``networkx_import``: ``import networkx`` in a fresh interpreter (paid once, at the first opening);
- ``local_200``: a generated vault whose hub page has 200 neighbours (100 links, 100 backlinks, cross links
  among them): the model and the layout (``layout``), drawing the picture at 120x40 (``paint``), both together
  (``layout_and_paint``), and in the app, from pressing ``g`` to the painted graph (``app_g_to_painted``), and
  the same for a page with one link (``app_g_to_painted_2_nodes``: what the screen itself costs);
- ``vault_large``: the corpus copied to a temporary folder: the whole-wiki view's first layout with nothing kept
  (``cold_layout``), opening it with the cluster layouts kept in ``.wikitui/cache`` from an earlier run
  (``open_warm``: read them, build the model, pack, draw), in the app from ``w`` to the painted view
  (``app_w_to_painted``, warm), and one arrow press (``move``: choosing the next node, drawing the selection and
  rendering every line), against a frame at 60 Hz (16.7 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import copy_corpus, corpus_missing, loadavg, median, ms  # noqa: E402
from wikitui.core.vault.graph import LinkGraph  # noqa: E402
from wikitui.core.vault.graph_layout import MEMO_NAME, layout_local, layout_whole, read_memo, write_memo  # noqa: E402
from wikitui.core.vault.graph_model import GraphIndex, local_graph, whole_graph  # noqa: E402
from wikitui.core.vault.graph_moves import step  # noqa: E402
from wikitui.core.vault.layout import Vault  # noqa: E402
from wikitui.ui.widgets.graph_raster import draw_base, draw_selection  # noqa: E402

SIZE = (120, 40)
#: The canvas at 120x40: the screen less its title, status and footer lines.
CANVAS = (120, 37)


def hub_vault(root: Path, neighbours: int = 200) -> Path:
    """A vault whose ``Hub`` links 100 pages and is linked from 100 others, each linking two more of them."""
    rng = random.Random(27)
    wiki = root / "wiki"
    (wiki / "out").mkdir(parents=True)
    (wiki / "in").mkdir()
    (root / "raw").mkdir()
    (root / "WIKI.md").write_text("# Schema\n", encoding="utf-8")
    (wiki / "log.md").write_text("# Log\n", encoding="utf-8")
    (wiki / "index.md").write_text("# Index\n", encoding="utf-8")
    half = neighbours // 2
    outs = [f"Out {i}" for i in range(half)]
    ins = [f"In {i}" for i in range(neighbours - half)]
    (wiki / "hub.md").write_text("---\ntitle: Hub\ntype: concept\n---\n\n" + " ".join(f"[[{n}]]" for n in outs)
                                 + "\n", encoding="utf-8")
    # A page with one link: the same screen with (nearly) nothing to lay out, for reference.
    (wiki / "lone.md").write_text("---\ntitle: Lone\n---\n\n[[Pair]]\n", encoding="utf-8")
    everyone = outs + ins
    for folder, names in (("out", outs), ("in", ins)):
        for name in names:
            links = rng.sample(everyone, 2) + (["Hub"] if folder == "in" else [])
            (wiki / folder / f"{name}.md").write_text(
                f"---\ntitle: {name}\ntype: {'entity' if folder == 'in' else 'concept'}\n---\n\n"
                + " ".join(f"[[{n}]]" for n in links) + "\n", encoding="utf-8")
    return root


def import_time(runs: int) -> float:
    code = "import time; t = time.perf_counter(); import networkx; print(time.perf_counter() - t)"
    return median([float(subprocess.check_output([sys.executable, "-c", code])) for _ in range(runs)])


def local_bench(root: Path, runs: int) -> dict:
    graph = LinkGraph.load(Vault(root))
    hub = "wiki/hub.md"
    layouts, paints, both = [], [], []
    for _ in range(runs):
        t0 = perf_counter()
        model = local_graph(GraphIndex(graph), hub)
        positions = layout_local(model)
        t1 = perf_counter()
        draw_selection(draw_base(model, positions, *CANVAS), model, hub)
        t2 = perf_counter()
        layouts.append(t1 - t0)
        paints.append(t2 - t1)
        both.append(t2 - t0)
    assert len(model.nodes) == 201, len(model.nodes)
    return {"nodes": len(model.nodes), "edges": len(model.edges), "layout": ms(median(layouts)),
            "paint": ms(median(paints)), "layout_and_paint": ms(median(both)),
            "app_g_to_painted": ms(median(asyncio.run(app_open(root, "wiki/hub.md", ("g",), runs)))),
            "app_g_to_painted_2_nodes": ms(median(asyncio.run(app_open(root, "wiki/lone.md", ("g",), runs))))}


async def app_open(root: Path, path: str, keys: tuple[str, ...], runs: int) -> list[float]:
    """Seconds from the last of ``keys`` to the canvas's last row painted, in the app at 120x40."""
    from tests.ui.workspace_helpers import wait_for, wait_ready, workspace
    from wikitui.ui.screens.graph import GraphScreen
    from wikitui.ui.widgets.graph_canvas import GraphCanvas

    painted: list[float] = []
    done = asyncio.Event()
    row = GraphCanvas._row

    def timed_row(canvas, picture, y):  # the time the compositor asked for the canvas's last row
        strip = row(canvas, picture, y)
        if y == picture.height - 1 and (keys[-1] != "w" or canvas.boxes):
            painted.append(perf_counter())
            done.set()
        return strip

    GraphCanvas._row = timed_row  # type: ignore[method-assign]
    app = workspace(root, watch=False, index=False)
    out = []
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot, timeout=60)
        app.main.open_path(path)
        await pilot.pause()
        for _ in range(runs + 1):  # the first opening imports networkx: not counted
            await pilot.press(*keys[:-1])
            await wait_for(pilot, lambda: len(keys) == 1 or app.screen.model is not None, "the first view", 30)
            painted.clear()
            done.clear()
            start = perf_counter()
            await pilot.press(keys[-1])
            # Waiting on an event, not polling: the event loop idles as it does for a person waiting.
            await asyncio.wait_for(done.wait(), 30)
            out.append(painted[-1] - start)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, GraphScreen), "closed", 10)
    GraphCanvas._row = row  # type: ignore[method-assign]
    return out[1:]


def large_bench(root: Path, runs: int) -> dict:
    vault = Vault(root)
    graph = LinkGraph.load(vault)
    memo_path = vault.state_dir / "cache" / MEMO_NAME
    colds = []
    for _ in range(max(1, runs // 2)):
        t0 = perf_counter()
        memo = read_memo(memo_path / "absent")
        layout_whole(whole_graph(GraphIndex(graph)), memo=memo, aspect=CANVAS[0] * 2 / (CANVAS[1] * 4))
        colds.append(perf_counter() - t0)
    write_memo(memo_path, memo)
    warms = []
    for _ in range(runs):
        t0 = perf_counter()
        memo = read_memo(memo_path)
        model = whole_graph(GraphIndex(graph))
        layout = layout_whole(model, memo=memo, aspect=CANVAS[0] * 2 / (CANVAS[1] * 4))
        base = draw_base(model, layout.positions, *CANVAS, boxes=layout.boxes)
        pic = draw_selection(base, model, next(iter(model.nodes)))
        warms.append(perf_counter() - t0)
        assert memo.laid_out == 0
    # Arrow presses from the best-linked page outwards, as the canvas does them.
    selected = max(model.nodes, key=lambda n: model.nodes[n].degree)
    moves = []
    rng = random.Random(1)
    for _ in range(runs * 20):
        t0 = perf_counter()
        target = step(pic.dots, selected, rng.choice(("left", "right", "up", "down")), model.neighbours(selected),
                      others=pic.dots)
        if target is not None:
            selected = target
        pic = draw_selection(base, model, selected)
        for row in range(pic.height):  # what render_line walks
            "".join(pic.chars[row])
        moves.append(perf_counter() - t0)
    return {"pages": sum(1 for n in model.nodes.values() if n.kind == "page"), "nodes": len(model.nodes),
            "edges": len(model.edges), "clusters": len(model.clusters()), "cold_layout": ms(median(colds)),
            "open_warm": ms(median(warms)),
            "app_w_to_painted": ms(median(asyncio.run(app_open(root, "index.md", ("g", "w"), runs)))),
            "move": ms(median(moves)), "move_worst": ms(max(moves)), "frame": 16.7}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    out: dict = {"loadavg": loadavg(), "networkx_import": ms(import_time(args.runs))}
    with tempfile.TemporaryDirectory() as tmp:
        out["local_200"] = local_bench(hub_vault(Path(tmp) / "hub"), args.runs)
        large = copy_corpus("vault-large", Path(tmp) / "large")
        if large is None:
            out["vault_large"] = corpus_missing("vault-large")
        else:
            out["vault_large"] = large_bench(large, args.runs)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
