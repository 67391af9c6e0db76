"""The adapter over Textual's internals: the one module that reads Textual's private attributes.

Textual has no public way to read the bindings a node has in force (its own merged with its
ancestors' classes, a keymap not yet applied); the help screen lists exactly those.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from textual.binding import BindingsMap
    from textual.dom import DOMNode


def bindings_in_force(node: DOMNode | None, cls: type[DOMNode]) -> BindingsMap:
    """A copy of ``node``'s bindings (None: those every instance of ``cls`` starts with)."""
    bindings = node._bindings if node is not None else cls._merge_bindings()
    return bindings.copy()
