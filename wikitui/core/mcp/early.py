"""The first moments of ``wikitui mcp``: answering before the MCP SDK has loaded (DESIGN §10, issue 13 target).

Importing the official ``mcp`` SDK takes 1-2 s (it loads pydantic models for the
whole protocol, Starlette, uvicorn and an HTTP client, whatever the transport),
longer than a client should wait for its first tool answer. So the server reads
the first messages itself and answers the three a client starts with:

- ``initialize``, with the answer the SDK itself gave this protocol version last
  time (:class:`Handshake`, remembered in ``.wikitui/mcp-handshake.json`` per SDK
  and wikitui version). Without a remembered answer (the first run, a new SDK, a
  new protocol version) nothing is answered here: the SDK takes over at once;
- ``tools/list`` and ``tools/call``, from the :class:`~wikitui.core.mcp.session.McpSession`
  the SDK's handlers call too (the same tools, the same texts); and, as a client may
  ask them before its first tool call, ``ping`` and the resources (``resources/list``,
  ``resources/templates/list``, ``resources/read``), in the SDK's own JSON form.

Any other message, or anything that does not parse, goes to the SDK, which then
serves the rest of the session: the handshake is replayed to it (its answer to
the replay is dropped, and remembered), so it serves an initialised session as
if it had answered it itself. This module never imports ``mcp``.

Kept because it pays (issue 22: a trick stays where it saves a tenth of a wait a user sees):
``bench/mcp_server.py`` on 2026-12-02 (load 3.9-4.0, 2 shared cores, vault-large) timed a
session's start to its first ``search`` answer at 407 ms median (379-436) with this module
answering, and 1,557 ms on the first start on the vault, where nothing is remembered and the SDK
answers everything: about three quarters of the wait.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wikitui.core.mcp.session import McpSession

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import BinaryIO

    from wikitui.core.vault.layout import Vault

#: The file under ``.wikitui/`` that remembers the SDK's handshake answers.
HANDSHAKE_FILE = "mcp-handshake.json"


class Handshake:
    """The SDK's ``initialize`` answers by protocol version, for this SDK and wikitui version.

    Args:
        vault: The vault whose ``.wikitui/`` holds the file.
        sdk_version: The installed ``mcp`` SDK's version (answers of another version are ignored).
    """

    def __init__(self, vault: Vault, sdk_version: str) -> None:
        from wikitui import __version__

        self.vault = vault
        self.key = {"sdk": sdk_version, "wikitui": __version__}
        self.answers: dict[str, dict] = {}
        try:
            data = json.loads((vault.state_dir / HANDSHAKE_FILE).read_bytes())
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and data.get("key") == self.key and isinstance(data.get("answers"), dict):
            self.answers = {k: v for k, v in data["answers"].items() if isinstance(v, dict)}

    def answer(self, protocol_version: object) -> dict | None:
        """The remembered result for a client asking ``protocol_version`` (None: let the SDK answer)."""
        return self.answers.get(protocol_version) if isinstance(protocol_version, str) else None

    def remember(self, protocol_version: str, result: dict) -> None:
        """Keep the SDK's answer for next time. A failure is ignored: the file only saves time."""
        if self.answers.get(protocol_version) == result:
            return
        self.answers[protocol_version] = result
        from wikitui.core.vault.files import atomic_write
        from wikitui.core.vault.statedir import ensure_state_dir

        try:
            ensure_state_dir(self.vault)
            atomic_write(self.vault.state_dir / HANDSHAKE_FILE,
                         json.dumps({"key": self.key, "answers": self.answers}, ensure_ascii=False))
        except OSError:
            pass


@dataclass
class Early:
    """What happened before the SDK took over.

    Attributes:
        replay: The lines the SDK must read first (the handshake, when it was answered here).
        pending: The line that was not answered here, for the SDK (None: none).
        init_id: The ``initialize`` request's id (None when none came yet).
        init_version: The protocol version that request asked for.
        answered_init: Whether ``initialize`` was answered here (the SDK's answer to the replay is dropped).
        eof: The client hung up: there is nothing left to serve.
    """

    replay: list[bytes] = field(default_factory=list)
    pending: bytes | None = None
    init_id: object = None
    init_version: str = ""
    answered_init: bool = False
    eof: bool = False


def _send(out: BinaryIO, message: dict) -> None:
    # ASCII: a lone surrogate from hostile input is escaped, not an encoding error.
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def _request_id(message: dict) -> object:
    """The request's id when it is a valid JSON-RPC one (a string or an integer), else None."""
    mid = message.get("id")
    return mid if isinstance(mid, str) or (isinstance(mid, int) and not isinstance(mid, bool)) else None


#: JSON-RPC's "invalid params": what the SDK answers a resource that cannot be read with.
INVALID_PARAMS = -32602
_MARKDOWN = "text/markdown"


def resource_error(exc: Exception) -> str:
    """The message of the error a resource that cannot be read gets (the same early and from the SDK)."""
    message = str(exc)
    return message if message.startswith("error") else f"error: {message}"


def _resource_answer(session: McpSession, method: str, params: dict) -> dict | None:
    """The JSON-RPC answer (``result`` or ``error``) to a resource request, or None: the SDK answers it."""
    from wikitui.core.base.errors import WikituiError

    if params.get("cursor") is not None:
        return None  # nothing here pages; the SDK says so
    if method == "resources/list":
        return {"result": {"resources": [{"name": r["name"], "uri": r["uri"], "description": r["description"],
                                          "mimeType": _MARKDOWN} for r in session.resources()]}}
    if method == "resources/templates/list":
        return {"result": {"resourceTemplates": [
            {"name": t["name"], "uriTemplate": t["uri_template"], "description": t["description"],
             "mimeType": _MARKDOWN} for t in session.resource_templates()]}}
    uri = params.get("uri")
    if method != "resources/read" or not isinstance(uri, str) or not uri:
        return None
    try:
        text = session.read_resource(uri)
    except WikituiError as exc:
        return {"error": {"code": INVALID_PARAMS, "message": resource_error(exc)}}
    except Exception:  # noqa: BLE001 - anything unforeseen: the SDK's handler meets it and answers
        return None
    return {"result": {"contents": [{"uri": uri, "mimeType": _MARKDOWN, "text": text}]}}


def answer_early(session: McpSession, wire_in: BinaryIO, wire_out: BinaryIO, handshake: Handshake,
                 sdk_ready: Callable[[], bool], after_first_call: Callable[[], None] | None = None) -> Early:
    """Answer the session's first messages until one needs the SDK, or the SDK has loaded.

    Args:
        session: What is served.
        wire_in: The client's messages, one JSON-RPC message a line.
        wire_out: Where answers go.
        handshake: The remembered ``initialize`` answers.
        sdk_ready: Whether the SDK has loaded (checked before each message: it then serves it).
        after_first_call: Called once the first tool call is answered (to start loading the SDK).

    Returns:
        What the SDK needs to take over (or ``eof``).
    """
    early = Early()
    while True:
        if early.answered_init and sdk_ready():
            return early
        line = wire_in.readline()
        if not line:
            early.eof = True
            return early
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            message = None
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            early.pending = line  # the SDK says what is wrong with it
            return early
        method, mid = message.get("method"), _request_id(message)
        given = message.get("params")
        params: dict = given if isinstance(given, dict) else {}
        if method == "initialize" and early.init_id is None and mid is not None:
            early.init_id, early.init_version = mid, str(params.get("protocolVersion", ""))
            result = handshake.answer(params.get("protocolVersion"))
            if result is None:
                early.pending = line
                return early
            info = params.get("clientInfo")
            session.client = str(info.get("name", "")) if isinstance(info, dict) else ""
            _send(wire_out, {"jsonrpc": "2.0", "id": mid, "result": result})
            early.replay.append(line)
            early.answered_init = True
        elif early.answered_init and method == "notifications/initialized" and "id" not in message:
            early.replay.append(line)
        elif early.answered_init and method == "tools/list" and mid is not None and not params.get("cursor"):
            tools = [{"name": t["name"], "description": t["description"], "inputSchema": t["input_schema"]}
                     for t in session.tools()]
            _send(wire_out, {"jsonrpc": "2.0", "id": mid, "result": {"tools": tools}})
        elif (early.answered_init and method == "tools/call" and mid is not None
              and isinstance(params.get("name"), str) and isinstance(params.get("arguments", {}), (dict, type(None)))):
            ok, text = session.call(params["name"], params.get("arguments"))
            _send(wire_out, {"jsonrpc": "2.0", "id": mid,
                             "result": {"content": [{"type": "text", "text": text}], "isError": not ok}})
            if after_first_call is not None:
                after_first_call()
                after_first_call = None
        elif early.answered_init and method == "ping" and mid is not None:
            _send(wire_out, {"jsonrpc": "2.0", "id": mid, "result": {}})
        elif early.answered_init and isinstance(method, str) and method.startswith("resources/") and mid is not None \
                and (answer := _resource_answer(session, method, params)) is not None:
            _send(wire_out, {"jsonrpc": "2.0", "id": mid, **answer})
        else:
            early.pending = line
            return early


class SdkLoader:
    """Imports the SDK in a thread of its own, once asked (:meth:`start`); :meth:`ready` tells when it is done."""

    def __init__(self, load: Callable[[], None]) -> None:
        self._load = load
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start loading (once)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mcp sdk import", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        try:
            self._load()
        except Exception:  # the import is done again where it is used, and fails there with its message
            pass

    def ready(self) -> bool:
        """Whether loading started and has finished."""
        return self._thread is not None and not self._thread.is_alive()

    def wait(self) -> None:
        """Load now (or wait for the thread that is loading)."""
        self.start()
        assert self._thread is not None
        self._thread.join()
