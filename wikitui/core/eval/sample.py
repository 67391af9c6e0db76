"""Where the built-in vaults are: shipped in the package, or beside it in a checkout.

A wheel (pipx, uv tool) holds the repository's ``sample/`` folder as
``wikitui/sample/`` and its ``evalworld/`` folder (the eval's invented world) as
``wikitui/evalworld/`` (setup.py maps them); an editable install made with that
mapping finds them through its import finder; a checkout whose editable install
predates the mapping finds them beside the package. ``wikitui eval`` copies them and
never writes them.
"""

from __future__ import annotations

import importlib.util
import os
import stat
from pathlib import Path

import wikitui
from wikitui.core.base.errors import WikituiError


def _is_sample(path: Path) -> bool:
    return (path / "WIKI.md").is_file() and (path / "wiki" / "index.md").is_file() and (path / "raw").is_dir()


def _candidates(name: str) -> list[Path]:
    package = Path(wikitui.__file__).resolve().parent
    found = [package / name]  # a wheel: the mapped folder sits inside the package
    try:
        spec = importlib.util.find_spec(f"wikitui.{name}")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        found.extend(Path(p) for p in spec.submodule_search_locations)
    found.append(package.parent / name)  # a checkout
    return found


def _shipped(name: str, what: str) -> Path:
    for path in _candidates(name):
        if _is_sample(path):
            return path
    raise WikituiError(f"the built-in {what} is missing from this installation of wikitui; "
                       "reinstall it (pip install --force-reinstall wikitui)")


def sample_vault_dir() -> Path:
    """The folder of the built-in sample vault.

    Raises:
        WikituiError: This installation lacks it (a broken or trimmed install).
    """
    return _shipped("sample", "sample vault")


def world_vault_dir() -> Path:
    """The folder of the eval's invented-world vault (Port Sallowmir).

    Raises:
        WikituiError: This installation lacks it (a broken or trimmed install).
    """
    return _shipped("evalworld", "eval world vault")


#: The folder ``wikitui sample`` makes when it is given none (numbered when taken: ``wikitui-sample-2``...).
DEFAULT_COPY = "wikitui-sample"


def free_sample_folder(where: Path) -> Path:
    """``where/wikitui-sample``, or the first of ``wikitui-sample-2``, ``-3``... that does not exist."""
    for n in range(1, 10_000):
        path = where / (DEFAULT_COPY if n == 1 else f"{DEFAULT_COPY}-{n}")
        if not path.exists() and not path.is_symlink():
            return path
    raise WikituiError(f"no free name for {DEFAULT_COPY} in {where}; name a folder: `wikitui sample DEST`")


def copy_sample(dest: Path) -> Path:
    """Copy the built-in sample vault to the NEW folder ``dest``; its ``.wikitui/`` (if any) is left behind.

    The package's own copy is only read: trying the sample edits the copy, never the
    installation (nor, with ``pip install -e``, the repository's tracked files).

    Raises:
        WikituiError: ``dest`` exists, or the sample is missing from this installation.
    """
    import shutil

    if dest.exists() or dest.is_symlink():
        raise WikituiError(f"{dest} already exists; give a new folder (`wikitui sample DEST`)")
    source = sample_vault_dir()
    # Plain copies of the bytes: an installation's files may be read-only (a system or Nix install),
    # and the copy is the person's to edit.
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".wikitui", "__pycache__", "__init__.py"),
                    copy_function=shutil.copyfile)
    for folder, _dirs, _files in os.walk(dest):
        os.chmod(folder, os.stat(folder).st_mode | stat.S_IWUSR)
    return dest
