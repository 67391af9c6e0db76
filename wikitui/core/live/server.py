"""A running workspace answers ``wikitui search`` over a Unix socket (DESIGN §10 "a fast CLI").

The process that keeps ``.wikitui/live`` (the TUI, ``wikitui mcp``) holds the
index open and warm; a fresh ``wikitui search`` process would spend most of its
time reading the same posting lists again. So that process listens on a Unix
socket (mode 0600) and the CLI asks it first (:mod:`wikitui.cli.live_client`).

The protocol: one request per connection, one JSON line
``{"v": 1, "query", "scope", "limit"}``; one JSON reply, then the server closes:
``{"v": 1, "ok": true, "hits": [{"path", "kind", "title", "score", "snippet",
"line"}], "notes": [...]}`` or ``{"v": 1, "ok": false, "error": "..."}``. Any
error reply sends the CLI down its normal path, which then says what is wrong
(a bad query's message comes from the same code either way).

The socket lives at ``.wikitui/live-<pid>.sock``; a vault path too long for a
socket address puts it in a private temporary folder instead. Either way its
path goes in the live file (``"sock"``), which is how the CLI finds it. Each
connection is served in a thread of its own; searching the shared
:class:`~wikitui.core.search.facade.SearchIndex` is thread-safe alongside the
watcher's updates. Nothing here blocks the caller's thread.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.search.results import Hits
    from wikitui.core.vault.layout import Vault

#: The protocol's version; a reply of another version is ignored by the CLI.
PROTOCOL = 1
#: Longest request read (a query is bounded far below this by the parser's own limits).
MAX_REQUEST = 64 * 1024
#: Seconds a client may take to send its request.
CLIENT_TIMEOUT_S = 2.0
#: Longest socket path used in ``.wikitui/`` (sun_path: 108 bytes on Linux, 104 on macOS, with the NUL).
MAX_SOCKET_PATH = 100
#: Connections served at once; more wait for a free slot (a flood of idle clients cannot pile up threads).
MAX_CLIENTS = 8

Search = Callable[[str, str, int], "Hits"]


class NotReady(Exception):
    """The workspace cannot answer now (its index is not current): the CLI takes its normal path."""


def hit_row(hit) -> dict:
    """One hit as the reply (and ``search --json``, less ``line``) carries it."""
    return {**asdict(hit), "score": float(hit.score)}


class SearchServer:
    """Answers search requests on a Unix socket until :meth:`close`.

    Args:
        vault: The vault (the socket goes in its ``.wikitui/``).
        search: ``search(query, scope, limit)`` returning :class:`Hits`; raises
            :class:`NotReady` when it cannot answer now.
    """

    def __init__(self, vault: Vault, search: Search) -> None:
        self.vault = vault
        self._search = search
        #: Requests answered with hits (for tests and the bench: the CLI did ask here).
        self.answered = 0
        #: Requests answered with an error.
        self.refused = 0
        self.path: str | None = None
        self._sock: socket.socket | None = None
        self._private_dir: str | None = None
        self._slots = threading.BoundedSemaphore(MAX_CLIENTS)
        self._count_lock = threading.Lock()

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> str | None:
        """Listen and serve in a background thread; the socket's path, or None where sockets are unavailable."""
        if getattr(socket, "AF_UNIX", None) is None:
            return None
        try:
            self._sock = self._listen()
        except OSError:
            self._cleanup()
            return None
        threading.Thread(target=self._accept_loop, name="live search server", daemon=True).start()
        return self.path

    def _listen(self) -> socket.socket:
        from wikitui.core.vault.statedir import ensure_state_dir

        ensure_state_dir(self.vault)
        _remove_dead_sockets(self.vault.state_dir)
        path = str(self.vault.state_dir / f"live-{os.getpid()}.sock")
        if len(os.fsencode(path)) > MAX_SOCKET_PATH:
            import tempfile

            self._private_dir = tempfile.mkdtemp(prefix="wikitui-")  # mode 0700: nobody else reaches in
            path = os.path.join(self._private_dir, "live.sock")
        try:
            os.unlink(path)  # our own pid's leftover (a pid reused after a crash)
        except OSError:
            pass
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(path)
            self.path = path
            os.chmod(path, 0o600)  # before listen(): no one connects before the mode is set
            sock.listen(16)
        except OSError:
            sock.close()
            raise
        return sock

    def close(self) -> None:
        """Stop listening and remove the socket (requests being answered finish on their own)."""
        sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() below
            except OSError:
                pass
            sock.close()
        self._cleanup()

    def _cleanup(self) -> None:
        if self.path is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass
        if self._private_dir is not None:
            try:
                os.rmdir(self._private_dir)
            except OSError:
                pass
            self._private_dir = None

    # ------------------------------------------------------------------- serving
    def _accept_loop(self) -> None:
        while True:
            sock = self._sock
            if sock is None:
                return
            try:
                conn, _ = sock.accept()
            except OSError:
                if self._sock is None:
                    return
                time.sleep(0.1)  # out of file descriptors, say: no busy loop while it lasts
                continue
            self._slots.acquire()
            threading.Thread(target=self._serve, args=(conn,), name="live search request", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                # One deadline for the whole request: a client trickling bytes cannot hold a slot longer.
                deadline = time.monotonic() + CLIENT_TIMEOUT_S
                reply = self.answer(_read_request(conn, deadline))
                conn.settimeout(CLIENT_TIMEOUT_S)
                conn.sendall(reply)
                # Closing with unread bytes (a request cut at MAX_REQUEST) would reset the
                # connection and lose the reply: read what is left, within bounds, first.
                conn.shutdown(socket.SHUT_WR)
                _drain(conn, time.monotonic() + CLIENT_TIMEOUT_S)
        except OSError:
            pass  # the client went away: nothing to tell it
        finally:
            self._slots.release()

    def answer(self, raw: bytes | None) -> bytes:
        """The reply (a JSON line) to one request's bytes (None: too long or never finished)."""
        try:
            query, scope, limit = _parse(raw)
            hits = self._search(query, scope, limit)
            reply = {"v": PROTOCOL, "ok": True, "hits": [hit_row(h) for h in hits], "notes": list(hits.notes)}
            counter = "answered"
        except Exception as exc:  # a bad request, a bad query, an index not ready: the CLI goes its own way
            reply = {"v": PROTOCOL, "ok": False, "error": _describe(exc)}
            counter = "refused"
        with self._count_lock:
            setattr(self, counter, getattr(self, counter) + 1)
        return (json.dumps(reply) + "\n").encode("ascii")  # ensure_ascii: lone surrogates travel escaped


def serve_workspace(workspace) -> SearchServer:
    """A started server answering from ``workspace``'s index while it is current (its ``path`` None if none)."""
    def search(query: str, scope: str, limit: int) -> Hits:
        index = workspace.search_index  # None unless the index is current
        if index is None:
            raise NotReady("the index is not current")
        return index.search(query, scope=scope, limit=limit)

    server = SearchServer(workspace.vault, search)
    server.start()
    return server


class BadRequest(ValueError):
    """A request the protocol does not allow."""


def _read_request(conn: socket.socket, deadline: float) -> bytes | None:
    """The request line (without its newline), or None when it is too long or not finished by ``deadline``."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = _recv(conn, deadline)
        if chunk is None:
            return None
        if not chunk:
            break
        nl = chunk.find(b"\n")
        if nl >= 0:
            chunks.append(chunk[:nl])
            size += nl
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_REQUEST:
            return None
    return None if size > MAX_REQUEST else b"".join(chunks)


def _recv(conn: socket.socket, deadline: float) -> bytes | None:
    """The next bytes (b"" at the end), or None once ``deadline`` has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        return None
    conn.settimeout(left)
    try:
        return conn.recv(65536)
    except TimeoutError:
        return None


def _drain(conn: socket.socket, deadline: float, most: int = 16 * MAX_REQUEST) -> None:
    """Read and drop what the client still sends, until it closes, ``deadline``, or ``most`` bytes."""
    try:
        while most > 0 and (chunk := _recv(conn, deadline)):
            most -= len(chunk)
    except OSError:
        pass


def _parse(raw: bytes | None) -> tuple[str, str, int]:
    if raw is None:
        raise BadRequest(f"request over {MAX_REQUEST} bytes or unfinished")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise BadRequest(f"not a JSON request: {type(exc).__name__}") from None
    if not isinstance(data, dict) or data.get("v") != PROTOCOL:
        raise BadRequest(f"not a version {PROTOCOL} request")
    query, scope, limit = data.get("query"), data.get("scope"), data.get("limit")
    if not isinstance(query, str) or not isinstance(scope, str):
        raise BadRequest("query and scope must be strings")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
        raise BadRequest("limit must be a positive integer")
    return query, scope, limit


def _describe(exc: Exception) -> str:
    """A short, safe description (no request text echoed back at length)."""
    return f"{type(exc).__name__}: {str(exc)[:200]}"


def _remove_dead_sockets(state_dir) -> None:
    """Sockets left by workspaces that crashed (``live-<pid>.sock`` whose process is gone)."""
    from wikitui.core.live.heartbeat import _alive

    try:
        names = os.listdir(state_dir)
    except OSError:
        return
    for name in names:
        if not (name.startswith("live-") and name.endswith(".sock")):
            continue
        pid = name[5:-5]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            try:
                os.unlink(os.path.join(state_dir, name))
            except OSError:
                pass
