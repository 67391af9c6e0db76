"""A running workspace answers ``wikitui search`` over its socket (DESIGN §10 "a fast CLI").

A person keeps the TUI (or ``wikitui mcp``) open and runs ``wikitui search`` in
another terminal: the answer comes from the workspace's warm index, byte for
byte what the command prints on its own; and whatever goes wrong with the socket
(a dead one, garbage, a closed connection, another version), the command still
prints the right results by searching itself.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.cli import main
from wikitui.core.live import heartbeat
from wikitui.core.live.server import MAX_REQUEST, SearchServer, serve_workspace
from wikitui.core.search.results import Hits
from wikitui.core.workspace import Workspace

CASES = [
    ["alice", "--json"],
    ["alice"],
    ["rabbit", "--scope", "wiki", "--limit", "3"],
    ["\"white rabbit\"", "--json", "--scope", "all"],
    ["queen~", "--json"],
    ["zzznothingzzz"],
    ["tag:character", "--limit", "2"],
]


def cli(vault, *args: str) -> subprocess.CompletedProcess:
    """``wikitui search ARGS`` in a process of its own, as a script would run it."""
    return subprocess.run([sys.executable, "-m", "wikitui", "search", *args, "--vault", str(vault)],
                          capture_output=True, timeout=120)


@pytest.fixture
def vault(sample_vault, capsys):
    assert main(["index", "--vault", str(sample_vault)]) == 0
    capsys.readouterr()
    return sample_vault


def expected(vault, cases) -> list[tuple]:
    """What the command prints with no workspace running."""
    assert not (vault / ".wikitui/live").exists()
    return [_result(cli(vault, *case)) for case in cases]


def _result(proc: subprocess.CompletedProcess) -> tuple:
    return proc.returncode, proc.stdout, proc.stderr


def test_a_running_workspace_answers_search_byte_for_byte_as_the_command_would(vault):
    before = expected(vault, CASES)
    assert any(b"alice" in out.lower() for _, out, _ in before)  # real hits, not only "no matches"
    ws = Workspace.open(vault)
    ws.load_graph()
    ws.update_index()
    stop = threading.Event()
    keeper = threading.Thread(target=ws.keep_live, args=(stop,))
    keeper.start()
    try:
        deadline = time.monotonic() + 30
        while "sock" not in (heartbeat.read(ws.vault) or {}) and time.monotonic() < deadline:
            time.sleep(0.05)
        server = ws.live_server
        assert server is not None and server.path
        assert stat.S_IMODE(os.stat(server.path).st_mode) == 0o600
        during = [_result(cli(vault, *case)) for case in CASES]
        assert during == before
        assert server.answered == len(CASES)  # each one came through the socket
        assert server.refused == 0
        path = server.path
    finally:
        stop.set()
        keeper.join()
        ws.close()
    assert not os.path.exists(path)  # the socket goes with the workspace
    assert not (vault / ".wikitui/live").exists()
    assert [_result(cli(vault, *case)) for case in CASES[:2]] == before[:2]


def test_a_vault_path_too_long_for_a_socket_address_is_served_from_a_private_folder(tmp_path, sample_vault):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    long_vault = deep / "vault"
    sample_vault.rename(long_vault)
    assert main(["index", "--vault", str(long_vault)]) == 0
    before = _result(cli(long_vault, "alice", "--json"))
    ws = Workspace.open(long_vault)
    ws.update_index()
    server = serve_workspace(ws)
    try:
        assert server.path is not None and not server.path.startswith(str(long_vault))
        assert stat.S_IMODE(os.stat(os.path.dirname(server.path)).st_mode) == 0o700
        heartbeat.beat(ws.vault, sock=server.path)
        assert _result(cli(long_vault, "alice", "--json")) == before
        assert server.answered == 1
    finally:
        heartbeat.release(ws.vault)
        server.close()
        ws.close()
    assert not os.path.exists(os.path.dirname(server.path))


class FakeServer:
    """A socket that answers every connection with ``reply`` (None: closes without a word)."""

    def __init__(self, path: str, reply: bytes | None) -> None:
        self.connections = 0
        self.reply = reply
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(4)
        threading.Thread(target=self._loop, daemon=True).start()

    def _loop(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.recv(65536)
                if self.reply is not None:
                    conn.sendall(self.reply)

    def close(self) -> None:
        self.sock.close()


@pytest.mark.parametrize("reply", [
    b"garbage\x00\xff not json",
    None,
    b'{"v": 2, "ok": true, "hits": [], "notes": []}\n',
    b'{"v": 1, "ok": true, "hits": [{"path": 3}], "notes": []}\n',
    b'{"v": 1, "ok": true, "hits": [], "notes": []}',  # well-formed, but not the truth: see below
    b"[" * 100_000,
], ids=["garbage", "closed", "other version", "bad hit", "lying", "nested"])
def test_a_bad_socket_reply_falls_back_to_searching_here(vault, tmp_path, reply):
    before = expected(vault, CASES[:2])
    sock_path = str(tmp_path / "s.sock")
    fake = FakeServer(sock_path, reply)
    try:
        heartbeat.beat(Workspace.open(vault).vault, sock=sock_path)  # this test process is the live workspace
        during = [_result(cli(vault, *case)) for case in CASES[:2]]
    finally:
        fake.close()
        (vault / ".wikitui/live").unlink()
    assert fake.connections == 2  # the command did ask the socket
    if reply is not None and reply.startswith(b'{"v": 1, "ok": true, "hits": []'):
        # A well-formed answer is believed: the socket is the workspace's (mode 0600, named in its live file).
        assert during == [(0, b"[]\n", b""), (0, b"", b"No matches for 'alice'.\n")]
    else:
        assert during == before


@pytest.mark.parametrize("sock", ["missing", "left by a crash", "a plain file", "not a string"])
def test_a_dead_or_odd_socket_in_the_live_file_falls_back(vault, tmp_path, sock):
    before = expected(vault, CASES[:2])
    target = vault / ".wikitui/odd.sock"
    if sock == "a plain file":
        target.write_text("not a socket")
    elif sock == "left by a crash":  # the file is there, nobody listens: connecting is refused
        target = tmp_path / "dead.sock"
        dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        dead.bind(str(target))
        dead.close()
    heartbeat.beat(Workspace.open(vault).vault, sock=str(target) if sock != "not a string" else None)
    if sock == "not a string":
        info = json.loads((vault / ".wikitui/live").read_text())
        (vault / ".wikitui/live").write_text(json.dumps({**info, "sock": ["x"]}))
    try:
        assert [_result(cli(vault, *case)) for case in CASES[:2]] == before
    finally:
        (vault / ".wikitui/live").unlink()


def _ask(path: str, payload: bytes, shut: bool = True) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(path)
        try:
            s.sendall(payload)
            if shut:
                s.shutdown(socket.SHUT_WR)
        except OSError:  # the server stopped reading a huge request and answered already
            pass
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return json.loads(data)


HOSTILE = [
    b"x" * (MAX_REQUEST * 4),  # a huge line, no newline
    b"{not json\n",
    b"\xed\xa0\x80\xff\n",  # not UTF-8 (an encoded lone surrogate)
    b"[" * 100_000 + b"\n",
    b"]]]}}}" + b"\x00" * 10 + b"\n",
    b'"just a string"\n',
    b'{"v": 1, "query": "alice", "scope": "all", "limit": true}\n',
    b'{"v": 1, "query": "alice", "scope": "everything", "limit": 5}\n',
    b'{"v": 1, "query": ["alice"], "scope": "all", "limit": 5}\n',
    b'{"v": 99, "query": "alice", "scope": "all", "limit": 5}\n',
    b'{"v": 1, "query": "' + b"(" * 5000 + b'", "scope": "all", "limit": 5}\n',
    b"",
]


def test_hostile_requests_get_error_replies_and_the_server_keeps_serving(vault):
    ws = Workspace.open(vault)
    ws.update_index()
    server = serve_workspace(ws)
    good = b'{"v": 1, "query": "alice", "scope": "all", "limit": 3}\n'
    try:
        assert server.path is not None
        for payload in HOSTILE:
            reply = _ask(server.path, payload)
            assert reply["v"] == 1 and reply["ok"] is False and reply["error"], payload[:40]
            assert len(json.dumps(reply)) < 1000  # the request is never echoed back whole
        surrogate = _ask(server.path, b'{"v": 1, "query": "\\ud800 alice \\udfff", "scope": "all", "limit": 3}\n')
        assert surrogate["v"] == 1 and isinstance(surrogate["ok"], bool)
        idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        idle.connect(server.path)  # a client that never says a word does not hold the others up
        answer = _ask(server.path, good)
        assert answer["ok"] is True and answer["hits"][0]["path"].endswith(".md")
        assert _ask(server.path, good, shut=False) == answer  # the newline ends the request
        idle.close()
        # Every hostile request was refused (each reply checked above); the idle client is refused too once
        # it times out or closes, which depends on the machine's speed: counted as "at least".
        assert server.refused >= len(HOSTILE) + (not surrogate["ok"])
        assert server.answered == 2 + surrogate["ok"]  # the good request, twice, and the surrogate if it ran
    finally:
        server.close()
        ws.close()


def test_a_workspace_whose_index_is_not_current_refuses_so_the_command_searches_itself(vault):
    ws = Workspace.open(vault)
    ws.update_index()
    server = serve_workspace(ws)
    try:
        ws.turn_index_off()
        reply = _ask(server.path, b'{"v": 1, "query": "alice", "scope": "all", "limit": 3}\n')
        assert reply["ok"] is False and "not current" in reply["error"]
    finally:
        server.close()
        ws.close()


def test_where_unix_sockets_are_missing_the_server_quietly_does_not_start(vault, monkeypatch):
    monkeypatch.delattr(socket, "AF_UNIX")
    server = SearchServer(Workspace.open(vault).vault, lambda *a: [])
    assert server.start() is None
    server.close()


def test_the_workspace_answers_with_what_another_process_committed_since(vault):
    ws = Workspace.open(vault)
    ws.update_index()
    server = serve_workspace(ws)
    try:
        heartbeat.beat(ws.vault, sock=server.path)
        assert _result(cli(vault, "quokkaflux", "--json"))[1] == b"[]\n"  # the server's searcher is open now
        page = vault / "wiki/characters/dinah.md"
        page.write_text(page.read_text(encoding="utf-8") + "\nDinah once met a quokkaflux.\n", encoding="utf-8")
        indexed = subprocess.run([sys.executable, "-m", "wikitui", "index", "--vault", str(vault)],
                                 capture_output=True, timeout=120)
        assert indexed.returncode == 0, indexed.stderr
        during = _result(cli(vault, "quokkaflux", "--json"))
        assert server.answered == 2
    finally:
        heartbeat.release(ws.vault)
        server.close()
        ws.close()
    assert during == _result(cli(vault, "quokkaflux", "--json"))
    assert b"dinah.md" in during[1]


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=300), st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                              lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids,
                                                                                        max_size=4),
                              max_leaves=12).map(lambda v: json.dumps(v).encode()),
                 st.fixed_dictionaries({"v": st.sampled_from([1, 1, 2, "1"]), "query": st.text(max_size=30),
                                        "scope": st.sampled_from(["all", "wiki", "raw", 3]),
                                        "limit": st.integers(-2, 50) | st.booleans()}).map(
                     lambda v: json.dumps(v).encode())))
def test_any_request_bytes_get_one_json_reply_line(payload):
    asked: list[tuple] = []

    def search(query, scope, limit):
        asked.append((query, scope, limit))
        return Hits([], ["a note"])

    server = SearchServer(None, search)
    line = server.answer(payload.split(b"\n")[0])
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    reply = json.loads(line)
    assert reply["v"] == 1
    assert reply["ok"] is bool(asked)  # only a well-formed request reaches the index
    assert server.answered + server.refused == 1


def test_a_client_trickling_its_request_is_cut_off_at_the_deadline(vault):
    ws = Workspace.open(vault)
    ws.update_index()
    server = serve_workspace(ws)
    request = b'{"v": 1, "query": "alice", "scope": "all", "limit": 3}\n'
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(server.path)
            s.settimeout(10)
            for i in range(0, len(request), 8):  # the whole request, spread over ~3.5 s (the deadline is 2 s)
                try:
                    s.sendall(request[i:i + 8])
                except OSError:
                    break
                time.sleep(0.5)
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        reply = json.loads(data)
        assert reply["ok"] is False and "unfinished" in reply["error"]
        assert _ask(server.path, request)["ok"] is True  # and the server still serves
    finally:
        server.close()
        ws.close()


def test_a_socket_owned_by_another_user_is_not_asked(vault, tmp_path):
    before = expected(vault, CASES[:1])
    sock_path = str(tmp_path / "s.sock")
    fake = FakeServer(sock_path, b'{"v": 1, "ok": true, "hits": [], "notes": []}\n')
    try:
        try:
            os.chown(sock_path, os.getuid() + 1, -1)
        except (PermissionError, AttributeError):
            pytest.skip("only root can give a socket to another user here")
        heartbeat.beat(Workspace.open(vault).vault, sock=sock_path)
        during = [_result(cli(vault, *case)) for case in CASES[:1]]
    finally:
        fake.close()
        (vault / ".wikitui/live").unlink(missing_ok=True)
    assert fake.connections == 0
    assert during == before


def test_sockets_left_by_crashed_workspaces_are_removed_when_another_starts(vault):
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    crashed = vault / f".wikitui/live-{int(proc.stdout)}.sock"
    crashed.write_text("")
    alive = vault / f".wikitui/live-{os.getppid()}.sock"  # another workspace that still runs
    alive.write_text("")
    ws = Workspace.open(vault)
    server = serve_workspace(ws)
    try:
        assert not crashed.exists()
        assert alive.exists()
    finally:
        server.close()
        ws.close()


class TricklingServer:
    """A socket that answers each connection one byte every ``every`` seconds, until the client hangs up.

    The reply is a well-formed (lying) answer padded with leading blanks: a client
    that waited for all of it would believe it. It stops by itself once the reply is
    sent or the client is gone.
    """

    def __init__(self, path: str, every: float) -> None:
        self.every = every
        self.reply = b" " * 100 + b'{"v": 1, "ok": true, "hits": [], "notes": []}\n'
        self.sent = 0
        self.asked = False
        self.done = threading.Event()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(1)
        self.sock.settimeout(30)  # never a thread left waiting forever
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            self.done.set()
            return
        with conn:
            self.asked = bool(conn.recv(65536))
            try:
                for byte in self.reply:
                    conn.sendall(bytes([byte]))
                    self.sent += 1
                    if self.done.wait(self.every):
                        break
                    # The client hung up: the next send fails (or this peek sees the end).
                    conn.setblocking(False)
                    try:
                        if conn.recv(1, socket.MSG_PEEK) == b"":
                            break
                    except BlockingIOError:
                        pass
                    finally:
                        conn.setblocking(True)
            except OSError:
                pass
        self.done.set()

    def close(self) -> None:
        self.done.set()
        self.sock.close()


def test_a_socket_trickling_its_reply_is_given_up_on_at_the_total_deadline(vault, tmp_path, monkeypatch, capsys):
    from wikitui.cli import live_client

    assert main(["search", "alice", "--json", "--vault", str(vault)]) == 0
    cold = capsys.readouterr()
    monkeypatch.setattr(live_client, "TIMEOUT_S", 0.6)  # every read is well within it; the whole reply is not
    sock_path = str(tmp_path / "trickle.sock")
    server = TricklingServer(sock_path, every=0.1)
    try:
        heartbeat.beat(Workspace.open(vault).vault, sock=sock_path)
        assert main(["search", "alice", "--json", "--vault", str(vault)]) == 0
        warm = capsys.readouterr()
        assert server.done.wait(30)  # a safety net only: it stops once the command hung up
    finally:
        server.close()
        (vault / ".wikitui/live").unlink()
    assert server.asked and server.sent < len(server.reply)  # asked, then given up on before the end of the reply
    assert (warm.out, warm.err) == (cold.out, cold.err) and '"path"' in cold.out  # searched here instead
