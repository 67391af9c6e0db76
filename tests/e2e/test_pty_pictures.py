"""kitty's pictures in a real terminal: ``wikitui`` in a pseudo-terminal that says it is kitty, raw bytes read back.

Not tmux: tmux swallows the APC sequences (``ESC _G``) that carry the picture, so the
test reads what the program writes to its terminal, byte for byte.
"""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import sys
import termios
import threading
import time

from tests.e2e.test_tmux import WIKITUI
from tests.ui.test_pictures import make_picture

PLACEHOLDER = "\U0010eeee".encode()
PAGE = """---
title: Field Snaps
type: note
---

# Field Snaps

Photographed on the zebrasnap expedition:

![the coloured bands](../raw/bands.png)
"""


class PtyTerminal:
    """``command`` on a pseudo-terminal of ``size`` cells (10×20-pixel cells), its output collected."""

    def __init__(self, command: list[str], env: dict[str, str], size: tuple[int, int] = (120, 40)) -> None:
        self.master, slave = os.openpty()
        columns, rows = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, columns * 10, rows * 20))
        self.proc = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.output = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # the program exited and the terminal closed
                return
            if not data:
                return
            with self._lock:
                self.output.extend(data)

    def type(self, data: bytes) -> None:
        """Keys, as the terminal would send them."""
        os.write(self.master, data)

    def since(self, mark: int) -> bytes:
        """What was written from byte ``mark`` on."""
        with self._lock:
            return bytes(self.output[mark:])

    def wait_for(self, needle: bytes, mark: int = 0, timeout: float = 60.0) -> int:
        """Wait until ``needle`` is written (after ``mark``); returns where the output ends then."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if needle in self.output[mark:]:
                    return len(self.output)
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        tail = self.since(max(0, len(self.output) - 2000))
        raise AssertionError(f"{needle!r} was not written within {timeout}s; the last bytes were:\n{tail!r}")

    def close(self) -> None:
        """Ask the program to quit (ctrl+q), then end it."""
        try:
            self.type(b"\x11")
            self.proc.wait(timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(timeout=10)
        finally:
            os.close(self.master)


def _command(vault) -> list[str]:
    if WIKITUI.exists():
        return [str(WIKITUI), str(vault)]
    return [sys.executable, "-c", f"from wikitui.ui.app import run_app; run_app({str(vault)!r})"]


def _env(home) -> dict[str, str]:
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "xterm-kitty",  # what kitty sets, with COLORTERM
        "COLORTERM": "truecolor",
        "KITTY_WINDOW_ID": "1",
        "LANG": "C.UTF-8",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }


def search_typed_at_launch(vault, env: dict[str, str]) -> tuple[PtyTerminal, int]:
    """wikitui on ``vault`` (given a page embedding a picture) with ``/zebrasnap`` typed the instant it starts.

    Returns:
        The terminal (the caller closes it) and where its output stood once the search found the page.
    """
    make_picture(vault / "raw" / "bands.png")
    (vault / "wiki" / "field-snaps.md").write_text(PAGE, encoding="utf-8")
    term = PtyTerminal(_command(vault), env)
    try:
        term.type(b"/zebrasnap")  # the instant it starts: nothing may read these keys but the app
        term.wait_for(b"zebrasnap")  # every letter reached the search input...
        return term, term.wait_for(b"enter opens")  # ...and found the page (a lost letter finds nothing)
    except BaseException:
        term.close()
        raise


def test_in_kitty_a_page_draws_its_picture_with_placeholders_and_keys_typed_at_launch_survive(
    sample_vault, isolated_home
):
    term, mark = search_typed_at_launch(sample_vault, _env(isolated_home))
    try:
        term.type(b"\r")
        end = term.wait_for(PLACEHOLDER, mark)
        shown = term.since(mark)
        sent = shown.find(b"\x1b_Ga=t,f=100,")
        assert sent >= 0, "the picture's data was not sent"
        assert b"\x1b_Ga=p,U=1," in shown  # its virtual placement
        assert sent < shown.find(PLACEHOLDER)  # sent before the first frame that shows it
        image_id = int(shown[sent:].split(b"i=", 1)[1].split(b",", 1)[0])
        colour = f"38;2;{(image_id >> 16) & 255};{(image_id >> 8) & 255};{image_id & 255}".encode()
        assert colour in shown  # the placeholder cells name the picture by their colour
        term.type(b"\x7f")  # backspace: back to the page shown before
        term.wait_for(f"\x1b_Ga=d,d=I,i={image_id},q=2\x1b\\".encode(), end)
    finally:
        term.close()
    everything = bytes(term.output)
    assert b"a=q" not in everything  # kitty's protocol was never queried...
    assert b"\x1b[16t" not in everything  # ...nor the cell size: no answer could eat a typed key
