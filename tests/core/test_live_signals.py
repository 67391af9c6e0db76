"""``heartbeat.clean_up_on_signals``: the cleanup runs, then the signal does what it did before (issue 21 §15).

The real terminal case (the workspace on a pty, SIGHUP and SIGTERM) is tests/e2e/test_pty_hangup.py.
"""

from __future__ import annotations

import os
import signal

from wikitui.core.live import heartbeat


def test_a_handler_that_was_there_still_runs_after_the_cleanup_and_comes_back():
    calls: list[str] = []
    before = signal.signal(signal.SIGTERM, lambda *_: calls.append("theirs"))
    try:
        restore = heartbeat.clean_up_on_signals(lambda: calls.append("cleanup"))
        os.kill(os.getpid(), signal.SIGTERM)
        assert calls == ["cleanup", "theirs"]
        restore()
        os.kill(os.getpid(), signal.SIGTERM)  # their handler alone again
        assert calls == ["cleanup", "theirs", "theirs"]
    finally:
        signal.signal(signal.SIGTERM, before)


def test_under_nohup_a_hangup_stays_ignored_and_the_live_file_stays():
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        restore = heartbeat.clean_up_on_signals(lambda: None)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        restore()
    finally:
        signal.signal(signal.SIGHUP, before)
