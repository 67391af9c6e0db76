"""Editing a page in the user's own editor (``e`` on a page): ``$VISUAL``, else ``$EDITOR``.

The app is suspended while the editor runs (Textual's ``App.suspend``), so a
terminal editor gets the terminal; the page is read again when it exits
(:func:`edit_shown_page`, the workspace's ``e``).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Protocol

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel

    from wikitui.core.workspace import Workspace


class EditingScreen(Protocol):
    """What editing needs of the screen that shows the page (the workspace screen)."""

    workspace: Workspace

    @property
    def app(self) -> App[Any]:
        """The app, suspended while the editor runs."""

    @property
    def current_path(self) -> str | None:
        """The place shown."""

    @property
    def current_kind(self) -> str:
        """What it is: "page", "source", "missing"."""

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """A toast."""

    def page_edited(self, path: str) -> None:
        """The page was changed outside: show it again."""


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


def edit_shown_page(screen: EditingScreen) -> None:
    """Edit the page ``screen`` shows in the user's editor, the app suspended meanwhile; then show it again."""
    from textual.app import SuspendNotSupported

    path = screen.current_path
    if path is None or screen.current_kind != "page":
        what = "a read-only source" if screen.current_kind == "source" else "no page"
        screen.notify(f"Nothing to edit here: this is {what}.", severity="warning")
        return
    root = screen.workspace.root
    try:
        command = editor_command()
        with screen.app.suspend():
            result = run_editor(command, root / path, root)
    except EditorError as exc:
        screen.notify(str(exc), severity="error")
        return
    except SuspendNotSupported:
        screen.notify(f"This terminal cannot hand itself to an editor; edit {path} in another window.",
                      severity="warning")
        return
    if result.status:
        screen.notify(f"the editor exited with status {result.status}", severity="warning")
    screen.page_edited(path)
