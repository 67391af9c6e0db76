"""Packaging: the wheel ships the themes and the sample vault, and an app installed from it (as pipx or uv
tool would) finds them.

The wheel is built offline with the test environment's own setuptools
(``--no-build-isolation``; the ``test`` extra pins a recent one).
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

# One worker runs the module (pytest-xdist --dist loadgroup): the wheel is built once, not once per worker.
pytestmark = pytest.mark.xdist_group("packaging")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Build from a copy of the project's files: building in place leaves build/ and egg-info behind.
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "setup.py", "README.md", "wikitui", "themes", "sample", "evalworld"):
        path = ROOT / name
        if not path.exists():
            continue
        if path.is_dir():
            subprocess.run(["cp", "-r", str(path), str(src / name)], check=True)
        else:
            (src / name).write_bytes(path.read_bytes())
    run = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(out), str(src)],
        capture_output=True, text=True, timeout=240,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (built,) = out.glob("wikitui-*.whl")
    return built


def test_the_wheel_holds_every_bundled_theme(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    shipped = sorted(n.rsplit("/", 1)[-1] for n in names if n.startswith("wikitui/themes/") and n.endswith(".toml"))
    assert shipped == sorted(p.name for p in (ROOT / "themes").glob("*.toml"))
    assert "wikitui-dark.toml" in shipped
    # Every module of the package is in the wheel too (nothing lost by the package mapping).
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "wikitui").rglob("*.py")}
    assert modules <= set(names)


def run_in_installed_wheel(wheel: Path, tmp_path: Path, script: str) -> tuple[Path, list[str]]:
    """Install the wheel into a fresh venv and run ``script`` there; (the venv, the lines it printed).

    The dependencies (textual...) come from the test environment, after the fresh venv's own
    site-packages; that environment's editable wikitui is not visible (its .pth is not read).
    """
    fresh = tmp_path / "venv"
    venv.create(fresh, with_pip=False)
    python = fresh / "bin" / "python"
    run = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)],
        capture_output=True, text=True, timeout=240,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    deps = next(Path(p) for p in sys.path if p.endswith("site-packages"))
    env = {**os.environ, "PYTHONPATH": str(deps)}
    out = subprocess.run([str(python), "-c", script], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return fresh, out.stdout.splitlines()


def test_an_app_installed_from_the_wheel_finds_its_themes(wheel, tmp_path, sample_vault):
    script = (
        "import wikitui, sys\n"
        "from wikitui.ui.app import make_app\n"
        f"app = make_app({str(sample_vault)!r}, watch=False, index=False)\n"
        "print(wikitui.__file__)\n"
        "print(app.theme)\n"
        "print(sorted(app.available_themes))\n"
        "print(app._theme_errors)\n"
    )
    fresh, (where, theme, themes, errors) = run_in_installed_wheel(wheel, tmp_path, script)
    assert where.startswith(str(fresh)), where  # the installed copy, not the checkout
    assert theme == "wikitui-dark"
    for name in ("wikitui-dark", "wikitui-light", "gruvbox-ish", "nord-ish", "solarized-light"):
        assert repr(name) in themes
    assert errors == "[]"


def test_the_wheel_ships_the_sample_vault_and_an_install_finds_it_for_eval(wheel, tmp_path):
    names = set(zipfile.ZipFile(wheel).namelist())
    sample = {p.relative_to(ROOT / "sample").as_posix() for p in (ROOT / "sample").rglob("*") if p.is_file()}
    shipped = {n.removeprefix("wikitui/sample/") for n in names if n.startswith("wikitui/sample/")}
    assert shipped == sample and "WIKI.md" in shipped and "raw/chapter-01.md" in shipped
    assert not any(n.endswith(".py") for n in shipped)  # a data folder: the vault stays a plain vault
    script = (
        "import tempfile, pathlib\n"
        "from wikitui.core.eval.sample import sample_vault_dir\n"
        "from wikitui.core.eval.fixture import prepare_base\n"
        "print(sample_vault_dir())\n"
        "base = prepare_base(pathlib.Path(tempfile.mkdtemp()) / 'base')\n"
        "print((base / 'wiki/objects/treacle-well.md').exists())\n"
    )
    fresh, (where, planted) = run_in_installed_wheel(wheel, tmp_path, script)
    assert where == str(fresh / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
                        / "wikitui" / "sample"), where
    assert planted == "True"


def test_the_wheel_ships_the_eval_world_and_an_install_finds_it_for_eval(wheel, tmp_path):
    names = set(zipfile.ZipFile(wheel).namelist())
    world = {p.relative_to(ROOT / "evalworld").as_posix() for p in (ROOT / "evalworld").rglob("*") if p.is_file()}
    shipped = {n.removeprefix("wikitui/evalworld/") for n in names if n.startswith("wikitui/evalworld/")}
    assert shipped == world and "raw/harbour-ledger.md" in shipped and "wiki/index.md" in shipped
    assert not any(n.endswith(".py") for n in shipped)
    script = (
        "import tempfile, pathlib\n"
        "from wikitui.core.eval.sample import world_vault_dir\n"
        "from wikitui.core.eval.fixture import prepare_world, task_vault\n"
        "from wikitui.core.eval.world import LONG\n"
        "print(world_vault_dir())\n"
        "tmp = pathlib.Path(tempfile.mkdtemp())\n"
        "base = prepare_world(tmp / 'base')\n"
        "copy = task_vault(base, tmp / 'task', (LONG,))\n"
        "print((copy / 'raw/harbour-ledger.md').exists(), len((copy / LONG).read_text().split()) >= 30000)\n"
    )
    fresh, (where, found) = run_in_installed_wheel(wheel, tmp_path, script)
    assert where == str(fresh / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
                        / "wikitui" / "evalworld"), where
    assert found == "True True"


def test_wikitui_sample_works_from_an_install_outside_the_repository(wheel, tmp_path):
    # pipx / uv tool: no checkout anywhere near; the command copies the sample shipped in the package.
    script = (
        "import sys\n"
        "from wikitui.cli import main\n"
        "code = main(['sample', '--no-open'])\n"
        "print(code)\n"
    )
    _fresh, lines = run_in_installed_wheel(wheel, tmp_path, script)
    copy = tmp_path / "wikitui-sample"
    assert lines == [str(copy), "0"]
    assert (copy / "WIKI.md").is_file() and (copy / "raw" / "chapter-12.md").is_file()
    assert (copy / "wiki" / "characters" / "cheshire-cat.md").is_file()
