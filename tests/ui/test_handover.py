"""A worker's result reaches its screen only while the screen can take it (wikitui.ui.handover)."""

from __future__ import annotations

from types import SimpleNamespace

from wikitui.ui.handover import handed_over


class _Screen:
    def __init__(self, attached: bool, running: bool) -> None:
        self.is_attached = attached
        self.app = SimpleNamespace(is_running=running)
        self.taken: list[str] = []

    @handed_over
    def take(self, result: str, *, note: str = "") -> str:
        self.taken.append(result + note)
        return result


def test_a_result_reaches_an_attached_screen_of_a_running_app_only():
    shown = _Screen(attached=True, running=True)
    assert shown.take("rows", note="!") == "rows" and shown.taken == ["rows!"]
    for screen in (_Screen(attached=False, running=True), _Screen(attached=True, running=False)):
        assert screen.take("rows") is None and screen.taken == []  # closed, or the app quitting
    assert _Screen.take.__name__ == "take"  # (functools.wraps: Textual and the tracebacks see its own name)
