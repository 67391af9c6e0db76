"""``wikitui mcp``: the vault served over MCP on stdio, with the official ``mcp`` SDK (DESIGN §10).

The only module that imports ``mcp`` (an import-linter contract checks it). It
maps the SDK's requests onto an :class:`~wikitui.core.mcp_session.McpSession`,
which holds what is served: the agent's tools and ``lint``, the resources
``wiki://index``, ``wiki://log`` and ``wiki://page/{path}``, and the session's one
pending changeset (``mcp-...``), which this server never applies.

Tool calls run in a worker thread (a search or a lint must not hold up the
protocol), and a watcher thread keeps the link graph and the index current with
edits made elsewhere (the TUI applying a changeset, an editor, a sync), as the
workspace's own watcher does.
"""

from __future__ import annotations

import threading

from wikitui.core.mcp_session import PAGE_TEMPLATE, McpSession

TYPE_CHECKING = False
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
    import anyio

    session = McpSession(workspace)
    # The graph and the index load while the SDK starts and the client says hello.
    loader = threading.Thread(target=session.warm_up, name="mcp warm-up", daemon=True)
    loader.start()
    stop = threading.Event()
    keeper = threading.Thread(target=workspace.keep_live, args=(stop,), name="mcp live", daemon=True)
    if watch:
        threading.Thread(target=_watch, args=(session, stop), name="mcp watch", daemon=True).start()
        # Watched and current: `wikitui search` may skip its scan while this server runs (.wikitui/live).
        keeper.start()
    try:
        anyio.run(_serve, session)
    finally:
        stop.set()
        if keeper.is_alive():
            keeper.join(timeout=5)  # it removes the live file


async def _serve(session: McpSession) -> None:
    import mcp_types as types
    from anyio import to_thread
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
    from mcp.shared.exceptions import MCPError
    from mcp_types.jsonrpc import INVALID_PARAMS

    from wikitui import __version__
    from wikitui.core.errors import WikituiError

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
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            uri_template=PAGE_TEMPLATE, name="page", mime_type="text/markdown",
            description="A page of the wiki (or a raw source) by its path, e.g. wiki://page/wiki/concepts/x.md; "
                        "a title or alias works too.",
        )])

    async def read_resource(ctx, params) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            text = await to_thread.run_sync(session.read_resource, uri)
        except WikituiError as exc:
            message = str(exc)
            # An MCP error (not a traceback in the log): the resource does not exist or may not be read.
            raise MCPError(INVALID_PARAMS, message if message.startswith("error") else f"error: {message}") from None
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
    async with stdio_server() as (read_stream, write_stream):
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
