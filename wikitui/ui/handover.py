"""A thread worker's result reaches its screen only while the screen can take it.

A worker that reads off the UI thread hands its result back with ``app.call_from_thread``;
by then the screen may be closed, or the app quitting: Textual marks a quitting app as no
longer running, then removes its widgets before its screens, so a screen can still be
attached with its widgets gone (a result querying them raised NoMatches at exit, which
failed a test run that ended while a log was read).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


class _Node(Protocol):
    @property
    def is_attached(self) -> bool: ...

    @property
    def app(self) -> Any: ...


N = TypeVar("N", bound=_Node)


def handed_over(method: Callable[Concatenate[N, P], R]) -> Callable[Concatenate[N, P], R | None]:
    """Decorate a screen's method that a worker calls with its result: it does nothing (None) once the screen is
    closed or the app is quitting."""

    @functools.wraps(method)
    def wrapper(self: N, *args: P.args, **kwargs: P.kwargs) -> R | None:
        if not self.is_attached or not self.app.is_running:
            return None
        return method(self, *args, **kwargs)

    return wrapper
