"""``wikitui mcp``: the vault as an MCP server on stdio, for other agents (DESIGN §10)."""

from __future__ import annotations

import argparse

from wikitui.cli.common import open_workspace


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the vault over MCP until the client hangs up; proposals stay pending."""
    from wikitui.core.mcp.server import serve_stdio

    ws = open_workspace(args)
    with ws:
        serve_stdio(ws)
    return 0
