"""The wiki on a date (issue 27.3): a page as it was on a day, clearly marked read-only, and its links followed on
that same day, a page deleted since included. A git vault with fixed commit dates."""

from __future__ import annotations

import shutil

import pytest

from tests.core.changes_util import git, git_init, make_vault, page
from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace
from wikitui.ui.screens.dated_page import DatedPageScreen
from wikitui.ui.screens.history import HistoryScreen
from wikitui.ui.widgets.page_view import PageView

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")


def commit(root, monkeypatch, day: str, files: dict[str, str | None], message: str) -> None:
    for var in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(var, f"{day}T12:00:00")
    for rel, text in files.items():
        if text is None:
            (root / "wiki" / rel).unlink()
        else:
            (root / "wiki" / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "-c", "user.name=Robin", "-c", "user.email=r@example.com", "commit", "-q", "-m", message)


@pytest.fixture
def vault(tmp_path, monkeypatch):
    """On 10-01 notes links [[Cat]] and [[Hatter]]; on 11-05 Cat changes and Hatter is deleted."""
    for var in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(var, "2026-10-01T12:00:00")
    root = make_vault(tmp_path / "v", {
        "notes.md": page("Notes", "See [[Cat]] and [[Hatter]].\n"),
        "cat.md": page("Cat", "The Cat sits in a tree.\n"),
        "hatter.md": page("Hatter", "The Hatter pours tea.\n"),
    })
    git_init(root)
    commit(root, monkeypatch, "2026-11-05", {"cat.md": page("Cat", "The Cat has vanished.\n"), "hatter.md": None},
           "the Cat goes, the Hatter too")
    return root


async def test_links_open_on_the_same_day_and_backspace_returns(vault):
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        await pilot.pause()
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.versions, "the versions")
        await pilot.press("d", *"2026-10-15", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DatedPageScreen) and app.screen.heading, "that day")
        dated = app.screen
        page_view = dated.query_one(PageView)
        await pilot.press("tab", "enter")  # [[Cat]]
        await wait_for(pilot, lambda: dated.path == "wiki/cat.md", "the Cat on that day")
        await pilot.pause()
        shown = screen_text(app)
        assert "wiki/cat.md as it was on 2026-10-15" in shown and "read-only" in shown
        assert "sits in a tree" in shown and "vanished" not in shown
        await pilot.press("backspace")
        await wait_for(pilot, lambda: dated.path == "wiki/notes.md" and "Hatter" in screen_text(app), "back")
        await pilot.press("tab", "tab", "enter")  # [[Hatter]]: deleted since, there on that day
        await wait_for(pilot, lambda: dated.path == "wiki/hatter.md", "the Hatter on that day")
        await pilot.pause()
        assert "pours tea" in screen_text(app)
        assert page_view.links == []
    assert (vault / "wiki/cat.md").read_text(encoding="utf-8").endswith("The Cat has vanished.\n")
    assert not (vault / "wiki/hatter.md").exists()


async def test_a_link_to_a_page_that_did_not_exist_that_day_says_so(tmp_path, monkeypatch):
    for var in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(var, "2026-10-01T12:00:00")
    root = make_vault(tmp_path / "v", {"notes.md": page("Notes", "See [[Dodo]], one day.\n")})
    git_init(root)
    commit(root, monkeypatch, "2026-11-10", {"dodo.md": page("Dodo", "The Dodo runs.\n")}, "the Dodo")
    app = workspace(root, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        await pilot.pause()
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.versions, "the versions")
        await pilot.press("d", *"2026-10-15", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DatedPageScreen) and app.screen.heading, "that day")
        dated = app.screen
        await pilot.press("tab", "enter")  # [[Dodo]] resolves today, but the Dodo came on 11-10
        await wait_for(pilot, lambda: any("did not exist on 2026-10-15" in n for n in notices(app)), "the notice")
        assert dated.path == "wiki/notes.md" and "See Dodo, one day." in screen_text(app)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_dated_page_snapshot(snap_compare, vault, size):
    """Notes as it was on 2026-10-15 (commit times are local noon: no time zone shows)."""

    async def before(pilot):
        app = pilot.app
        await wait_ready(pilot)
        app.main.open_path("wiki/notes.md")
        await pilot.pause()
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen) and app.screen.versions, "the versions")
        await pilot.press("d", *"2026-10-15", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DatedPageScreen) and app.screen.heading, "that day")
        await pilot.press("tab")
        await app.workers.wait_for_complete()
        app.clear_notifications()  # the set-up's "search index off" toast times out at its own pace
        await pilot.pause()

    app = workspace(vault, watch=False, index=False, theme="wikitui-dark")
    assert snap_compare(app, terminal_size=size, run_before=before)
