"""Where the built-in sample vault is: shipped in the package, or beside it in a checkout.

A wheel (pipx, uv tool) holds the repository's ``sample/`` folder as
``wikitui/sample/`` (setup.py maps it); an editable install made with that mapping
finds it through its import finder; a checkout whose editable install predates the
mapping finds it beside the package. ``wikitui eval`` copies it and never writes it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import wikitui
from wikitui.core.errors import WikituiError


def _is_sample(path: Path) -> bool:
    return (path / "WIKI.md").is_file() and (path / "wiki" / "index.md").is_file() and (path / "raw").is_dir()


def _candidates() -> list[Path]:
    package = Path(wikitui.__file__).resolve().parent
    found = [package / "sample"]  # a wheel: the mapped folder sits inside the package
    try:
        spec = importlib.util.find_spec("wikitui.sample")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        found.extend(Path(p) for p in spec.submodule_search_locations)
    found.append(package.parent / "sample")  # a checkout
    return found


def sample_vault_dir() -> Path:
    """The folder of the built-in sample vault.

    Raises:
        WikituiError: This installation lacks it (a broken or trimmed install).
    """
    for path in _candidates():
        if _is_sample(path):
            return path
    raise WikituiError("the built-in sample vault is missing from this installation of wikitui; "
                       "reinstall it (pip install --force-reinstall wikitui)")
