"""The config keys of the trust features (DESIGN §11): `review_model` and `[background] lint_after_idle_minutes`."""

from __future__ import annotations

import pytest

from wikitui.core.config.settings import load_settings


@pytest.fixture
def vault(tmp_path, monkeypatch):
    monkeypatch.setenv("WIKITUI_CONFIG", str(tmp_path / "user.toml"))
    root = tmp_path / "v"
    (root / ".wikitui").mkdir(parents=True)
    return root


def write(vault, text: str) -> None:
    (vault / ".wikitui/config.toml").write_text(text)


def test_off_by_default(vault):
    settings = load_settings(vault)
    assert settings.review_model is None and settings.lint_after_idle_minutes is None


def test_review_model_and_background_minutes_are_read(vault):
    write(vault, 'review_model = "openai/gpt-4o"\n\n[background]\nlint_after_idle_minutes = 30\n')
    settings = load_settings(vault)
    assert settings.review_model == "openai/gpt-4o"
    assert settings.lint_after_idle_minutes == 30.0
    assert settings.warnings == []


@pytest.mark.parametrize("value", ['"soon"', "-5", "true", "[1]"])
def test_a_bad_idle_time_is_ignored_with_a_warning(vault, value):
    write(vault, f"[background]\nlint_after_idle_minutes = {value}\n")
    settings = load_settings(vault)
    assert settings.lint_after_idle_minutes is None
    assert any("lint_after_idle_minutes" in w for w in settings.warnings)


def test_zero_minutes_is_off(vault):
    write(vault, "[background]\nlint_after_idle_minutes = 0\n")
    settings = load_settings(vault)
    assert settings.lint_after_idle_minutes is None and settings.warnings == []
