"""How pictures are drawn in this terminal, chosen from the environment alone (nothing is read from stdin).

Asking a terminal what it can draw means writing an escape sequence and reading
the answer from stdin, and the keys a person types in that instant are read with
it (a fast ``/rabbit`` right after launch loses letters). So the choice here looks
only at environment variables the terminals set themselves:

- ``WIKITUI_PICTURES`` wins: ``kitty``, ``sixel``, ``halfcell`` or ``unicode``;
  ``auto`` lets textual-image ask the terminal at launch (at the price above).
- Inside tmux or GNU screen (``TMUX``, ``TERM=screen*``/``tmux*``): half blocks.
  Passing graphics through a multiplexer is unreliable (tmux drops kitty's APC
  sequences unless told otherwise, and the pane moves under the picture), and a
  kitty variable inherited from the outer terminal must not win there.
- kitty's graphics protocol with Unicode placeholders where the terminal has it:
  kitty (``TERM=xterm-kitty``, ``KITTY_WINDOW_ID``) and Ghostty
  (``TERM_PROGRAM=ghostty``, ``TERM=xterm-ghostty``). WezTerm speaks kitty's
  protocol too but not its placeholders, so it gets sixel.
- sixel where the terminal is known to draw it: foot (``TERM=foot*``), WezTerm
  (``TERM_PROGRAM=WezTerm``), iTerm2 (``TERM_PROGRAM=iTerm.app``, 3.3 and later),
  mlterm (``MLTERM``), Konsole 22.04 and later (``KONSOLE_VERSION`` ≥ 220400),
  Windows Terminal (``WT_SESSION``; 1.22 and later draw sixel, older ones show
  nothing), contour (``TERM=contour*``), and any ``TERM`` naming sixel.
- Served to a browser (``wikitui serve``: textual-serve sets ``TEXTUAL_DRIVER`` to
  its web driver and ``TERM_PROGRAM=textual``, but keeps the variables of the
  terminal the server was started in): half blocks.
- Everything else: coloured half blocks, which every colour terminal shows.

The page pane and the source viewer both use :func:`choose_method`, so a terminal
never gets two different answers.
"""

from __future__ import annotations

from typing import Mapping

#: The environment variable that forces a drawing method.
METHOD_VAR = "WIKITUI_PICTURES"
#: What ``WIKITUI_PICTURES`` may say.
METHODS = ("kitty", "sixel", "halfcell", "unicode", "auto")
#: Konsole's version (``YYMMPP`` in ``KONSOLE_VERSION``) from which it draws sixel (KDE Gear 22.04).
KONSOLE_SIXEL = 220400
#: ``TERM_PROGRAM`` values (lower case) of terminals that draw sixel.
SIXEL_PROGRAMS = ("wezterm", "iterm.app")


def choose_method(environ: Mapping[str, str]) -> str:
    """The way pictures are drawn: ``kitty``, ``sixel``, ``halfcell``, ``unicode`` or ``auto``.

    Args:
        environ: The process environment (``os.environ``), only read.

    Returns:
        ``WIKITUI_PICTURES`` when it names a method (case and spaces ignored), else
        the method the terminal is known to have (see the module's docstring).
    """
    forced = environ.get(METHOD_VAR, "").strip().lower()
    if forced in METHODS:
        return forced
    term = environ.get("TERM", "").lower()
    program = environ.get("TERM_PROGRAM", "").lower()
    if environ.get("TMUX") or term.startswith(("screen", "tmux")):
        return "halfcell"
    if "web" in environ.get("TEXTUAL_DRIVER", "").lower() or program == "textual":
        return "halfcell"  # served to a browser (``wikitui serve``): the variables are the server's terminal's
    if term == "xterm-kitty" or environ.get("KITTY_WINDOW_ID"):
        return "kitty"
    if program == "ghostty" or term == "xterm-ghostty":
        return "kitty"
    if (
        term.startswith(("foot", "contour"))
        or "sixel" in term
        or program in SIXEL_PROGRAMS
        or environ.get("MLTERM")
        or _version(environ.get("KONSOLE_VERSION", "")) >= KONSOLE_SIXEL
        or environ.get("WT_SESSION")
    ):
        return "sixel"
    return "halfcell"


def _version(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        return 0


def method_in_use(environ: Mapping[str, str], *, truecolor: bool) -> str:
    """:func:`choose_method`, with ``auto`` replaced by what textual-image found, for drawing now.

    Args:
        environ: The process environment, only read.
        truecolor: Whether the app writes 24-bit colours. kitty's placeholders carry
            the picture's id in their colour: rounded to a 256-colour palette it names
            another picture, so without 24-bit colours half blocks are drawn instead.
    """
    method = choose_method(environ)
    if method == "auto":
        method = _asked_method()
    if method == "kitty" and not truecolor:
        return "halfcell"
    return method


def _asked_method() -> str:
    """What textual-image's launch-time question found (half blocks when it was never asked)."""
    import sys

    renderable = sys.modules.get("textual_image.renderable")  # imported (and asked) at launch only under auto
    if renderable is None:
        return "halfcell"
    module = getattr(renderable.Image, "__module__", "")
    for name, method in (("tgp", "kitty"), ("sixel", "sixel"), ("unicode", "unicode")):
        if module.endswith("." + name):
            return method
    return "halfcell"
