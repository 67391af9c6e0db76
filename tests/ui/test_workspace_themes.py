"""Themes: the bundled files, the user's own folder, switching from the palette, remembered across runs."""

from __future__ import annotations

import tomllib
from pathlib import Path

import platformdirs
import pytest

from wikitui.ui.themes import WIKITUI_VARIABLES, ThemeFileError, bundled_theme_dir, load_theme_file, load_themes

from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace


def _user_dir() -> Path:
    return Path(platformdirs.user_config_dir("wikitui"))


def test_bundled_themes_are_valid_and_define_the_wikitui_colours():
    loaded = load_themes(bundled_theme_dir())
    assert loaded.errors == []
    names = {t.name for t in loaded.themes}
    assert {"wikitui-dark", "wikitui-light", "gruvbox-ish", "nord-ish"} <= names
    assert any(not t.dark for t in loaded.themes) and any(t.dark for t in loaded.themes)
    for theme in loaded.themes:
        for var in WIKITUI_VARIABLES:
            assert var in theme.variables, f"{theme.name} lacks {var}"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("name = 'x'\nprimary = 'not-a-colour'\n", "not a colour"),
        ("primary = '#ffffff'\n", "missing `name`"),
        ("name = 'x'\n", "missing `primary`"),
        ("name = 'x'\nprimary = '#fff'\n[variables]\nwikitui-link = 'blurple'\n", "not a colour"),
        ("name = 'x'\nprimary = '#fff'\nsparkle = true\n", "unknown keys"),
        ("name = = 'x'", "not valid TOML"),
    ],
)
def test_a_bad_theme_file_is_rejected_with_a_reason(tmp_path, content, problem):
    path = tmp_path / "bad.toml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ThemeFileError, match=problem):
        load_theme_file(path)


async def test_a_bad_user_theme_is_skipped_with_a_notice_and_a_good_one_is_offered(sample_vault):
    themes = _user_dir() / "themes"
    themes.mkdir(parents=True)
    (themes / "broken.toml").write_text("name = 'broken'\nprimary = 12\n", encoding="utf-8")
    (themes / "mine.toml").write_text("name = 'mine'\nprimary = '#ff00aa'\ndark = true\n", encoding="utf-8")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        assert "mine" in app.available_themes and "broken" not in app.available_themes
        await wait_for(pilot, lambda: any("broken.toml" in n for n in notices(app)), "the notice")
        # A theme without wikitui's variables falls back to the defaults instead of failing.
        app.theme = "mine"
        await pilot.pause()
        assert app.theme == "mine"


async def test_switching_theme_from_the_palette_is_instant_and_remembered(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        assert app.theme == "wikitui-dark"
        await pilot.press("ctrl+p", *"theme: nord-ish")
        await wait_for(pilot, lambda: "Theme: nord-ish" in screen_text(app), "the theme command")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.theme == "nord-ish", "the theme to change")
        assert app.get_css_variables()["wikitui-link"] == "#8fbcbb"
    saved = tomllib.loads((_user_dir() / "config.toml").read_text(encoding="utf-8"))
    assert saved["theme"] == "nord-ish"

    again = workspace(sample_vault, watch=False, index=False)
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        assert again.theme == "nord-ish"


async def test_missing_bundled_themes_say_so_and_name_the_theme_really_used(sample_vault, tmp_path, monkeypatch):
    """A broken install (no theme files) falls back to Textual's theme and says which; never "using wikitui-dark"."""
    import wikitui.ui.themes as themes

    monkeypatch.setattr(themes, "bundled_theme_dir", lambda: tmp_path / "nothing-here")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        assert app.theme == "textual-dark"
        await wait_for(pilot, lambda: any("themes were not found" in n for n in notices(app)), "the notice")
        (notice,) = [n for n in notices(app) if "theme" in n]
        assert notice.endswith("using textual-dark")
        assert "using wikitui-dark" not in notice
