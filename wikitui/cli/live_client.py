"""``wikitui search`` asks the running workspace first (DESIGN §10 "a fast CLI"; :mod:`wikitui.core.live.server`).

A workspace that keeps ``.wikitui/live`` fresh and names a socket there holds the
index open and warm: asking it costs a connection instead of reading posting
lists in a new process. Anything unexpected (no socket, a stale one, a timeout,
a reply that is not a version-1 answer) returns None and the caller searches as
it always did; nothing is printed. Only the standard library is imported here.
"""

from __future__ import annotations

import json
import os

#: The protocol version spoken (:data:`wikitui.core.live.server.PROTOCOL`).
PROTOCOL = 1
#: Seconds for the whole exchange (connecting, asking, the whole reply): a total deadline, not one per read,
#: so a socket that trickles its reply a byte at a time is given up on in time too.
TIMEOUT_S = 2.0
#: Largest reply read (a huge --limit); a longer one is given up on.
MAX_REPLY = 256 * 1024 * 1024

_HIT_TYPES = {"path": str, "kind": str, "title": str, "score": float, "snippet": str}


def ask(root: str, query: str, scope: str, limit: int) -> tuple[list[dict], list[str]] | None:
    """The running workspace's answer for this search: (hits as dicts, notes), or None to search here.

    Args:
        root: The vault folder as given (resolved here as the vault resolves it).
    """
    sock_path = _socket_path(root)
    if sock_path is None:
        return None
    request = json.dumps({"v": PROTOCOL, "query": query, "scope": scope, "limit": limit}) + "\n"
    try:
        raw = _exchange(sock_path, request.encode("ascii"))  # ensure_ascii: argv's surrogates go escaped
        reply = json.loads(raw) if raw else None
    except (ImportError, AttributeError, OSError, ValueError, RecursionError):  # no AF_UNIX here: search here
        return None
    return _checked(reply)


#: The journal an interrupted apply leaves (:data:`wikitui.core.changes.journal.JOURNAL_NAME`, not imported: ~10 ms).
JOURNAL_NAME = "journal.json"


def _socket_path(root: str) -> str | None:
    from wikitui.core.live import heartbeat

    state = os.path.join(os.path.realpath(os.path.expanduser(root)), ".wikitui")
    if os.path.exists(os.path.join(state, JOURNAL_NAME)):
        return None  # an apply was interrupted: the command recovers it, then searches itself
    try:
        with open(os.path.join(state, heartbeat.LIVE_FILE), "rb") as fh:
            info = json.loads(fh.read(65536))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(info, dict) or not isinstance(info.get("sock"), str) or not heartbeat.fresh(info):
        return None
    try:  # a socket of ours, not one another user (or a synced live file) points at
        st = os.stat(info["sock"])
    except (OSError, ValueError):
        return None
    if st.st_uid != getattr(os, "getuid", lambda: st.st_uid)() or (st.st_mode & 0o170000) != 0o140000:
        return None
    return info["sock"]


def _exchange(path: str, request: bytes) -> bytes | None:
    import socket
    from time import monotonic

    deadline = monotonic() + TIMEOUT_S
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(TIMEOUT_S)
        sock.connect(path)
        sock.settimeout(_left(deadline, monotonic()))
        sock.sendall(request)
        chunks, size = [], 0
        while True:
            sock.settimeout(_left(deadline, monotonic()))  # each read gets what is left of the deadline
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_REPLY:
                return None
    finally:
        sock.close()
    return b"".join(chunks)


def _left(deadline: float, now: float) -> float:
    """Seconds left before ``deadline``; TimeoutError (an OSError: search here) once it has passed."""
    if now >= deadline:
        raise TimeoutError("the running workspace did not answer in time")
    return deadline - now


def _checked(reply: object) -> tuple[list[dict], list[str]] | None:
    """The reply's hits and notes when it is a well-formed answer, else None."""
    if not isinstance(reply, dict) or reply.get("v") != PROTOCOL or reply.get("ok") is not True:
        return None
    hits, notes = reply.get("hits"), reply.get("notes")
    if not isinstance(hits, list) or not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        return None
    for hit in hits:
        if not isinstance(hit, dict):
            return None
        if not all(isinstance(hit.get(k), t) for k, t in _HIT_TYPES.items()):
            return None
        line = hit.get("line")
        if line is not None and (not isinstance(line, int) or isinstance(line, bool)):
            return None
    return hits, notes
