"""The workspace in a real terminal: keys typed the instant it starts, and `e` handing the terminal to an editor.

Skipped (with the reason) only when tmux is not installed; CI installs it.
"""

from __future__ import annotations

import os
import stat
import sys

import pytest

from tests.e2e.test_tmux import TMUX, WIKITUI, Terminal

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (CI installs it)")


def _env(home, **extra: str) -> dict[str, str]:
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        # The code under test, when the tests run it from a checkout rather than the installed package.
        **({"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}),
        **extra,
    }


def _command(vault) -> str:
    if WIKITUI.exists():
        return f"{WIKITUI} {vault}"
    return f"{sys.executable} -c 'from wikitui.ui.app import run_app; run_app(\"{vault}\")'"


def test_keys_typed_the_instant_wikitui_starts_are_not_lost(sample_vault, isolated_home):
    term = Terminal(_command(sample_vault), _env(isolated_home))
    try:
        term.type("/rabbit")  # before the first frame: the keys wait in the terminal, then in the app
        term.wait_for("▊  rabbit")  # every letter typed into the search input, none lost on the page
        term.wait_for("enter opens")  # and its results, once the index is ready
        term.send("Escape")
        term.wait_for("search ready")
    finally:
        term.close()


def test_enter_typed_the_instant_wikitui_starts_opens_the_first_result(sample_vault, isolated_home):
    # Issue 21.8: `/dodo` and enter typed at once opened the search with its results and lost the enter.
    term = Terminal(_command(sample_vault), _env(isolated_home))
    try:
        term.type("/dodo")
        term.send("Enter")  # before the index has answered: the enter waits for the results, then opens the first
        screen = term.wait_for("Dodo · entity")
        assert "enter opens" not in screen and "Caucus-race" in screen
    finally:
        term.close()


def test_e_hands_the_terminal_to_the_editor_and_shows_the_edited_page(sample_vault, isolated_home, tmp_path):
    editor = tmp_path / "editor.sh"
    # A terminal "editor": shows something (the app is suspended meanwhile), appends a paragraph, exits.
    editor.write_text(
        "#!/bin/sh\necho EDITOR-RUNNING-ON \"$1\"\nsleep 1\nprintf '\\nEdited in a real terminal.\\n' >> \"$1\"\n",
        encoding="utf-8",
    )
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    term = Terminal(_command(sample_vault), _env(isolated_home, EDITOR=str(editor)))
    try:
        term.wait_for("search ready")
        term.send("F3")
        term.send("e")
        screen = term.wait_for("EDITOR-RUNNING-ON")
        assert "index.md" in screen
        term.wait_for("Sources")  # the app is back
        term.send("End")
        term.wait_for("Edited in a real terminal.")
    finally:
        term.close()
    assert (sample_vault / "wiki" / "index.md").read_text(encoding="utf-8").endswith("\nEdited in a real terminal.\n")
