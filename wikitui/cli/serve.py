"""``wikitui serve``: the workspace in a browser through textual-serve (DESIGN §10).

Each browser tab runs its own ``wikitui PATH`` in a terminal textual-serve
drives. It listens on 127.0.0.1 unless ``--host`` names another address, and
only a browser that opened the URL it prints (with this server's random token)
gets in (``serve_door``); another address gets a warning: anyone who reaches it
and has that URL works in the vault.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from wikitui.cli.common import PROG, err, open_workspace
from wikitui.cli.serve_door import LOOPBACK_NAMES, Door, new_token


def serve_command(vault_root: str) -> str:
    """The shell command textual-serve runs for each browser tab: this Python's wikitui on the vault."""
    return shlex.join([sys.executable, "-m", "wikitui", vault_root])


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the workspace on ``--host``:``--port`` until ctrl+c."""
    ws = open_workspace(args)  # a folder that is not a vault is refused here, not in the browser
    from wikitui.cli.serve_textual import LockedServer, UnsupportedTextualServe

    door = Door(new_token(), args.port, args.host)
    try:
        server = LockedServer(serve_command(str(ws.root)), door, title=f"wikitui — {ws.root.name}")
    except UnsupportedTextualServe as error:
        err(str(error))
        return 2
    if args.host not in LOOPBACK_NAMES:
        print(f"{PROG}: warning: listening on {args.host}: anyone who can reach this address and port and has "
              "the URL below (its token) can read and change this vault; the connection is not encrypted",
              file=sys.stderr)
    url_host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Serving {ws.root} at http://{url_host}:{args.port}/?token={door.token} (ctrl+c to stop)",
          file=sys.stderr, flush=True)
    try:
        server.serve()
    except UnsupportedTextualServe as error:  # its app's routes were not the ones the door is fitted to
        err(str(error))
        return 2
    return 0
