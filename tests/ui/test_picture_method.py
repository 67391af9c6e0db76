"""The one choice of drawing method, from the environment alone: a table of terminals."""

from __future__ import annotations

import pytest

from wikitui.ui.picture_method import choose_method, method_in_use

TABLE = [
    # (what the terminal sets, expected method)
    ({}, "halfcell"),
    ({"TERM": "xterm-256color"}, "halfcell"),
    ({"TERM": "xterm-256color", "COLORTERM": "truecolor", "VTE_VERSION": "7600"}, "halfcell"),  # GNOME Terminal
    ({"TERM": "xterm-kitty"}, "kitty"),
    ({"TERM": "xterm-256color", "KITTY_WINDOW_ID": "3"}, "kitty"),
    ({"TERM": "xterm-ghostty"}, "kitty"),
    ({"TERM": "xterm-256color", "TERM_PROGRAM": "ghostty"}, "kitty"),
    ({"TERM": "foot"}, "sixel"),
    ({"TERM": "foot-extra"}, "sixel"),
    ({"TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"}, "sixel"),  # kitty's protocol, but no placeholders
    ({"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, "sixel"),
    ({"TERM": "xterm", "MLTERM": "3.9.3"}, "sixel"),
    ({"TERM": "xterm-256color", "KONSOLE_VERSION": "230805"}, "sixel"),
    ({"TERM": "xterm-256color", "KONSOLE_VERSION": "211201"}, "halfcell"),  # before Konsole 22.04: no sixel
    ({"TERM": "xterm-256color", "KONSOLE_VERSION": "garbage"}, "halfcell"),
    ({"TERM": "xterm-256color", "WT_SESSION": "5b1e-..."}, "sixel"),
    ({"TERM": "contour"}, "sixel"),
    ({"TERM": "xterm-sixel"}, "sixel"),
    ({"TERM": "vt340"}, "halfcell"),
    # Inside tmux or screen: half blocks, even when the outer terminal's variables leak in.
    ({"TERM": "tmux-256color", "TMUX": "/tmp/tmux-1000/default,1,0"}, "halfcell"),
    ({"TERM": "screen-256color", "KITTY_WINDOW_ID": "3"}, "halfcell"),
    ({"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-1000/default,1,0"}, "halfcell"),
    ({"TERM": "screen.xterm-256color", "TERM_PROGRAM": "WezTerm"}, "halfcell"),
    # Served to a browser from a kitty window: the browser's terminal draws no kitty pictures.
    ({"TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1", "TERM_PROGRAM": "textual",
      "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"}, "halfcell"),
    ({"TERM": "foot", "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"}, "halfcell"),
    # WIKITUI_PICTURES wins over everything, in any case and spacing.
    ({"TERM": "xterm-256color", "WIKITUI_PICTURES": "kitty"}, "kitty"),
    ({"TERM": "xterm-kitty", "WIKITUI_PICTURES": "halfcell"}, "halfcell"),
    ({"TERM": "tmux-256color", "TMUX": "x", "WIKITUI_PICTURES": " Sixel "}, "sixel"),
    ({"TERM": "xterm-256color", "WIKITUI_PICTURES": "unicode"}, "unicode"),
    ({"TERM": "xterm-256color", "WIKITUI_PICTURES": "auto"}, "auto"),
    ({"TERM": "xterm-kitty", "WIKITUI_PICTURES": "bogus"}, "kitty"),  # an unknown value is ignored
    ({"TERM": "xterm-256color", "WIKITUI_PICTURES": ""}, "halfcell"),
]


@pytest.mark.parametrize(("environ", "expected"), TABLE, ids=[repr(e) for e, _ in TABLE])
def test_the_method_follows_the_terminal_the_environment_names(environ, expected):
    assert choose_method(environ) == expected


def test_kitty_needs_24_bit_colours_because_the_colour_is_the_pictures_id():
    assert method_in_use({"TERM": "xterm-kitty"}, truecolor=True) == "kitty"
    assert method_in_use({"TERM": "xterm-kitty"}, truecolor=False) == "halfcell"
    assert method_in_use({"TERM": "foot"}, truecolor=False) == "sixel"


def test_auto_without_the_launch_question_is_half_blocks(monkeypatch):
    import sys

    monkeypatch.delitem(sys.modules, "textual_image.renderable", raising=False)
    assert method_in_use({"WIKITUI_PICTURES": "auto"}, truecolor=True) == "halfcell"


def test_the_viewer_and_the_chart_preview_take_the_same_choice(monkeypatch):
    from wikitui.ui.widgets.chart_preview import picture_widget
    from wikitui.ui.widgets.kitty_picture import KittyPictureWidget
    from wikitui.ui.terminal_pictures import import_quietly
    from wikitui.ui.widgets.picture import picture_widget_class

    widget = import_quietly()  # as the app loads it: textual-image asks the terminal nothing

    monkeypatch.delenv("WIKITUI_PICTURES", raising=False)
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.setenv("TERM", "foot")
    assert picture_widget_class() is widget.SixelImage
    assert picture_widget()[0] is widget.SixelImage
    monkeypatch.setenv("TERM", "xterm-ghostty")
    assert picture_widget_class() is KittyPictureWidget  # placeholders written through the driver
    assert picture_widget()[0] is KittyPictureWidget
    assert picture_widget_class(truecolor=False) is widget.HalfcellImage
    monkeypatch.setenv("TMUX", "/tmp/tmux-1000/default,1,0")
    assert picture_widget_class() is widget.HalfcellImage
    assert picture_widget() is None  # the chart's own half blocks


@pytest.mark.parametrize(("found", "expected"), [("tgp", "kitty"), ("sixel", "sixel"), ("halfcell", "halfcell"),
                                                 ("unicode", "unicode")])
def test_auto_draws_with_what_textual_image_found_when_it_asked_at_launch(monkeypatch, found, expected):
    import sys
    import types

    asked = types.ModuleType("textual_image.renderable")
    asked.Image = type("Image", (), {"__module__": f"textual_image.renderable.{found}"})
    monkeypatch.setitem(sys.modules, "textual_image.renderable", asked)
    assert method_in_use({"WIKITUI_PICTURES": "auto"}, truecolor=True) == expected
