"""The fake OpenAI-compatible server in a process of its own, as a real model server runs (for the benchmark).

In the same process the server's thread competes with the client for the GIL, which
inflates the time between rounds; measured from another process, the gap is what a
local model server would see. ``python -m tests.fakeserver_process`` serves until
killed and prints its port first.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

from tests.fakereplies import Reply
from tests.fakeserver import FakeLLM


class RemoteFakeLLM:
    """A :class:`FakeLLM` in a process of its own. Scripts go over a control route (pickled replies;
    :class:`Dynamic` cannot be sent), the timeline and requests come back as JSON.
    ``time.perf_counter`` is the system's monotonic clock on Linux, so the child's
    timestamps compare with the parent's.
    """

    def __init__(self) -> None:
        self._proc = subprocess.Popen([sys.executable, "-m", "tests.fakeserver_process"], stdout=subprocess.PIPE,
                                      text=True, cwd=str(Path(__file__).resolve().parents[1]))
        line = self._proc.stdout.readline() if self._proc.stdout else ""
        self.port = int(line.strip())
        self.api_base = f"http://127.0.0.1:{self.port}/v1"

    def _call(self, method: str, path: str, body: bytes | None = None) -> Any:
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=body, method=method)
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def script(self, *replies: Reply) -> "RemoteFakeLLM":
        """Append replies to the child's script."""
        self._call("POST", "/_control/script", pickle.dumps(list(replies)))
        return self

    def state(self) -> dict:
        """``{"timeline": [...], "requests": [...], "remaining": n}`` from the child."""
        return self._call("GET", "/_control/state")

    def stop(self) -> None:
        """End the child process."""
        self._proc.terminate()
        self._proc.wait(timeout=10)


def _serve_main() -> None:
    """``python -m tests.fakeserver_process``: serve until killed; the first line of stdout is the port."""
    fake = FakeLLM().start()
    print(fake.port, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    # Through the importable module, so pickled replies and this server share their classes.
    from tests.fakeserver_process import _serve_main as main

    main()
