"""End to end in a real terminal: tmux runs ``wikitui`` on a copy of the sample vault and we type at it.

Skipped (with the reason) only when tmux is not installed; CI installs it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (CI installs it)")

#: The console script installed beside the interpreter running the tests.
WIKITUI = Path(sys.executable).with_name("wikitui")


class Terminal:
    """A detached tmux session of a fixed size running one command."""

    def __init__(self, command: str, env: dict[str, str], size: tuple[int, int] = (120, 40)) -> None:
        self.name = f"wikitui-e2e-{uuid.uuid4().hex[:8]}"
        # A private server socket: the test never touches the user's tmux sessions.
        self.socket = f"wikitui-e2e-{uuid.uuid4().hex[:8]}"
        self.env = env
        width, height = size
        self._tmux("new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), command)

    def _tmux(self, *args: str) -> str:
        out = subprocess.run([TMUX, "-L", self.socket, *args], env=self.env, capture_output=True, text=True, timeout=10)
        return out.stdout

    def send(self, *keys: str) -> None:
        """Send tmux key names (``C-p``, ``Enter``, ``BSpace``) or literal text."""
        self._tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        """Type literal text."""
        self._tmux("send-keys", "-t", self.name, "-l", text)

    def screen(self) -> str:
        """The visible screen, as text."""
        return self._tmux("capture-pane", "-p", "-t", self.name)

    def wait_for(self, needle: str, timeout: float = 20.0) -> str:
        """Wait until ``needle`` is on screen; returns the screen."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if needle in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{needle!r} did not appear within {timeout}s; the screen was:\n{screen}")

    def close(self) -> None:
        """Kill the session and its server."""
        self._tmux("kill-server")


@pytest.fixture
def terminal(sample_vault, isolated_home):
    env = {
        "HOME": str(isolated_home),
        "XDG_CONFIG_HOME": str(isolated_home / ".config"),
        "XDG_DATA_HOME": str(isolated_home / ".local/share"),
        "XDG_CACHE_HOME": str(isolated_home / ".cache"),
        "XDG_STATE_HOME": str(isolated_home / ".local/state"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    if WIKITUI.exists():
        command = f"{WIKITUI} {sample_vault}"
    else:  # an environment without the console script installed
        command = f"{sys.executable} -c 'from wikitui.ui.app import run_app; run_app(\"{sample_vault}\")'"
    term = Terminal(command, env)
    try:
        yield term
    finally:
        term.close()


def test_switch_follow_and_come_back_in_a_real_terminal(terminal):
    screen = terminal.wait_for("search ready")
    assert "Sources" in screen and "Wiki" in screen and "Agent" in screen
    assert "Index" in screen

    # Quick switcher: ctrl+p, part of a title, enter.
    terminal.send("C-p")
    terminal.wait_for("Search for commands")
    terminal.type("cheshire")
    terminal.wait_for("Cheshire Cat")
    terminal.send("Enter")
    screen = terminal.wait_for("Cheshire Cat · entity")
    assert "grinning" in screen

    # tab selects the first link (the border names its page), enter follows it.
    terminal.send("Tab")
    screen = terminal.wait_for("╰─ → ")
    found = re.search(r"╰─ → (.+?)(?: › .+?)?  ", screen)
    assert found, screen
    target = found.group(1)
    terminal.send("Enter")
    screen = terminal.wait_for(f"{target} · ")

    # backspace goes back.
    terminal.send("BSpace")
    terminal.wait_for("Cheshire Cat · entity")
