"""Picture support (textual-image, numpy through its sixel module) loads after the first screen, not before it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Runs `wikitui VAULT` with Textual's run replaced: it reports what was imported when the app was about to start.
_LAUNCH = """
import json, sys
from textual.app import App
seen = {}
def run(app, *args, **kwargs):
    seen["textual_image"] = "textual_image.widget" in sys.modules
    seen["numpy"] = "numpy" in sys.modules
App.run = run
from wikitui.cli import main
main([sys.argv[1]])
print(json.dumps(seen))
"""


def _launch(vault: Path, home: Path, **env: str) -> dict:
    environ = {k: v for k, v in os.environ.items() if k != "WIKITUI_PICTURES"}
    environ.update(HOME=str(home), PYTHONPATH=str(ROOT), TERM="xterm-256color", **env)
    out = subprocess.run([sys.executable, "-c", _LAUNCH, str(vault)], capture_output=True, text=True,
                         env=environ, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_workspace_starts_without_loading_picture_support(tmp_path):
    vault = shutil.copytree(ROOT / "sample", tmp_path / "vault")
    assert _launch(vault, tmp_path / "home") == {"textual_image": False, "numpy": False}


def test_auto_still_lets_textual_image_ask_the_terminal_before_the_app_takes_it(tmp_path):
    vault = shutil.copytree(ROOT / "sample", tmp_path / "vault")
    assert _launch(vault, tmp_path / "home", WIKITUI_PICTURES="auto")["textual_image"] is True


async def test_once_the_first_page_is_shown_picture_support_loads_in_a_worker(sample_vault, monkeypatch):
    import threading

    from tests.ui.workspace_helpers import wait_for, workspace
    from wikitui.ui.widgets import picture

    calls: list[tuple[str | None, bool]] = []
    app = workspace(sample_vault, watch=False, index=False)

    def prepare() -> None:  # what the worker calls: it records what was on the screen by then, and its thread
        calls.append((app.main.current_path, threading.current_thread() is threading.main_thread()))

    monkeypatch.setattr(picture, "prepare_terminal", prepare)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: calls, "picture support to load", timeout=20)
        assert calls == [(app.main.current_path, False)]  # after the first page, off the UI thread
        assert calls[0][0] is not None
