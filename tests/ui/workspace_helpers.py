"""Helpers shared by the workspace tests: build the app, and wait for conditions instead of sleeping."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from textual.pilot import Pilot

from wikitui.ui.app import WikituiApp, make_app


def workspace(vault: Path, *, urls: list[str] | None = None, **options) -> WikituiApp:
    """The app on ``vault``; external URLs are collected in ``urls`` instead of opening a browser."""
    sink = urls if urls is not None else []
    return make_app(vault, opener=sink.append, **options)


async def wait_for(pilot: Pilot, predicate: Callable[[], object], what: str, timeout: float = 3.0) -> None:
    """Let the app run until ``predicate()`` is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await pilot.pause(0.02)


async def wait_ready(pilot: Pilot, timeout: float = 20.0) -> None:
    """Wait until the graph is loaded, the search index is up to date and the page is shown."""
    app: WikituiApp = pilot.app  # type: ignore[assignment]
    await wait_for(pilot, lambda: app.workspace.graph is not None, "the link graph", timeout)
    await wait_for(pilot, lambda: app.workspace.index_state.value in ("ready", "failed", "off"), "the search index", timeout)
    await pilot.pause()


def screen_text(app: WikituiApp) -> str:
    """Everything the screen shows, as plain text (like a terminal's capture)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())  # type: ignore[attr-defined]


def notices(app: WikituiApp) -> list[str]:
    """The messages of the notifications raised so far (shown as toasts)."""
    return [n.message for n in app._notifications]  # type: ignore[attr-defined]
