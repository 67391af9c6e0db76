"""``.wikitui/live``: a running workspace says it keeps the search index current (DESIGN §10 "a fast CLI").

A workspace whose index is current and whose watcher follows the vault (the TUI)
writes ``{"pid", "heartbeat", "started"}`` (and ``"sock"``, where it answers
searches itself: :mod:`wikitui.core.live.server`) here and rewrites the heartbeat every
:data:`BEAT_S` seconds; it removes the file when it ends. ``wikitui search`` then
trusts that watcher and skips its own walk of the vault. The file is only a hint:
it is stale, and ignored, when its process is gone or its heartbeat is older than
:data:`STALE_S` (a crash, a frozen machine, a laptop that slept), and then
``search`` scans as it always did. Nothing else depends on it.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

    from wikitui.core.vault.layout import Vault

LIVE_FILE = "live"
#: Seconds between heartbeats.
BEAT_S = 5.0
#: A heartbeat older than this is stale (several missed beats: the process is hung or the machine slept).
STALE_S = 30.0


def _path(vault: Vault):
    return vault.state_dir / LIVE_FILE


def beat(vault: Vault, started: float | None = None, sock: str | None = None) -> None:
    """Write (or refresh) this process's live file. A failure is ignored: the file is only a hint.

    Args:
        vault: The vault.
        started: When this process started keeping the index (default: now); pass the same
            value on every beat, so the file says how long the workspace has kept it.
        sock: The Unix socket this process answers searches on (:mod:`wikitui.core.live.server`), if any.
    """
    from wikitui.core.vault.statedir import ensure_state_dir

    now = time.time()
    info: dict[str, object] = {"pid": os.getpid(), "heartbeat": now, "started": started or now}
    if sock is not None:
        info["sock"] = sock
    data = json.dumps(info).encode()
    path = _path(vault)
    tmp = path.with_name(f".{LIVE_FILE}.{os.getpid()}.tmp")
    try:
        ensure_state_dir(vault)
        tmp.write_bytes(data)  # no fsync: after a crash the file is stale anyway
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def clean_up_on_signals(cleanup: Callable[[], None]) -> Callable[[], None]:
    """Run ``cleanup`` before this process dies of SIGHUP (its terminal closed) or SIGTERM; returns an undo.

    Python's default for both signals ends the process at once, with no ``finally``
    and no unmount, so the live file and its socket would stay behind. The handler
    runs ``cleanup``, puts the previous handler back and delivers the signal again:
    the process still ends as it would have, by that signal. Only the main thread
    may set handlers; elsewhere (and where a signal does not exist) this does nothing.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous: dict[int, object] = {}

    def handler(signum: int, frame) -> None:
        try:
            cleanup()
        finally:
            restore()
            old = previous.get(signum)
            if callable(old):  # someone else's handler: it decides what happens next
                old(signum, frame)
            else:  # the default disposition, back in place: deliver the signal again
                os.kill(os.getpid(), signum)

    def restore() -> None:
        for signum, old in previous.items():
            try:
                signal.signal(signum, old)  # type: ignore[arg-type]
            except (ValueError, OSError, TypeError):
                pass

    for name in ("SIGHUP", "SIGTERM"):
        signum = getattr(signal, name, None)
        if signum is None or signal.getsignal(signum) is signal.SIG_IGN:  # `nohup`: the process outlives it
            continue
        try:
            previous[signum] = signal.signal(signum, handler)
        except (ValueError, OSError):
            continue
    return restore


def release(vault: Vault) -> None:
    """Remove the live file if this process wrote it (another workspace's stays)."""
    info = read(vault)
    if info is not None and info.get("pid") == os.getpid():
        try:
            _path(vault).unlink()
        except OSError:
            pass


def read(vault: Vault) -> dict | None:
    """The live file's contents, or None when there is none or it does not parse."""
    try:
        data = json.loads(_path(vault).read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_live(vault: Vault, now: float | None = None) -> bool:
    """Whether a workspace runs on ``vault`` and keeps its index current (a fresh heartbeat from a live process)."""
    info = read(vault)
    return info is not None and fresh(info, now)


def fresh(info: dict, now: float | None = None) -> bool:
    """Whether a live file's contents come from a live process with a recent heartbeat."""
    pid, heartbeat = info.get("pid"), info.get("heartbeat")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0 or not isinstance(heartbeat, (int, float)):
        return False
    age = (time.time() if now is None else now) - heartbeat
    if not -STALE_S < age < STALE_S:  # old, or from a clock far ahead
        return False
    return _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    except (OSError, OverflowError):
        return False
    return True
