"""Theme files (``themes/*.toml`` and the user's own) turned into Textual themes.

A theme file is TOML with the fields of :class:`textual.theme.Theme` at the top
level (``name``, ``dark``, ``primary``, ``background``...) and a ``[variables]``
table. wikitui's own colours are the variables in :data:`WIKITUI_VARIABLES`; a theme
that leaves one out falls back to :data:`VARIABLE_DEFAULTS`, so Textual's built-in
themes work too. A file that does not parse or names a colour Textual cannot read
is skipped with a message; it never stops the app.

The chosen theme is remembered in the user's ``config.toml`` (see :func:`save_theme`).
"""

from __future__ import annotations

import importlib.util
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

import wikitui

#: The theme used when none was chosen.
DEFAULT_THEME = "wikitui-dark"

#: Fallback values of wikitui's own theme variables (used by themes that omit them).
VARIABLE_DEFAULTS: dict[str, str] = {
    "wikitui-link": "#58a6ff",
    "wikitui-link-unresolved": "#f85149",
    "wikitui-diff-added": "#3fb950",
    "wikitui-diff-removed": "#f85149",
}
#: wikitui-specific variables every theme may set.
WIKITUI_VARIABLES = tuple(VARIABLE_DEFAULTS)

_COLOR_FIELDS = (
    "primary", "secondary", "warning", "error", "success", "accent",
    "foreground", "background", "surface", "panel", "boost",
)


class ThemeFileError(ValueError):
    """A theme file that cannot become a theme; the message names the file and the problem."""


@dataclass
class ThemeLoad:
    """The result of loading theme folders.

    Attributes:
        themes: Valid themes, in file name order (a later folder overrides a name).
        errors: One line per skipped file.
    """

    themes: list[Theme] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def bundled_theme_dir() -> Path:
    """The folder of the bundled theme files.

    Installed (wheel, pipx, uv tool, or an editable install made with the current
    build config) they are the package ``wikitui.themes``, which the build maps
    from the repository's ``themes/`` folder; a checkout whose editable install
    predates that mapping still finds them beside the package.
    """
    try:
        spec = importlib.util.find_spec("wikitui.themes")
    except ImportError:
        spec = None
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(wikitui.__file__).resolve().parent.parent / "themes"


def user_config_dir() -> Path:
    """The user's wikitui config folder (``config.toml``, ``themes/``)."""
    import platformdirs

    return Path(platformdirs.user_config_dir("wikitui"))


def user_theme_dir() -> Path:
    """Where a user puts their own ``.toml`` themes."""
    return user_config_dir() / "themes"


def _check_color(path: Path, key: str, value: object) -> str:
    if not isinstance(value, str):
        raise ThemeFileError(f"{path.name}: {key} must be a colour string, not {type(value).__name__}")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeFileError(f"{path.name}: {key} = {value!r} is not a colour") from None
    return value


def load_theme_file(path: Path) -> Theme:
    """Read one theme file.

    Raises:
        ThemeFileError: The file is unreadable, not TOML, lacks ``name``/``primary``,
            or holds a value that is not a colour.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ThemeFileError(f"{path.name}: cannot read ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ThemeFileError(f"{path.name}: not valid TOML ({exc})") from None
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ThemeFileError(f"{path.name}: missing `name`")
    if "primary" not in data:
        raise ThemeFileError(f"{path.name}: missing `primary` colour")
    kwargs: dict = {"name": name.strip()}
    for key in _COLOR_FIELDS:
        if key in data:
            kwargs[key] = _check_color(path, key, data[key])
    if "dark" in data:
        if not isinstance(data["dark"], bool):
            raise ThemeFileError(f"{path.name}: `dark` must be true or false")
        kwargs["dark"] = data["dark"]
    variables = data.get("variables", {})
    if not isinstance(variables, dict):
        raise ThemeFileError(f"{path.name}: [variables] must be a table")
    merged = dict(VARIABLE_DEFAULTS)
    for key, value in variables.items():
        if not isinstance(value, str):
            raise ThemeFileError(f"{path.name}: variable {key} must be a string")
        if key in VARIABLE_DEFAULTS:
            _check_color(path, key, value)
        merged[key] = value
    kwargs["variables"] = merged
    unknown = set(data) - {"name", "dark", "variables", *_COLOR_FIELDS}
    if unknown:
        raise ThemeFileError(f"{path.name}: unknown keys {', '.join(sorted(unknown))}")
    return Theme(**kwargs)


def load_themes(*folders: Path) -> ThemeLoad:
    """Load every ``*.toml`` of ``folders`` (missing folders are fine).

    Defaults to the bundled folder and then the user's, so a user theme with the
    same name replaces a bundled one.
    """
    if not folders:
        folders = (bundled_theme_dir(), user_theme_dir())
    result = ThemeLoad()
    by_name: dict[str, Theme] = {}
    for folder in folders:
        try:
            files = sorted(folder.glob("*.toml"))
        except OSError:
            continue
        for path in files:
            try:
                theme = load_theme_file(path)
            except ThemeFileError as exc:
                result.errors.append(f"theme skipped: {exc}")
                continue
            by_name[theme.name] = theme
    result.themes = list(by_name.values())
    return result


def pick_theme(wanted: str | None, available: set[str]) -> tuple[str, str | None]:
    """The theme to use for ``wanted`` (None: the default), and a one-line notice when it is not available.

    The notice names the theme really used; when even the default is missing, the
    bundled themes are (a broken install), and it says where they were looked for.
    """
    wanted = wanted or DEFAULT_THEME
    if wanted in available:
        return wanted, None
    fallback = DEFAULT_THEME if DEFAULT_THEME in available else "textual-dark"
    if wanted == DEFAULT_THEME:
        return fallback, f"the bundled themes were not found (looked in {bundled_theme_dir()}); using {fallback}"
    return fallback, f"theme {wanted!r} not found; using {fallback}"


# ------------------------------------------------------------------ remembering
def saved_theme(vault: object = None) -> str | None:
    """The theme name the configuration names (the vault's config, else the user's); None when unset."""
    from wikitui.core.config.settings import load_settings

    return load_settings(vault).theme


def save_theme(name: str) -> None:
    """Remember ``name`` as the user's theme, keeping the rest of their config file.

    Raises:
        ConfigError: The config file cannot be updated (e.g. it is not valid TOML).
        OSError: It cannot be written.
    """
    from wikitui.core.config.settings import save_user_setting

    save_user_setting("theme", name)
