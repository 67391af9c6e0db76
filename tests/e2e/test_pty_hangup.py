"""Closing the terminal (SIGHUP) or a kill (SIGTERM) leaves no ``.wikitui/live`` and no socket (issue 21 §15).

The real command on a pseudo-terminal: the workspace builds its index, claims the
live file and answers on its socket; the signal then ends it before any unmount
runs, so only a handler can clean up. The live file's ``started`` is the real start,
not a copy of each heartbeat.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

import pytest

from tests.e2e.test_pty_pictures import PtyTerminal


def _env(home) -> dict[str, str]:
    env = {
        "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local/state"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def _live(vault) -> dict | None:
    try:
        return json.loads((vault / ".wikitui" / "live").read_bytes())
    except (OSError, ValueError):
        return None


def _wait(what, check, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"no {what} within {timeout}s")


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM], ids=["SIGHUP", "SIGTERM"])
def test_a_closed_terminal_leaves_no_live_file_or_socket_and_started_is_the_real_start(
        signum, sample_vault, isolated_home):
    term = PtyTerminal([sys.executable, "-m", "wikitui", str(sample_vault)], _env(isolated_home))
    try:
        first = _wait("live file with a socket", lambda: (info := _live(sample_vault)) and "sock" in info and info)
        assert os.path.exists(first["sock"])
        if signum == signal.SIGHUP:
            later = _wait("second heartbeat", lambda: (info := _live(sample_vault)) and
                          info["heartbeat"] > first["heartbeat"] and info, timeout=30)
            assert later["started"] == first["started"] < later["heartbeat"]
        term.proc.send_signal(signum)
        assert term.proc.wait(timeout=30) == -signum  # it still ends by the signal
        assert not (sample_vault / ".wikitui" / "live").exists()
        assert not os.path.exists(first["sock"])
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
            term.proc.wait(timeout=10)
        os.close(term.master)
