"""A fake OpenAI-compatible server that replays scripted turns, for tests and benchmarks.

The agent's tests run the REAL litellm client against this server on 127.0.0.1, so the
whole path (request building, SSE parsing, tool-call assembly, retries, error mapping)
is exercised without a network or a paid model. A script is a list of replies served in
order, one per ``POST /v1/chat/completions``::

    fake_llm.script(
        tool_call("search", query="Cheshire Cat"),
        text("The Cat grins [[Cheshire Cat]]."),
    )

Every request body is recorded (``fake_llm.requests``) so a test can assert what was
sent. When the script runs out, the server answers HTTP 400 with a message saying so,
which the client reports as a model error at once (no retries): a test that forgot a
reply fails fast and clearly.

The server also plays the faults a real one shows (DESIGN §8): a stream cut off midway
(``cut_after``), one whose body ends properly but before its ``finish_reason`` and ``[DONE]``
(``ends_early``), a stream that stalls (``stall``), an empty 200, an HTML page, a plain
JSON completion where a stream was asked for, an answer ended by the output limit
(``finish="length"``), a hang past the client's timeout, and a context window it
enforces as llama.cpp does (``context_limit``, advertised in ``GET /v1/models``).
Each request's arrival and the moment its answer's last byte left are timestamped
(``timeline``) so a benchmark can measure the gap between rounds at the server
(``tests/fakeserver_process.py`` runs this server in a process of its own for that).
The replies are defined in ``tests/fakereplies.py`` and importable from here.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

#: The API key the fixture puts in the environment; nothing under a vault may contain it.
FAKE_API_KEY = "sk-test-SECRET123"
#: The model name the fixture configures (litellm's OpenAI-compatible provider).
FAKE_MODEL = "openai/fake-model"


from tests.serving import serve_in_thread
from tests.fakereplies import (  # noqa: F401 - the replies are part of this module's API
    Reply,
    Text,
    ToolCalls,
    HTTPError,
    Hang,
    Raw,
    PlainJSON,
    Dynamic,
    text,
    tool_call,
    tool_calls,
    malformed_tool_call,
    error,
    hang,
    cut,
    ends_early,
    stall,
    empty_ok,
    html_page,
    json_for_stream,
    hostile_calls,
)


# ----------------------------------------------------------------------------- server
class FakeLLM:
    """The server and its script. Use as the ``fake_llm`` fixture or start it by hand.

    Attributes:
        requests: Every chat request body received, parsed, in order.
        headers: The headers of each request, names lower-cased (same order).
        timeline: Per request, ``{"arrived": t, "finished": t}`` in ``time.perf_counter``
            seconds: when its body was read, and when the last byte of the answer left.
        model_entry: Extra fields of the model's entry in ``GET /v1/models``
            (``{"meta": {"n_ctx_train": 4096}}`` as llama.cpp, ``{"max_model_len": 8192}`` as vLLM).
        props: The body of ``GET /props`` (llama.cpp's server settings), or None for a 404.
        context_limit: Tokens of context the server accepts; a longer request gets llama.cpp's
            400 "exceeds the available context size" (None: no limit).
    """

    def __init__(self) -> None:
        self._script: deque[Reply] = deque()
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self.timeline: list[dict[str, float]] = []
        self.model_entry: dict[str, Any] = {}
        self.props: dict[str, Any] | None = None
        self.context_limit: int | None = None
        self.models_requests = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- script
    def script(self, *replies: Reply) -> "FakeLLM":
        """Append replies to the script."""
        with self._lock:
            self._script.extend(replies)
        return self

    @property
    def remaining(self) -> int:
        """Replies not yet served."""
        return len(self._script)

    def _next(self) -> Reply | None:
        with self._lock:
            return self._script.popleft() if self._script else None

    # -- lifecycle
    @property
    def port(self) -> int:
        """The port the server listens on."""
        assert self._server is not None
        return self._server.server_address[1]

    @property
    def api_base(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "FakeLLM":
        """Listen on a random port in a daemon thread."""
        fake = self

        class Handler(_Handler):
            server_fake = fake

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        self._thread = serve_in_thread(server, name="fake-llm")
        return self

    def stop(self) -> None:
        """Stop serving; hanging requests are released."""
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def count_tokens(self, body: dict) -> int:
        """The request's prompt tokens as the server counts them (litellm's counter, as the client's)."""
        from wikitui.core.agent.llm import load_litellm

        return int(load_litellm().token_counter(model=FAKE_MODEL, messages=body.get("messages", []),
                                                 tools=body.get("tools")))

    def gaps(self) -> list[float]:
        """Seconds from the end of each answer to the arrival of the next request."""
        t = self.timeline
        return [t[i + 1]["arrived"] - t[i]["finished"] for i in range(len(t) - 1)
                if t[i].get("finished") and t[i + 1].get("arrived")]

    def prompt_texts(self) -> list[str]:
        """Each request's messages as one JSON string (for 'was X sent?' assertions)."""
        return [json.dumps(r.get("messages", []), ensure_ascii=False) for r in self.requests]


class _Handler(BaseHTTPRequestHandler):
    server_fake: FakeLLM
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as model servers set it (asyncio's uvicorn for vLLM, Go's net/http for Ollama): with Nagle's
    # algorithm on, the stream's last small writes wait for the client's delayed ACK (~40 ms) in the kernel
    # after the server has marked the answer finished, which the benchmark would count as client time.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
        pass

    # -- helpers
    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        kind = {401: "invalid_request_error", 429: "rate_limit_exceeded", 404: "not_found"}.get(status, "server_error")
        self._json(status, {"error": {"message": message, "type": kind, "code": kind}}, headers)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        fake = self.server_fake
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == "/_control/state":  # for a server run in its own process (the benchmark)
            with fake._lock:
                self._json(200, {"timeline": fake.timeline, "requests": fake.requests, "remaining": len(fake._script)})
        elif path.endswith("/models"):
            fake.models_requests += 1
            entry = {"id": "fake-model", "object": "model", "owned_by": "fake", **fake.model_entry}
            self._json(200, {"object": "list", "data": [entry]})
        elif path.endswith("/props") and fake.props is not None:
            self._json(200, fake.props)
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:  # noqa: N802
        fake = self.server_fake
        length = int(self.headers.get("Content-Length", "0") or 0)
        raw = self.rfile.read(length)
        if self.path == "/_control/script":  # replies pickled by RemoteFakeLLM (a local test server only)
            import pickle

            fake.script(*pickle.loads(raw))
            self._json(200, {"remaining": fake.remaining})
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._error(404, f"no route {self.path}")
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._error(400, "request body is not JSON")
            return
        arrived = time.perf_counter()
        with fake._lock:
            fake.requests.append(body)
            fake.headers.append({k.lower(): v for k, v in self.headers.items()})
            slot = {"arrived": arrived}
            fake.timeline.append(slot)
        if fake.context_limit is not None:
            n = fake.count_tokens(body)
            if n > fake.context_limit:  # llama.cpp's answer, word for word
                self._json(400, {"error": {"code": 400, "message": "the request exceeds the available context "
                                           "size, try increasing it", "type": "exceed_context_size_error",
                                           "n_prompt_tokens": n, "n_ctx": fake.context_limit}})
                slot["finished"] = time.perf_counter()
                return
        reply = fake._next()
        try:
            self._serve(reply, body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout or a cancelled turn)
        slot["finished"] = time.perf_counter()

    def _serve(self, reply: Reply | None, body: dict) -> None:
        fake = self.server_fake
        if isinstance(reply, Dynamic):
            reply = reply.fn(body)
        if reply is None:
            self._error(400, "fake server: the script has no reply left for this request")
            return
        if isinstance(reply, Hang):
            fake._stop.wait(reply.seconds)
            if reply.then is None:
                self._error(504, "fake server: hung request released")
                return
            reply = reply.then
        if isinstance(reply, HTTPError):
            self._error(reply.status, reply.message, reply.headers)
            return
        if isinstance(reply, Raw):
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)
            return
        if isinstance(reply, PlainJSON):
            self._complete(reply.reply, body)
            return
        assert isinstance(reply, (Text, ToolCalls)), reply
        if body.get("stream"):
            self._stream(reply, body)
        else:
            self._complete(reply, body)

    # -- answers
    @staticmethod
    def _usage(reply: Text | ToolCalls, body: dict) -> dict:
        if reply.usage is not None:
            p, c = reply.usage
        else:
            p = max(1, len(json.dumps(body.get("messages", []))) // 4)
            out = reply.text if isinstance(reply, Text) else reply.text + json.dumps(reply.calls)
            c = max(1, len(out) // 4)
        return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}

    def _complete(self, reply: Text | ToolCalls, body: dict) -> None:
        n = next(self.server_fake._ids)
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        finish = reply.finish
        if isinstance(reply, ToolCalls):
            message["tool_calls"] = [
                {"id": f"call_{n}_{i}", "type": "function",
                 "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
                for i, (name, args) in enumerate(reply.calls)
            ]
        self._json(200, {
            "id": f"chatcmpl-{n}", "object": "chat.completion", "created": int(time.time()), "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": self._usage(reply, body),
        })

    def _stream(self, reply: Text | ToolCalls, body: dict) -> None:
        fake = self.server_fake
        n = next(fake._ids)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        held: list[str] = []  # events not yet written (``reply.batch`` of them go in one write)

        def chunk(delta: dict | None, finish: str | None = None, usage: dict | None = None) -> None:
            payload: dict[str, Any] = {
                "id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": "fake-model",
                "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            if usage is not None:
                payload["usage"] = usage
            held.append(f"data: {json.dumps(payload)}\n\n")
            if len(held) >= reply.batch:
                flush()

        def flush() -> None:
            if held:
                self._send("".join(held))
                held.clear()

        deltas: list[dict] = [{"content": reply.text[i : i + reply.chunk]}
                              for i in range(0, len(reply.text), reply.chunk)]
        if isinstance(reply, ToolCalls):
            for idx, (name, args) in enumerate(reply.calls):
                arg_text = args if isinstance(args, str) else json.dumps(args)
                deltas.append({"tool_calls": [{"index": idx, "id": f"call_{n}_{idx}", "type": "function",
                                               "function": {"name": name, "arguments": ""}}]})
                deltas += [{"tool_calls": [{"index": idx, "function": {"arguments": arg_text[i : i + reply.chunk]}}]}
                           for i in range(0, len(arg_text), reply.chunk)]
        chunk({"role": "assistant", "content": ""})
        for sent, delta in enumerate(deltas):
            if reply.cut_after is not None and sent >= reply.cut_after:
                flush()
                if reply.clean_end:  # the body ends as a body should, but the stream never did
                    self.close_connection = True
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                    return
                if reply.stall:
                    fake._stop.wait(reply.stall)
                self._drop()
                return
            if reply.delay and fake._stop.wait(reply.delay):
                return
            chunk(delta)
        chunk({}, reply.finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            chunk(None, usage=self._usage(reply, body))
        flush()
        self._send("data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        """Close the connection in the middle of a chunked body, as a crashed server or proxy does."""
        import socket

        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _send(self, text_: str) -> None:
        data = text_.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


# ---------------------------------------------------------------------------- fixture
@pytest.fixture
def fake_llm(monkeypatch):
    """A running fake server, with the environment pointing litellm at it."""
    fake = FakeLLM().start()
    monkeypatch.setenv("WIKITUI_MODEL", FAKE_MODEL)
    monkeypatch.setenv("WIKITUI_API_BASE", fake.api_base)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_API_KEY)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        yield fake
    finally:
        fake.stop()

