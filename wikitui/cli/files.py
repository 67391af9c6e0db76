"""The commands that make files: ``init`` (a vault), ``sample`` (a copy of the sample), ``clip`` (into raw/) and ``export`` (slides)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from wikitui.cli.common import err, load_graph, open_workspace, vault_arg


def cmd_init(args: argparse.Namespace) -> int:
    """``wikitui init [PATH]``."""
    from wikitui.core.vault.create import init_vault

    target = Path(args.path) if args.path else vault_arg(args)
    if target.exists() and not target.is_dir():
        err(f"{target} is a file, not a folder")
        return 2
    created = init_vault(target)
    root = target.resolve()
    if not created:
        print(f"{root} is already a wikitui vault; nothing to do.")
        return 0
    for path in created:
        rel = os.path.relpath(path, root)
        print(f"created {rel}{'/' if path.is_dir() else ''}" if rel != "." else f"created {root}/")
    print(f"Initialised a wikitui vault in {root}. Put sources in raw/ and run `wikitui` there.")
    return 0


def cmd_sample(args: argparse.Namespace) -> int:
    """``wikitui sample [DEST] [--no-open]``: a copy of the sample vault to try, opened in the workspace."""
    from wikitui.core.eval.sample import copy_sample, free_sample_folder

    dest = Path(args.dest).expanduser() if args.dest else free_sample_folder(Path.cwd())
    copy_sample(dest)
    print(f"Copied the sample vault to {dest.resolve()}", file=sys.stderr)
    if args.no_open:
        print(dest.resolve())
        return 0
    from wikitui.cli.launch import cmd_launch

    return cmd_launch(argparse.Namespace(path=str(dest), vault=None, model=getattr(args, "model", None)))


def cmd_clip(args: argparse.Namespace) -> int:
    """``wikitui clip URL|FILE [--name N] [--refresh]``: the one command that adds files to raw/."""
    from wikitui.core.vault.formats import clip

    vault = open_workspace(args).vault
    if "://" in args.source:
        result = clip.clip_url(vault, args.source, name=args.name, refresh=args.refresh)
    else:
        result = clip.clip_file(vault, Path(args.source), name=args.name)
    print(result.path)
    if result.title:
        print(f"Clipped \"{result.title}\" from {result.source}", file=sys.stderr)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """``wikitui export PAGE [--format F] [--out FILE]``: a Marp deck as slides."""
    from wikitui.core.outputs.export import export_page

    ws = open_workspace(args)
    load_graph(ws)
    result = export_page(ws.vault, ws.find_page(args.page), args.format, args.out)
    print(result.path)
    return 0
