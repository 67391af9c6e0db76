"""Settings: which model to talk to, where, and the user's preferences (DESIGN §4).

One :class:`Settings` object is loaded once with :func:`load_settings` and passed
explicitly. Each value is resolved from, highest first:

1. the command line (``--model``),
2. the environment (``WIKITUI_MODEL``, ``WIKITUI_API_BASE``),
3. the vault's ``.wikitui/config.toml``,
4. the user's ``config.toml`` in ``platformdirs.user_config_dir("wikitui")``
   (``WIKITUI_CONFIG`` names another file instead; tests use it).

Config files are TOML with top-level keys. API keys never live in them: ``api_key_env``
names the environment variable that holds the key, and the key itself is only ever
held as a :class:`Secret`, whose ``repr``/``str`` never show it. When no ``api_base``
is configured, provider variables such as ``OPENAI_API_BASE`` are left to litellm.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, cast

from wikitui.core.base.errors import ConfigError
from wikitui.core.vault.files import atomic_write

#: Environment variable naming another user config file.
CONFIG_ENV = "WIKITUI_CONFIG"
#: Environment variable choosing the model.
MODEL_ENV = "WIKITUI_MODEL"
#: Environment variable pointing at an OpenAI-compatible server.
API_BASE_ENV = "WIKITUI_API_BASE"

#: Keys a config file may set, with the type each must have.
_FILE_KEYS: dict[str, type | tuple[type, ...]] = {
    "model": str,
    "api_base": str,
    "api_key_env": str,
    "timeout": (int, float),
    "request_timeout_s": (int, float),
    "max_output_tokens": int,
    "eval_task_timeout": (int, float),
    "max_rounds": int,
    "initial_context_tokens": int,
    "context_tokens": int,
    "compact": (bool, str),
    "theme": str,
    "keymap": dict,
    "review_model": str,
    "background": dict,
    "sync": dict,
    "inbox": dict,
    "research": dict,
    "history_keep": int,
    "author": str,
    "batch_max_cost": (int, float),
    "batch_concurrency": int,
    "link_root": str,
}
#: Keys that describe one vault: read from its ``.wikitui/config.toml`` only (the vault reads them itself).
_VAULT_ONLY = ("link_root",)
#: Keys whose value must be above zero (a limit of 0 would fail every request).
_POSITIVE = ("request_timeout_s", "max_output_tokens", "batch_concurrency")
#: Config keys that look like a secret: refused, because keys live in the environment.
_SECRET_KEY = re.compile(r"(^|_)(api_key|key|token|secret|password)$", re.IGNORECASE)


class Secret:
    """A secret string (an API key) whose ``repr`` and ``str`` never reveal it.

    Args:
        value: The secret.
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get_secret_value(self) -> str:
        """The secret itself; pass it only to the client that needs it."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


class NoModelConfigured(ConfigError):
    """No model is configured; the message says exactly how to configure one."""

    def __init__(self, user_config: Path | None = None) -> None:
        where = user_config or user_config_path()
        super().__init__(
            "no model configured: pass --model provider/name (e.g. --model openai/gpt-4o-mini), "
            f"or set {MODEL_ENV}=provider/name, or add the line model = \"provider/name\" to {where} "
            "(or to the vault's .wikitui/config.toml); put the API key in the provider's variable "
            "(e.g. OPENAI_API_KEY) or name your own with api_key_env"
        )


@dataclass
class Settings:
    """Everything wikitui reads from configuration.

    Attributes:
        model: The litellm model name (``provider/name``, e.g. ``openai/gpt-4o-mini``);
            None when nothing configures one (browsing, search and lint still work).
        api_base: Base URL of an OpenAI-compatible or self-hosted server; None leaves
            the provider's own variables (``OPENAI_API_BASE``...) to litellm.
        api_key_env: The NAME of the environment variable holding the API key; None
            lets litellm read the provider's usual variable (``OPENAI_API_KEY``...).
        timeout: Seconds to wait for the model before a request times out: for its first byte, and between
            two pieces of its answer.
        request_timeout_s: Seconds one model request may take in all, its whole streamed answer included
            (DESIGN §8: every wait has a total deadline): a server that trickles tokens forever is stopped there,
            and the turn fails with a message naming the limit. 300 by default, room for a slow local model.
        max_output_tokens: Tokens the model may answer with per request (sent as ``max_tokens``); None: the
            answer's share of the context window that wikitui keeps free (an eighth, at most 8,192).
        eval_task_timeout: Seconds one ``wikitui eval`` task may take before it fails (None: the
            eval's default); ``--task-timeout`` overrides it.
        max_rounds: Most tool-call rounds in one agent turn before it must answer.
        initial_context_tokens: Cap on the tokens of WIKI.md plus index.md sent with
            every request (also capped at a quarter of the model's context window).
        context_tokens: The model's context window in tokens, when you know it better than
            litellm or the server (llama.cpp's ``-c``, vLLM's ``--max-model-len``); None:
            litellm's model data, else the server's ``/models`` entry, else 8,192.
        compact: The agent's compact instructions and four tools (read, search, propose_edit,
            propose_page) for small windows: True always, False never, None (``"auto"``, the
            default) when the full set would take more than half the window or not fit it.
        theme: The UI theme's name; None for the default.
        keymap: Key overrides, action name to key (``{"review": "ctrl+e"}``).
        review_model: A second model that reads every changeset's hunks before the human
            does and notes ``ok``/``doubt``/``wrong`` on each (DESIGN §11); None: no second review.
        batch_max_cost: A batch (``wikitui ingest raw/folder/``) stops once a run of it spent this
            many US dollars, the rest left queued (``--max-cost`` overrides it); None: no cap.
        batch_concurrency: How many of a batch's sources may have a turn in flight at once: 1, one
            after another; N, while one source is written the plan phases of the next N-1 run
            (writes stay in order, each over the earlier ones' proposals). At least 1.
        lint_after_idle_minutes: ``[background] lint_after_idle_minutes``: the TUI runs the
            semantic lint after this long idle, leaving its proposals pending; None: off.
        sync_every_minutes: ``[sync] every_minutes``: the TUI syncs with the git upstream this often (it pushes
            only when nothing is pending review); None: off.
        inbox_feeds: ``[inbox] feeds``: the RSS and Atom feeds ``wikitui inbox`` brings into raw/inbox/.
        inbox_every_minutes: ``[inbox] every_minutes``: the TUI runs the inbox this often in the background;
            None: off.
        author: The name log.md entries and wikitui's commits carry (None: git's ``user.name``).
        link_root: The vault's folder site-rooted links start from (``content`` for a Quartz or Hugo site), set
            in the vault's config; :attr:`~wikitui.core.vault.layout.Vault.link_root` reads it (or detects the
            site's content folder), so links resolve by it wherever a vault is opened.
        history_keep: How many applied changesets keep their before-images in ``.wikitui/history/``
            (for ``/undo`` and, without git, a page's history); at least 1.
        research: The ``[research]`` table as validated (``searxng_url``, ``provider``, ``api_key_env``,
            ``api_url``, ``timeout_s``); :func:`~wikitui.core.research.provider.provider_from` reads it.
        user_config: The user config file these settings were read from (it may not exist).
        sources: Where each configured value came from (``{"model": "WIKITUI_MODEL"}``).
        warnings: Problems found in config files (ignored values); shown, never fatal.
    """

    model: str | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    timeout: float = 120.0
    request_timeout_s: float = 300.0
    max_output_tokens: int | None = None
    eval_task_timeout: float | None = None
    max_rounds: int = 25
    initial_context_tokens: int = 8000
    context_tokens: int | None = None
    compact: bool | None = None
    theme: str | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    review_model: str | None = None
    lint_after_idle_minutes: float | None = None
    sync_every_minutes: float | None = None
    inbox_feeds: list[str] = field(default_factory=list)
    inbox_every_minutes: float | None = None
    history_keep: int = 200
    author: str | None = None
    batch_max_cost: float | None = None
    batch_concurrency: int = 1
    link_root: str | None = None
    research: dict[str, Any] = field(default_factory=dict)
    user_config: Path | None = None
    sources: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def api_key(self) -> Secret | None:
        """The API key from ``$api_key_env``, wrapped; None when unset (litellm then looks itself)."""
        if not self.api_key_env:
            return None
        value = os.environ.get(self.api_key_env)
        return Secret(value) if value else None

    def require_model(self) -> str:
        """The model name.

        Raises:
            NoModelConfigured: with instructions, when none is configured.
        """
        if not self.model:
            raise NoModelConfigured(self.user_config)
        return self.model

    def __repr__(self) -> str:  # no secret lives here, but keep the repr short and stable
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.name not in ("sources", "warnings"))
        return f"Settings({shown})"


def user_config_path() -> Path:
    """The user's config file: ``$WIKITUI_CONFIG`` or ``config.toml`` in the platform config folder."""
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs  # deferred: only needed when resolving the path

    return Path(platformdirs.user_config_dir("wikitui")) / "config.toml"


def _read_toml(path: Path, warnings: list[str]) -> dict:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        warnings.append(f"{path}: cannot read ({exc.strerror or exc}); ignored")
    except tomllib.TOMLDecodeError as exc:
        warnings.append(f"{path}: not valid TOML ({exc}); ignored")
    return {}


def _apply_file(settings: Settings, data: dict, origin: str, *, vault: bool = False) -> None:
    for key, value in data.items():
        if key in _VAULT_ONLY and not vault:
            settings.warnings.append(f"{origin}: {key!r} describes one vault: set it in the vault's "
                                     ".wikitui/config.toml; ignored")
            continue
        want = _FILE_KEYS.get(key)
        if want is None:
            if _SECRET_KEY.search(key):
                settings.warnings.append(
                    f"{origin}: {key!r} ignored: API keys do not belong in config files; "
                    "set api_key_env to the name of the variable that holds the key"
                )
            continue  # other tools' keys (wiki_dir, raw_dir...) are not ours to judge
        if key == "compact":
            _apply_compact(settings, value, origin)
            continue
        if isinstance(value, bool) or not isinstance(value, want):
            settings.warnings.append(f"{origin}: {key!r} has the wrong type ({type(value).__name__}); ignored")
            continue
        if key in _POSITIVE and cast(float, value) <= 0:
            settings.warnings.append(f"{origin}: {key!r} must be a positive number; ignored")
            continue
        if key == "keymap":
            # (the casts: value is an instance of want, checked above)
            settings.keymap.update({str(k): str(v) for k, v in cast(dict, value).items()})
        elif key == "background":
            _apply_background(settings, cast(dict, value), origin)
            continue
        elif key == "sync":
            _apply_sync(settings, cast(dict, value), origin)
            continue
        elif key == "inbox":
            _apply_inbox(settings, cast(dict, value), origin)
        elif key == "research":
            _apply_research(settings, cast(dict, value), origin)
            continue
        else:
            setattr(settings, key, float(cast(float, value)) if key in ("timeout", "request_timeout_s",
                                                                        "eval_task_timeout", "batch_max_cost")
                    else value)
        settings.sources[key] = origin


def _apply_compact(settings: Settings, value: object, origin: str) -> None:
    """``compact = true | false | "auto"``: the agent's compact instructions and tools for small windows."""
    if isinstance(value, str) and value.strip().lower() == "auto":
        settings.compact = None
    elif isinstance(value, bool):
        settings.compact = value
    else:
        settings.warnings.append(f'{origin}: compact must be true, false or "auto"; ignored')
        return
    settings.sources["compact"] = origin


def _minutes(settings: Settings, table: dict, section: str, key: str, origin: str) -> tuple[bool, float | None]:
    """``[section] key``, a number of minutes (0 or absent: off): (whether it is set and valid, its value or None)."""
    if key not in table:
        return False, None
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        settings.warnings.append(f"{origin}: {section}.{key} must be a number of minutes (0 or absent: off); ignored")
        return False, None
    settings.sources[f"{section}.{key}"] = origin
    return True, float(value) if value > 0 else None


def _apply_background(settings: Settings, table: dict, origin: str) -> None:
    """The ``[background]`` table: ``lint_after_idle_minutes`` (a positive number; 0 turns it off)."""
    found, minutes = _minutes(settings, table, "background", "lint_after_idle_minutes", origin)
    if found:
        settings.lint_after_idle_minutes = minutes


def _apply_sync(settings: Settings, table: dict, origin: str) -> None:
    """The ``[sync]`` table: ``every_minutes`` (a positive number; 0 turns it off)."""
    found, minutes = _minutes(settings, table, "sync", "every_minutes", origin)
    if found:
        settings.sync_every_minutes = minutes


def _apply_inbox(settings: Settings, table: dict, origin: str) -> None:
    """The ``[inbox]`` table: ``feeds`` (a list of http(s) addresses) and ``every_minutes`` (0 or absent: off)."""
    if "feeds" in table:
        feeds = table["feeds"]
        if not isinstance(feeds, list) or not all(isinstance(f, str) for f in feeds):
            settings.warnings.append(f"{origin}: inbox.feeds must be a list of feed addresses; ignored")
        else:
            good = [f.strip() for f in feeds if f.strip().lower().startswith(("http://", "https://"))]
            if len(good) < len([f for f in feeds if f.strip()]):
                settings.warnings.append(f"{origin}: inbox.feeds: only http(s) addresses are read; the others "
                                         "are ignored")
            settings.inbox_feeds = good
            settings.sources["inbox.feeds"] = origin
    found, minutes = _minutes(settings, table, "inbox", "every_minutes", origin)
    if found:
        settings.inbox_every_minutes = minutes


#: The ``[research]`` table's keys and their types (DESIGN §9; :mod:`~wikitui.core.research.provider`).
_RESEARCH_KEYS: dict[str, type | tuple[type, ...]] = {
    "searxng_url": str, "provider": str, "api_key_env": str, "api_url": str, "timeout_s": (int, float),
}


def _apply_research(settings: Settings, table: dict, origin: str) -> None:
    """The ``[research]`` table: the web search provider (a SearXNG address, or a provider and its key's variable)."""
    for key, value in table.items():
        want = _RESEARCH_KEYS.get(key)
        if want is None:
            why = ("API keys do not belong in config files; set api_key_env to the name of the variable that "
                   "holds the key" if _SECRET_KEY.search(key) else "not a research setting")
            settings.warnings.append(f"{origin}: research.{key} ignored: {why}")
            continue
        if isinstance(value, bool) or not isinstance(value, want) or (key == "timeout_s" and cast(float, value) <= 0):
            settings.warnings.append(f"{origin}: research.{key} has the wrong type or value; ignored")
            continue
        if key == "provider" and value not in ("searxng", "brave"):
            settings.warnings.append(f'{origin}: research.provider must be "searxng" or "brave"; ignored')
            continue
        if key in ("searxng_url", "api_url") and not str(value).lower().startswith(("http://", "https://")):
            settings.warnings.append(f"{origin}: research.{key} must be an http:// or https:// address; ignored")
            continue
        settings.research[key] = value
        settings.sources[f"research.{key}"] = origin


def _vault_config_path(vault: object) -> Path | None:
    if vault is None:
        return None
    # A Vault has .state_dir; a plain path is the vault folder (Path.root means something else).
    state = getattr(vault, "state_dir", None)
    folder = cast("str | os.PathLike[str]", vault)
    return Path(state) / "config.toml" if state is not None else Path(folder) / ".wikitui" / "config.toml"


def load_settings(vault: object = None, cli_model: str | None = None) -> Settings:
    """Resolve the settings (command line > environment > vault config > user config).

    Args:
        vault: A :class:`~wikitui.core.vault.layout.Vault` or a vault folder, or None.
        cli_model: The ``--model`` option, when given.

    Returns:
        The settings; problems in config files are in ``settings.warnings``, never raised.
    """
    settings = Settings()
    user = user_config_path()
    settings.user_config = user
    _apply_file(settings, _read_toml(user, settings.warnings), str(user))
    vault_cfg = _vault_config_path(vault)
    if vault_cfg is not None:
        _apply_file(settings, _read_toml(vault_cfg, settings.warnings), str(vault_cfg), vault=True)
    for env, key in ((MODEL_ENV, "model"), (API_BASE_ENV, "api_base")):
        value = os.environ.get(env, "").strip()
        if value:
            setattr(settings, key, value)
            settings.sources[key] = env
    if cli_model:
        settings.model = cli_model
        settings.sources["model"] = "--model"
    return settings


def save_user_setting(key: str, value: object) -> Path:
    """Set one top-level key (or ``table.key``) in the user's config file, keeping its comments.

    Used by the UI to remember the theme. Written atomically.

    Args:
        key: ``"theme"`` or a dotted ``"keymap.review"``.
        value: A TOML-representable value.

    Returns:
        The file written.

    Raises:
        ConfigError: for a secret-looking key (keys belong in the environment) or an
            unreadable existing file.
    """
    import tomlkit  # deferred: only the UI's "remember" path writes config

    parts = key.split(".")
    if any(_SECRET_KEY.search(p) for p in parts):
        raise ConfigError(f"{key}: API keys are not stored in config files; set api_key_env to a variable's name")
    path = user_config_path()
    try:
        doc = tomlkit.parse(path.read_text("utf-8")) if path.exists() else tomlkit.document()
    except (OSError, tomlkit.exceptions.TOMLKitError) as exc:
        raise ConfigError(f"{path}: cannot update the config file ({exc})") from exc
    table = doc
    for part in parts[:-1]:
        if part not in table:
            table[part] = tomlkit.table()
        table = table[part]
    table[parts[-1]] = value
    atomic_write(path, tomlkit.dumps(doc))
    return path


def secret_values(settings: Settings | None = None) -> list[str]:
    """Values that must never be written anywhere: the configured key and any ``*_API_KEY``-like variable."""
    out = set()
    if settings is not None and settings.api_key is not None:
        out.add(settings.api_key.get_secret_value())
    for name, value in os.environ.items():
        if value and len(value) >= 8 and re.search(r"(API_KEY|_TOKEN|_SECRET)$", name):
            out.add(value)
    return sorted(out, key=len, reverse=True)


#: Shapes of API keys and credentials that may appear in a provider's error text.
_KEYLIKE = re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{8,}|(?<=Bearer )[^\s'\"]+")


def scrub(text: str, settings: Settings | None = None) -> str:
    """``text`` with every known secret (and anything shaped like an API key) replaced by ``***``."""
    if not text:
        return text
    for secret in secret_values(settings):
        text = text.replace(secret, "***")
    return _KEYLIKE.sub("***", text)
