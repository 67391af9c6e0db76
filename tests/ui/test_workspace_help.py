"""`?` help lists every binding of every screen, generated from the bindings themselves.

The test does not trust the help's own list of places: it finds every class in
wikitui's UI that declares bindings and checks each one is in the help, with its key.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from rich.console import Console
from textual.binding import Binding
from textual.command import CommandPalette
from textual.dom import DOMNode

import wikitui.ui
from wikitui.ui.screens.help import HelpScreen, help_table, places
from wikitui.ui.screens.main import MainScreen

from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace


def _declared_bindings() -> list[tuple[type, Binding]]:
    """Every binding declared by a class of wikitui's UI (all modules imported)."""
    found = []
    for module_info in pkgutil.walk_packages(wikitui.ui.__path__, "wikitui.ui."):
        module = importlib.import_module(module_info.name)
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or not issubclass(cls, DOMNode) or "BINDINGS" not in cls.__dict__:
                continue
            for binding in Binding.make_bindings(cls.__dict__["BINDINGS"]):
                found.append((cls, binding))
    return found


def _help_lines(app) -> list[str]:
    console = Console(width=160, record=True, file=open("/dev/null", "w"))  # noqa: SIM115 - closed with the console
    console.print(help_table(app, places(type(app), MainScreen), app.keymap))
    return console.export_text().splitlines()


def _row(lines: list[str], description: str) -> list[str]:
    return [line for line in lines if line.rstrip().endswith(description)]


async def test_help_holds_every_binding_of_every_wikitui_screen_and_widget(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        lines = _help_lines(app)
        declared = _declared_bindings()
        owners = {cls.__name__ for cls, _b in declared}
        assert {"MainScreen", "PageView", "SearchScreen", "ReviewScreen", "ChatInput", "ChatLog", "OutlineScreen"} <= owners
        for cls, binding in declared:
            description = binding.tooltip or binding.description
            rows = _row(lines, description)
            assert rows, f"{cls.__name__}: {binding.key} ({description}) is not in the help"
            key = app.get_key_display(binding)
            assert any(key in row for row in rows), f"{cls.__name__}: {description!r} lacks its key {key!r}: {rows}"


async def test_help_names_the_keys_a_new_user_missed(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        lines = _help_lines(app)
        text = "\n".join(lines)
        # ctrl+p, the palette (Textual's binding, listed live).
        assert any("^p" in line and "Command palette" in line for line in lines)
        # The review's keys.
        for key, what in (("a", "Accept the hunk, on to the next undecided one"),
                          ("r", "Reject the hunk, on to the next undecided one"),
                          ("A", "Accept every undecided hunk of this file"),
                          ("R", "Reject every undecided hunk of this file"),
                          ("e", "Write a reason for the agent about this hunk"),
                          ("⏎", "Apply: write the accepted hunks, drop the rejected ones"),
                          ("esc", "Leave the review; everything stays pending")):
            assert any(line.split() and line.split()[0] == key and line.rstrip().endswith(what) for line in lines), what
        # shift+tab from the agent's input into the chat log, up to recall a message.
        assert any("shift+tab" in line and "Into the chat log" in line for line in lines)
        assert any("↑" in line and "previous message sent" in line for line in lines)
        # Every key of Textual's command palette too.
        for _key, binding in CommandPalette._merge_bindings():
            if not binding.system:
                assert binding.description in text


async def test_a_remapped_key_is_shown_as_remapped(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.set_keymap({"outline": "ctrl+t", "edit-page": "E"})
        lines = _help_lines(app)
        (outline,) = _row(lines, "The page's headings: jump to one")
        assert "^t" in outline and "^o" not in outline
        (edit,) = _row(lines, "Edit in $EDITOR")
        assert edit.split()[0] == "E"


async def test_question_mark_opens_the_help_and_it_scrolls_to_the_end(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        assert "Everywhere" in screen_text(app)
        await pilot.press("end")
        await wait_for(pilot, lambda: "This help" in screen_text(app), "the help's end")
        await pilot.press("escape")
        assert len(app.screen_stack) == 1
