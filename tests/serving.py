"""Test HTTP servers served from a thread, with a shutdown that answers at once.

``socketserver``'s ``shutdown()`` waits for the serve loop's next poll, every 0.5 s by
default: half a second in the teardown of every test with a fake server (377 teardowns of
0.1 s or more, 157 s of the suite's time, were measured before this).
"""

from __future__ import annotations

import socketserver
import threading

#: How often the serve loop looks for a shutdown (seconds).
POLL_INTERVAL = 0.01


def serve_in_thread(server: socketserver.BaseServer, *, name: str | None = None) -> threading.Thread:
    """Start serving ``server`` in a daemon thread; ``server.shutdown()`` then returns within a poll."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL},
                              name=name, daemon=True)
    thread.start()
    return thread
