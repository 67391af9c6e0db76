"""The adapter over Textual's internals: the one module that reads Textual's private attributes or modules.

Textual has no public way to read the bindings a node has in force (its own merged with its
ancestors' classes, a keymap not yet applied); the help screen lists exactly those. Its footer's
key widget lives in a private module only, and the clock a message's ``time`` is read on is
private too (``time.monotonic`` on Linux and macOS, ``time.perf_counter`` on Windows).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.widgets._footer import FooterKey

__all__ = ["FooterKey", "bindings_in_force", "clock"]

if TYPE_CHECKING:  # pragma: no cover
    from textual.binding import BindingsMap
    from textual.dom import DOMNode


def bindings_in_force(node: DOMNode | None, cls: type[DOMNode]) -> BindingsMap:
    """A copy of ``node``'s bindings (None: those every instance of ``cls`` starts with)."""
    bindings = node._bindings if node is not None else cls._merge_bindings()
    return bindings.copy()


def clock() -> float:
    """Textual's clock, the one a message's ``time`` is read on."""
    try:
        from textual._time import get_time
    except ImportError:  # pragma: no cover - another Textual: its messages' clock on Linux
        return time.monotonic()
    return get_time()
