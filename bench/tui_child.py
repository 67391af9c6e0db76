"""The child processes of ``bench/tui.py``'s first-paint rows (not part of the test run).

Kept apart from the bench so a child imports nothing the program it measures does not:
``python bench/tui_child.py wikitui VAULT OUT`` runs what ``wikitui VAULT`` runs (the CLI's
``main``, ``run_app`` and its terminal preparation), only headless at 120x40;
``python bench/tui_child.py bare VAULT OUT`` a bare Textual app showing a Tree of the same
pages. Each writes the wall-clock time (``time.time()``) of its first frame showing the content;
the parent subtracts the moment it started the process, so the interpreter's start counts.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

SIZE = (120, 40)


def on_first_frame(app, ready, callback) -> None:
    """Call ``callback`` once, when the first frame showing the content (``ready()``) goes to the terminal.

    Hooks ``App._display`` (the call that writes a frame to the driver), the same way
    for both apps, so "first paint" means the same thing for each.
    """
    original = app._display
    done = {"yes": False}

    def display(screen, renderable):
        original(screen, renderable)
        if not done["yes"] and renderable is not None and ready():
            done["yes"] = True
            callback()

    app._display = display


def child_wikitui(vault: str, out: str) -> None:
    """``wikitui VAULT``, headless; records first paint, index completion and frame gaps."""
    from textual.app import App

    result: dict = {}
    original_run = App.run

    def run(app, *args, **kwargs):
        gaps: list[float] = []
        state: dict = {"last": None}

        def tick() -> None:
            now = time.perf_counter()
            if state["last"] is not None and app.workspace.index_state.value == "building":
                gaps.append(now - state["last"])
            state["last"] = now
            if app.workspace.index_state.value in ("ready", "failed", "off"):
                result["index_done_at"] = time.time()
                result["max_frame_gap_ms"] = round(max(gaps, default=0) * 1000, 1)
                result["pages"] = len(app.workspace.graph.pages) if app.workspace.graph else 0
                app.exit()

        def shown() -> bool:
            try:
                return app.main.current_path is not None
            except LookupError:
                return False

        on_first_frame(app, shown, lambda: result.setdefault("first_paint_at", time.time()))
        app.call_later(lambda: app.set_interval(1 / 60, tick))
        return original_run(app, headless=True, size=SIZE)

    App.run = run  # type: ignore[method-assign]
    from wikitui.cli import main

    main([vault])
    Path(out).write_text(json.dumps(result))


def child_bare(vault: str, out: str) -> None:
    """A bare Textual app showing a Tree of the same pages, built eagerly."""
    from textual.app import App, ComposeResult
    from textual.widgets import Tree

    result: dict = {}

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            root = Path(vault)
            tree: Tree[str] = Tree("wiki")
            folders: dict[str, object] = {"": tree.root}
            paths = sorted(
                p.relative_to(root).as_posix()
                for p in root.rglob("*.md")
                if not any(part.startswith(".") for part in p.relative_to(root).parts)
            )
            for rel in paths:
                parent = ""
                for part in rel.split("/")[:-1]:
                    key = f"{parent}/{part}" if parent else part
                    if key not in folders:
                        folders[key] = folders[parent].add(part)  # type: ignore[attr-defined]
                    parent = key
                folders[parent].add_leaf(rel.rsplit("/", 1)[-1])  # type: ignore[attr-defined]
            tree.root.expand()
            yield tree

    app = Bare()

    def painted() -> None:
        result["first_paint_at"] = time.time()
        app.set_timer(0.05, app.exit)  # exiting inside the first frame races the initial mount

    on_first_frame(app, lambda: bool(app.query(Tree)), painted)
    app.run(headless=True, size=SIZE)
    Path(out).write_text(json.dumps(result))


if __name__ == "__main__":
    kind, vault_arg, out_arg = sys.argv[1:4]
    {"wikitui": child_wikitui, "bare": child_bare}[kind](vault_arg, out_arg)
