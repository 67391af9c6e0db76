"""``wikitui mcp``: the vault served over MCP on stdio, with the official ``mcp`` SDK (DESIGN §10).

The only module that imports ``mcp`` (an import-linter contract checks it). It
maps the SDK's requests onto an :class:`~wikitui.core.mcp.session.McpSession`,
which holds what is served: the agent's tools and ``lint``, the resources
``wiki://index``, ``wiki://log`` and ``wiki://page/{path}``, and the session's one
pending changeset (``mcp-...``), which this server never applies.

Tool calls run in a worker thread (a search or a lint must not hold up the
protocol), and a watcher thread keeps the link graph and the index current with
edits made elsewhere (the TUI applying a changeset, an editor, a sync), as the
workspace's own watcher does.

The SDK takes 1-2 s to import: the session's first messages are answered by
:mod:`wikitui.core.mcp.early` meanwhile, and the SDK is handed the session (the
handshake replayed to it) at the first message that needs it or once it has loaded.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from typing import TYPE_CHECKING

from wikitui.core.mcp.early import Early, Handshake, SdkLoader, answer_early, resource_error
from wikitui.core.mcp.session import McpSession

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.workspace import Workspace

#: Milliseconds the watcher gathers changes before reporting them (as the TUI's).
WATCH_DEBOUNCE_MS = 150


def serve_stdio(workspace: Workspace, *, watch: bool = True) -> None:
    """Serve ``workspace`` over MCP on this process's stdin and stdout until the client hangs up.

    Args:
        workspace: The open workspace.
        watch: Whether to follow edits made elsewhere while serving.
    """
    session = McpSession(workspace)
    # The graph and the index load while the client says hello.
    loader = threading.Thread(target=session.warm_up, name="mcp warm-up", daemon=True)
    loader.start()
    stop = threading.Event()
    keeper = threading.Thread(target=workspace.keep_live, args=(stop,), name="mcp live", daemon=True)
    if watch:
        threading.Thread(target=_watch, args=(session, stop), name="mcp watch", daemon=True).start()
        # Watched and current: `wikitui search` may skip its scan while this server runs (.wikitui/live).
        keeper.start()
    wire_in, wire_out, restore = _claim_stdio()
    unhook = workspace.release_live_on_signals()  # a closed terminal or a kill leaves no live file behind
    try:
        sdk = SdkLoader(_import_sdk)
        handshake = Handshake(workspace.vault, _sdk_version())
        # The SDK loads after the first tool answer: importing it alongside would slow that answer down.
        early = answer_early(session, wire_in, wire_out, handshake, sdk.ready, after_first_call=sdk.start)
        if not early.eof:
            sdk.wait()
            import anyio

            anyio.run(_serve, session, _WireIn(early, wire_in), _WireOut(early, wire_out, handshake))
    finally:
        restore()
        unhook()
        stop.set()
        if keeper.is_alive():
            keeper.join(timeout=5)  # it removes the live file


def _import_sdk() -> None:
    """Import the SDK modules :func:`_serve` uses (in the SDK loader's thread)."""
    import anyio  # noqa: F401
    import mcp_types  # noqa: F401
    import mcp.server.lowlevel  # noqa: F401
    import mcp.server.stdio  # noqa: F401


def _sdk_version() -> str:
    """The installed SDK's version, read from its ``dist-info`` folder's name.

    Not :func:`importlib.metadata.version`: importing that costs ~80 ms of the first answer.
    A name that cannot be read falls back to the SDK's own location (a remembered
    handshake is then kept only while the SDK stays where it is).
    """
    import importlib.util

    spec = importlib.util.find_spec("mcp")
    if spec is None or not spec.origin:  # pragma: no cover - a dependency
        return "?"
    package = os.path.dirname(spec.origin)
    try:
        names = os.listdir(os.path.dirname(package))
    except OSError:
        names = []
    for name in names:
        if name.startswith("mcp-") and name.endswith(".dist-info"):
            return name[len("mcp-"):-len(".dist-info")]
    return package


def _claim_stdio():
    """The wire (private duplicates of stdin and stdout), and a function that puts fds 0 and 1 back.

    While serving, fd 0 reads the null device and fd 1 goes to stderr, so a stray
    print or a child process cannot corrupt the protocol (as the SDK's own
    ``stdio_server`` does when it claims the streams itself).
    """
    sys.stdout.flush()
    saved_in, saved_out = os.dup(0), os.dup(1)
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)

    def restore() -> None:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        for saved, fd in ((saved_in, 0), (saved_out, 1)):
            try:
                os.dup2(saved, fd)
                os.close(saved)
            except OSError:
                pass

    return wire_in, wire_out, restore


class _WireIn:
    """What the SDK reads: the lines answered before it loaded (the handshake), the one it must answer, the rest."""

    def __init__(self, early: Early, wire_in) -> None:
        self._first = [*early.replay, *([early.pending] if early.pending is not None else [])]
        self._wire = wire_in

    def __aiter__(self):
        return self._lines()

    async def _lines(self):
        import anyio

        for line in self._first:
            yield line.decode("utf-8", errors="replace")
        text = anyio.wrap_file(io.TextIOWrapper(self._wire, encoding="utf-8", errors="replace"))
        async for read in text:
            yield read


class _WireOut:
    """Where the SDK writes: its answer to a replayed handshake is dropped (and remembered), the rest goes out."""

    def __init__(self, early: Early, wire_out, handshake: Handshake) -> None:
        self._early = early
        self._wire = wire_out
        self._handshake = handshake
        self._watching = early.init_id is not None  # the handshake's answer is still to come

    async def write(self, text: str) -> None:
        from anyio import to_thread

        if self._watching and self._is_handshake_answer(text):
            self._watching = False
            if self._early.answered_init:
                return  # the client has its answer already
        await to_thread.run_sync(self._wire.write, text.encode())

    def _is_handshake_answer(self, text: str) -> bool:
        try:
            message = json.loads(text)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("id") != self._early.init_id:
            return False
        if isinstance(message.get("result"), dict) and self._early.init_version:
            self._handshake.remember(self._early.init_version, message["result"])
        return True

    async def flush(self) -> None:
        from anyio import to_thread

        await to_thread.run_sync(self._wire.flush)


async def _serve(session: McpSession, stdin=None, stdout=None) -> None:
    import mcp_types as types
    from anyio import to_thread
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
    from mcp.shared.exceptions import MCPError
    from mcp_types.jsonrpc import INVALID_PARAMS

    from wikitui import __version__
    from wikitui.core.base.errors import WikituiError

    def client_name(ctx) -> str:
        params = getattr(ctx.session, "client_params", None)
        info = getattr(params, "client_info", None)
        return str(getattr(info, "name", "") or "")

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=t["name"], description=t["description"], input_schema=t["input_schema"])
            for t in session.tools()
        ])

    async def call_tool(ctx, params) -> types.CallToolResult:
        if not session.client:
            session.client = client_name(ctx)
        ok, text = await to_thread.run_sync(session.call, params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=not ok)

    async def list_resources(ctx, params) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=r["uri"], name=r["name"], description=r["description"], mime_type="text/markdown")
            for r in session.resources()
        ])

    async def list_resource_templates(ctx, params) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(uri_template=t["uri_template"], name=t["name"], description=t["description"],
                                   mime_type="text/markdown")
            for t in session.resource_templates()
        ])

    async def read_resource(ctx, params) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            text = await to_thread.run_sync(session.read_resource, uri)
        except WikituiError as exc:
            # An MCP error (not a traceback in the log): the resource does not exist or may not be read.
            raise MCPError(INVALID_PARAMS, resource_error(exc)) from None
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=uri, mime_type="text/markdown", text=text)
        ])

    server = Server(
        "wikitui", version=__version__,
        instructions="A personal markdown wiki kept by wikitui. Search and read it; changes you propose "
                     "(propose_*) gather into one pending changeset the person reviews; nothing is written "
                     "until they accept it.",
        on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates, on_read_resource=read_resource,
    )
    async with stdio_server(stdin, stdout) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _watch(session: McpSession, stop: threading.Event) -> None:
    """Tell the session about files changed on disk until ``stop`` is set (a daemon thread)."""
    try:
        from watchfiles import watch
    except ImportError:  # pragma: no cover - watchfiles is a dependency
        return
    root = session.workspace.root
    try:
        for changes in watch(root, stop_event=stop, debounce=WATCH_DEBOUNCE_MS, step=50, rust_timeout=500,
                             yield_on_timeout=False, raise_interrupt=False,
                             watch_filter=lambda _change, path: not _hidden(root, path)):
            session.files_changed(sorted({session.workspace.vault.rel(p) for _c, p in changes}))
    except Exception:  # the vault folder vanished: tool calls will say what is wrong
        return


def _hidden(root, path: str) -> bool:
    """Whether a changed file lies outside the vault's content (.wikitui/, .git/...)."""
    from pathlib import Path

    try:
        rel = Path(path).resolve().relative_to(root)
    except (ValueError, OSError):
        return True
    return any(part.startswith(".") for part in rel.parts)
