"""End to end in a real terminal: tmux runs ``wikitui`` on a copy of the sample vault, keys go in, the screen and disk are read.

The model is the fake OpenAI-compatible server, started here and reached through
``WIKITUI_MODEL`` / ``WIKITUI_API_BASE`` / ``OPENAI_API_KEY``, exactly as a user points
wikitui at a local server. HOME and the XDG folders are temp dirs.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.fakeserver import FAKE_API_KEY, FAKE_MODEL, FakeLLM, text, tool_call, tool_calls

ROOT = Path(__file__).resolve().parents[2]
WIKITUI = Path(sys.executable).with_name("wikitui")
RABBIT = "wiki/characters/white-rabbit.md"
ALICE = "wiki/characters/alice.md"
CURIOSITY = "wiki/themes/curiosity.md"
RABBIT_OLD = "A white rabbit with pink eyes"
RABBIT_NEW = "A white rabbit with pink eyes, forever late and forever [[Curiosity|tempting]],"
ALICE_OLD = "The heroine of the book"
ALICE_NEW = "The seven-year-old heroine of the book"
CURIOSITY_PAGE = ("---\ntitle: Curiosity\ntype: theme\nsummary: What sends Alice down the hole, and on.\n"
                  "sources: [raw/chapter-01.md]\n---\n# Curiosity\n\n\"Burning with curiosity\", [[Alice]] follows "
                  "the [[White Rabbit]] down the hole.\n")

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Terminal:
    """A tmux session on its own server socket (nothing shared with the user's tmux)."""

    def __init__(self, width: int = 160, height: int = 48) -> None:
        self.socket = f"wikitui-test-{uuid.uuid4().hex[:8]}"
        self.width, self.height = width, height

    def tmux(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args],
                             capture_output=True, text=True, timeout=20)
        if out.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout

    def start(self, command: str) -> None:
        self.tmux("new-session", "-d", "-s", "wt", "-x", str(self.width), "-y", str(self.height), command)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "wt", *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "wt", "-l", text)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-t", "wt", "-p")

    def title_style(self, title: str) -> str:
        """The escape sequences just before a pane's title (its colour shows whether it has the focus)."""
        first = self.tmux("capture-pane", "-t", "wt", "-p", "-e").splitlines()[0]
        before = first.split(f" {title} ")[0]
        return before[before.rfind("─") + 1 :]

    def wait_until(self, predicate, what: str, timeout: float = 30.0) -> None:
        """Poll until ``predicate()`` holds; fails with the last screen after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not within {timeout}s; the screen:\n{self.screen()}")
            time.sleep(0.05)  # polling a separate process: there is no event to wait on

    def wait_for(self, needle: str, timeout: float = 60.0) -> str:
        """The screen once it shows ``needle``; fails with the last screen after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if needle in screen:
                return screen
            time.sleep(0.1)  # polling a separate process: there is no event to wait on
        raise AssertionError(f"{needle!r} did not appear within {timeout}s; the screen:\n{screen}")

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=20)


@pytest.fixture
def fake():
    server = FakeLLM().start()
    yield server
    server.stop()


def test_ingest_in_a_real_terminal(fake, sample_vault, isolated_home):
    fake.script(
        tool_call("read", path="raw/chapter-01.md"),
        text("## Plan\n\n- Sharpen [[White Rabbit]] and [[Alice]].\n- A new page, [[Curiosity]].\n"),
        tool_calls(
            ("propose_edit", {"path": RABBIT, "edits": [{"old": RABBIT_OLD, "new": RABBIT_NEW}], "reason": "hurry"}),
            ("propose_page", {"path": CURIOSITY, "content": CURIOSITY_PAGE, "reason": "a theme with no page"}),
            ("propose_edit", {"path": ALICE, "edits": [{"old": ALICE_OLD, "new": ALICE_NEW}], "reason": "her age"}),
        ),
        text("Proposed three changes."),
    )
    alice_before = (sample_vault / ALICE).read_text(encoding="utf-8")
    env = {
        "HOME": str(isolated_home),
        "XDG_CONFIG_HOME": str(isolated_home / ".config"),
        "XDG_DATA_HOME": str(isolated_home / ".local/share"),
        "XDG_CACHE_HOME": str(isolated_home / ".cache"),
        "XDG_STATE_HOME": str(isolated_home / ".local/state"),
        "WIKITUI_MODEL": FAKE_MODEL,
        "WIKITUI_API_BASE": fake.api_base,
        "OPENAI_API_KEY": FAKE_API_KEY,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PATH": os.environ.get("PATH", ""),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
    }
    command = "env -i " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    command += f" {shlex.quote(str(WIKITUI))} {shlex.quote(str(sample_vault))}"
    term = Terminal()
    term.start(command)
    try:
        term.wait_for("59 pages", timeout=30)  # the link graph is loaded
        unfocused = term.title_style("Agent")
        term.keys("F5")
        # Keys typed before the focus moved would go to the page pane: wait for the pane to light up.
        term.wait_until(lambda: term.title_style("Agent") != unfocused, "f5 focuses the agent pane")
        term.type("/ingest raw/chapter-01.md")
        term.wait_for("│▌ /ingest raw/chapter-01.md")  # typed into the agent's input
        term.keys("Enter")
        screen = term.wait_for("Plan ready")
        assert "read raw/chapter-01.md" in screen
        term.type("/go")
        term.keys("Enter")
        screen = term.wait_for("ctrl+r review")
        assert "3 files changed" in screen
        term.keys("C-r")
        term.wait_for("5 hunks")  # each edited page also proposes its `updated:` date, a hunk of its own
        term.keys("a")
        term.wait_for("1 accepted")
        term.keys("a")
        term.wait_for("2 accepted")
        term.keys("a")
        term.wait_for("3 accepted")
        term.keys("R")  # the rest of Alice's page: her date and her age
        term.wait_for("2 rejected")
        term.keys("Enter")
        term.wait_for("Applied 3 hunks")
        term.wait_for("/undo")  # the notice's end: a capture can land while the terminal is still drawing it

        assert RABBIT_NEW in (sample_vault / RABBIT).read_text(encoding="utf-8")
        assert (sample_vault / CURIOSITY).read_text(encoding="utf-8") == CURIOSITY_PAGE
        assert (sample_vault / ALICE).read_text(encoding="utf-8") == alice_before
        log = (sample_vault / "wiki" / "log.md").read_text(encoding="utf-8")
        assert "ingest | CHAPTER I. Down the Rabbit-Hole\n" in log.split("\n## ")[-1]  # the source's title
        assert "[[Curiosity]]" in (sample_vault / "wiki" / "index.md").read_text(encoding="utf-8")
        # Nothing of the key reached the vault (transcripts and pending state included).
        for path in sample_vault.rglob("*"):
            if path.is_file():
                assert FAKE_API_KEY not in path.read_text(encoding="utf-8", errors="replace"), path
        term.keys("C-q")
    finally:
        term.kill()
