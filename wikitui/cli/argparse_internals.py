"""The adapter over argparse's internals: the one module that reads a parser's private attributes.

argparse has no public way to list a parser's subcommands or its arguments; shell completion
(:mod:`~wikitui.cli.completion`) needs both to mark which arguments complete pages or directories.
What it reads (``_subparsers``, ``_group_actions``, ``_actions``) has been stable since Python 3.2.
"""

from __future__ import annotations

import argparse


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's subcommands by name (each with its own parser); empty when it has none."""
    found: dict[str, argparse.ArgumentParser] = {}
    group = parser._subparsers
    if group is None:
        return found
    for action in group._group_actions:
        if isinstance(action.choices, dict):  # a subparsers action: {name: parser}
            found.update(action.choices)
    return found


def arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Every argument the parser takes (options and positionals, in the order they were added)."""
    return list(parser._actions)
