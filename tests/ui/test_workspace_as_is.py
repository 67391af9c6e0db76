"""A folder of markdown files opened as it is: browsing it writes nothing at all to the folder (issue 24.6)."""

from __future__ import annotations

import os
from pathlib import Path

from textual.widgets import OptionList

from wikitui.core.vault.layout import Vault, read_only_cache_dir, remember_as_is
from wikitui.ui.screens.search import SearchScreen
from wikitui.ui.widgets.page_view import PageView

from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace


def plain_folder(root: Path) -> Path:
    """Notes as a person keeps them, with no wiki/, WIKI.md, .wikitui/ or .obsidian/."""
    (root / "projects").mkdir(parents=True)
    (root / "Home.md").write_text("# Home\n\nMy notes. The garden plan is in [[Garden]].\n", encoding="utf-8")
    (root / "projects" / "Garden.md").write_text(
        "# Garden\n\nTomatoes by the south wall. Back to [[Home]].\n", encoding="utf-8")
    (root / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a picture")
    return root


def tree(root: Path) -> list[tuple[str, int, int]]:
    """Every file and folder under ``root`` (hidden ones too), with its size and mtime."""
    out = []
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            st = path.lstat()
            out.append((path.relative_to(root).as_posix(), st.st_size if name in files else 0, st.st_mtime_ns))
    st = root.stat()
    return sorted(out) + [(".", 0, st.st_mtime_ns)]


async def test_opening_and_browsing_a_folder_as_it_is_writes_nothing_to_it(tmp_path):
    root = plain_folder(tmp_path / "notes")
    before = tree(root)
    remember_as_is(root)  # what choosing "open it as it is" at the launch prompt does
    app = workspace(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        assert app.workspace.index_state.value == "ready"
        assert any(n.startswith("Opened as it is: nothing is written to this folder") for n in notices(app))
        app.main.open_path("Home.md")
        await wait_for(pilot, lambda: "The garden plan is in" in screen_text(app), "the Home note")
        page = app.query_one(PageView)
        page.focus()
        await pilot.press("tab")
        await wait_for(pilot, lambda: page.selected_link is not None, "a selected link")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == "projects/Garden.md", "the Garden note to open")
        await wait_for(pilot, lambda: "Tomatoes by the south wall." in screen_text(app), "its text")
        await pilot.press("slash", *"tomatoes")
        assert isinstance(app.screen, SearchScreen)
        results = app.screen.query_one("#search-results", OptionList)
        await wait_for(pilot, lambda: results.option_count == 1, "one search hit", 10)
        await pilot.press("escape")
        await pilot.press("ctrl+q")
    assert tree(root) == before
    assert not (root / ".wikitui").exists()
    # wikitui's own state went to the user's cache, keyed by the folder's path.
    state = read_only_cache_dir(root)
    assert Vault(root).state_dir == state and (state / "index").is_dir()
    assert str(state).startswith(os.environ["XDG_CACHE_HOME"])
