"""Settings resolution: --model > WIKITUI_MODEL > vault config > user config."""

from __future__ import annotations

import pytest

from wikitui.core.config.settings import (
    NoModelConfigured,
    Secret,
    Settings,
    load_settings,
    save_user_setting,
    scrub,
    user_config_path,
)
from wikitui.core.base.errors import ConfigError


@pytest.fixture
def user_cfg(tmp_path, monkeypatch):
    path = tmp_path / "user-config.toml"
    monkeypatch.setenv("WIKITUI_CONFIG", str(path))
    return path


@pytest.fixture
def vault(tmp_path):
    root = tmp_path / "vault"
    (root / ".wikitui").mkdir(parents=True)
    (root / "wiki").mkdir()
    return root


def test_each_source_overrides_the_one_below(user_cfg, vault, monkeypatch):
    user_cfg.write_text('model = "openai/user-model"\napi_base = "http://user/v1"\ntheme = "nord"\n')
    assert load_settings(vault).model == "openai/user-model"

    (vault / ".wikitui" / "config.toml").write_text('model = "openai/vault-model"\napi_key_env = "VAULT_KEY"\n')
    s = load_settings(vault)
    assert (s.model, s.api_base, s.api_key_env, s.theme) == ("openai/vault-model", "http://user/v1", "VAULT_KEY", "nord")
    assert s.sources["model"].endswith("config.toml") and ".wikitui" in s.sources["model"]

    monkeypatch.setenv("WIKITUI_MODEL", "openai/env-model")
    monkeypatch.setenv("WIKITUI_API_BASE", "http://127.0.0.1:8080/v1")
    s = load_settings(vault)
    assert (s.model, s.api_base) == ("openai/env-model", "http://127.0.0.1:8080/v1")
    assert s.sources == {**s.sources, "model": "WIKITUI_MODEL", "api_base": "WIKITUI_API_BASE"}

    s = load_settings(vault, cli_model="anthropic/cli-model")
    assert s.model == "anthropic/cli-model" and s.sources["model"] == "--model"


def test_default_user_config_lives_in_the_platform_config_folder(isolated_home):
    path = user_config_path()
    assert path == isolated_home / ".config" / "wikitui" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('model = "openai/from-home"\n[keymap]\nreview = "ctrl+e"\n')
    s = load_settings()
    assert s.model == "openai/from-home" and s.keymap == {"review": "ctrl+e"}


def test_no_model_says_how_to_configure_one(user_cfg):
    s = load_settings()
    assert s.model is None
    with pytest.raises(NoModelConfigured) as info:
        s.require_model()
    msg = str(info.value)
    for way in ("--model", "WIKITUI_MODEL", str(user_cfg), ".wikitui/config.toml", "api_key_env"):
        assert way in msg
    assert isinstance(info.value, ConfigError) and info.value.exit_code == 2


def test_api_key_comes_from_the_named_variable_and_never_shows(user_cfg, monkeypatch):
    user_cfg.write_text('model = "openai/x"\napi_key_env = "MY_KEY"\n')
    monkeypatch.setenv("MY_KEY", "sk-live-abcdefgh12345")
    s = load_settings()
    assert isinstance(s.api_key, Secret) and s.api_key.get_secret_value() == "sk-live-abcdefgh12345"
    for shown in (repr(s.api_key), str(s.api_key), repr(s), f"{s.api_key}"):
        assert "abcdefgh" not in shown
    assert scrub("the key sk-live-abcdefgh12345 failed", s) == "the key *** failed"


def test_keys_in_config_files_are_refused_and_broken_files_ignored(user_cfg, vault):
    user_cfg.write_text('model = "openai/x"\napi_key = "sk-should-not-be-here"\ntimeout = "soon"\n')
    (vault / ".wikitui" / "config.toml").write_text("model = [broken\n")
    s = load_settings(vault)
    assert s.model == "openai/x"
    assert s.timeout == 120.0
    joined = "\n".join(s.warnings)
    assert "API keys do not belong in config files" in joined
    assert "'timeout' has the wrong type" in joined
    assert "not valid TOML" in joined
    assert "sk-should-not-be-here" not in repr(s)


def test_save_user_setting_keeps_comments(user_cfg):
    user_cfg.write_text('# my settings\nmodel = "openai/x"  # the cheap one\n')
    save_user_setting("theme", "gruvbox")
    save_user_setting("keymap.review", "ctrl+e")
    text = user_cfg.read_text()
    assert "# my settings" in text and "# the cheap one" in text
    s = load_settings()
    assert (s.model, s.theme, s.keymap) == ("openai/x", "gruvbox", {"review": "ctrl+e"})
    with pytest.raises(ConfigError):
        save_user_setting("api_key", "sk-nope-12345678")
    assert "sk-nope" not in user_cfg.read_text()


def test_settings_default_repr_has_no_secret_fields():
    assert "api_key=" not in repr(Settings(model="m")).replace("api_key_env", "")
