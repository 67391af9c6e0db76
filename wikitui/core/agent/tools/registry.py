"""The registry of the agent's tools: each tool a documented function, registered with :func:`tool`.

A tool is a plain function whose first parameter is the turn's
:class:`~wikitui.core.agent.tools.toolbox.ToolBox` (``box``: the vault, its graph,
its index, the turn's changeset builder) and whose other parameters, type hints and
docstring ARE the JSON schema the model sees (:func:`~wikitui.core.agent.toolschema.function_schema`).
Registering it takes its name, its kind (``read`` tools look things up; ``propose``
tools add to the turn's changeset and are refused while an ingest plans) and a
function that says in one quiet line what a call does, for the chat.

Adding a tool: write the function in :mod:`~wikitui.core.agent.tools.read` or
:mod:`~wikitui.core.agent.tools.propose` (or a module of its own imported by
``toolbox``) under ``@tool(...)``. Names and arguments are a stable contract.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from wikitui.core.agent.argcheck import display

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.agent.sources import WithPictures

#: Reads an argument of a call for a description: "" when absent, empty or not a scalar.
Arg = Callable[[str], str]


class Tool:
    """One registered tool.

    Attributes:
        name: The name the model calls it by.
        kind: "read", "propose" or "research" (web search, offered only where a search provider is configured).
        function: ``function(box, **arguments) -> str``: the result text for the model (or a
            :class:`~wikitui.core.agent.sources.WithPictures`: the text and pictures for a vision model).
        describe: ``describe(arg, arguments) -> str``: one quiet line for the chat.
    """

    __slots__ = ("name", "kind", "function", "describe")

    def __init__(self, name: str, kind: str, function: Callable[..., str | WithPictures],
                 describe: Callable[[Arg, dict[str, Any]], str]) -> None:
        self.name = name
        self.kind = kind
        self.function = function
        self.describe = describe


#: A tool's function.
_F = TypeVar("_F", bound="Callable[..., str | WithPictures]")

#: Every tool, by name, in the order the model sees them.
REGISTRY: dict[str, Tool] = {}
KINDS = ("read", "propose", "research")


def tool(kind: str, describe: Callable[[Arg, dict[str, Any]], str]) -> Callable[[_F], _F]:
    """Register the decorated function as a tool of ``kind`` ("read" or "propose")."""
    if kind not in KINDS:
        raise ValueError(f"a tool is a read or a propose tool, not {kind!r}")

    def register(function: _F) -> _F:
        if function.__name__ in REGISTRY:
            raise ValueError(f"two tools named {function.__name__!r}")
        REGISTRY[function.__name__] = Tool(function.__name__, kind, function, describe)
        return function

    return register


def names(kind: str) -> tuple[str, ...]:
    """The names of the tools of one kind, in registration order."""
    return tuple(name for name, entry in REGISTRY.items() if entry.kind == kind)


def describe_call(name: str, args: dict[str, Any]) -> str:
    """One quiet line for the chat saying what a tool call does (any name, any arguments)."""

    def arg(key: str) -> str:
        value = args.get(key)
        if value is None or value == "" or isinstance(value, (list, dict)):
            return ""
        return display(value, 160)

    entry = REGISTRY.get(name) if isinstance(name, str) else None
    if entry is None:
        return f"called {display(name, 80)}"
    return entry.describe(arg, args)
