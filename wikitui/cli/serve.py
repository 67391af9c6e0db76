"""``wikitui serve``: the workspace in a browser through textual-serve (DESIGN §10).

Each browser tab runs its own ``wikitui PATH`` in a terminal textual-serve
drives. It listens on 127.0.0.1 unless ``--host`` names another address: anyone
who reaches the port works in the vault (there is no login), so that gets a warning.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from wikitui.cli.common import PROG, open_workspace

#: Addresses only this machine can reach.
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def serve_command(vault_root: str) -> str:
    """The shell command textual-serve runs for each browser tab: this Python's wikitui on the vault."""
    return shlex.join([sys.executable, "-m", "wikitui", vault_root])


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the workspace on ``--host``:``--port`` until ctrl+c."""
    ws = open_workspace(args)  # a folder that is not a vault is refused here, not in the browser
    from textual_serve.server import Server

    if args.host not in _LOOPBACK:
        print(f"{PROG}: warning: listening on {args.host}: anyone who can reach this address and port can read "
              "and change this vault (there is no login)", file=sys.stderr)
    url_host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Serving {ws.root} at http://{url_host}:{args.port} (ctrl+c to stop)", file=sys.stderr, flush=True)
    server = Server(serve_command(str(ws.root)), host=args.host, port=args.port, title=f"wikitui — {ws.root.name}")
    server.serve()
    return 0
