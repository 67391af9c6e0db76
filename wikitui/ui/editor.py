"""Editing a page in the user's own editor (``e`` on a page): ``$VISUAL``, else ``$EDITOR``.

The app is suspended while the editor runs (Textual's ``App.suspend``), so a
terminal editor gets the terminal; the page is read again when it exits.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping


class EditorError(Exception):
    """The editor could not be found or started; the message says why, in one line."""


def editor_command(env: Mapping[str, str] | None = None) -> list[str]:
    """The editor's command line from ``$VISUAL`` or ``$EDITOR`` (split like a shell would).

    Raises:
        EditorError: Neither is set (or they hold only spaces or an unbalanced quote).
    """
    env = os.environ if env is None else env
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if not value:
            continue
        try:
            words = shlex.split(value)
        except ValueError as exc:
            raise EditorError(f"${name} cannot be read as a command ({exc}): {value!r}") from None
        if words:
            return words
    raise EditorError("set $VISUAL or $EDITOR to the editor to use (e.g. export EDITOR=nano)")


@dataclass(frozen=True)
class EditResult:
    """How the editor ended: its exit status (0: fine)."""

    status: int


def run_editor(command: list[str], path: Path, cwd: Path) -> EditResult:
    """Run ``command path`` in ``cwd`` and wait for it (the caller suspends the UI around this).

    Raises:
        EditorError: The command cannot be started.
    """
    try:
        done = subprocess.run([*command, str(path)], cwd=cwd, check=False)
    except OSError as exc:
        raise EditorError(f"could not start the editor {command[0]!r}: {exc.strerror or exc}") from None
    return EditResult(done.returncode)
