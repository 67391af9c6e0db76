"""No module touches another class's private attributes: ruff's SLF001 finds nothing in ``wikitui/``.

Nor does a class lean on its host's: no mixin declares, for the type checker, what the class it is
mixed into provides (the turn endings, the page's scrolling and sixel pictures were such mixins;
each is now a collaborator its owner hands what it needs, or folded back).

The only modules let off are the adapters over third-party internals (pyproject.toml's
``[tool.ruff.lint.per-file-ignores]``), one per library, each the only place reading that
library's private attributes. Each check runs ruff with the project's config on the tree as it is.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run ruff's private-member check (SLF001) with the project's config in ``cwd``."""
    return subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--config", str(ROOT / "pyproject.toml"), "--select", "SLF001",
         "--output-format", "concise", "--no-cache", *args],
        cwd=cwd, capture_output=True, text=True, timeout=120,
    )


def adapters() -> dict[str, list[str]]:
    """The per-file ignores: the adapters over third-party internals (path pattern -> rules)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    return config["tool"]["ruff"]["lint"]["per-file-ignores"]


def test_no_module_reads_another_classs_private_attributes():
    proc = ruff("wikitui")
    assert proc.returncode == 0, f"ruff's report:\n{proc.stdout}{proc.stderr}"
    assert "All checks passed!" in proc.stdout


def test_the_check_is_in_force(tmp_path):
    """Not vacuous: a private attribute of another object is reported, one of ``self`` is not."""
    planted = tmp_path / "planted.py"
    planted.write_text(
        "class Session:\n"
        "    def __init__(self):\n"
        "        self._running = False\n"  # its own: fine
        "\n"
        "def run_phase(session):\n"
        "    session._running = True\n",  # another's: reported
        encoding="utf-8",
    )
    proc = ruff(str(planted), cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "planted.py:6:5: SLF001" in proc.stdout
    assert "planted.py:3" not in proc.stdout


def private_names_by_string(path: Path, root: Path = ROOT) -> list[str]:
    """``getattr(x, "_name")`` and its kin (setattr, hasattr, delattr) on an object other than ``self``/``cls``:
    the private access ruff's SLF001 does not see."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "setattr", "hasattr", "delattr") and len(node.args) >= 2):
            owner, name = node.args[0], node.args[1]
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if (isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.startswith("_")
                    and not name.value.startswith("__")):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.func.id}(…, {name.value!r})")
    return found


def test_no_module_reaches_a_private_attribute_by_its_name_either(tmp_path):
    """The same rule where SLF001 cannot look: a private attribute named in a string, outside the adapters."""
    let_off = {path for pattern in adapters() for path in ROOT.glob(pattern)}
    found = [hit for path in sorted((ROOT / "wikitui").rglob("*.py")) if path not in let_off
             for hit in private_names_by_string(path)]
    assert found == []
    planted = tmp_path / "planted.py"  # not vacuous: the dodge is found, a look at one's own state is not
    planted.write_text("def size(app):\n    return getattr(app, '_driver', None)\n\n"
                       "class Box:\n    def kind(self):\n        return getattr(self, '_kind', '')\n", encoding="utf-8")
    assert private_names_by_string(planted, tmp_path) == ["planted.py:2: getattr(…, '_driver')"]


def test_only_adapters_are_let_off_and_each_needs_it():
    """Each ignore names an adapter that exists and does read private attributes (no stale or idle ignore)."""
    ignores = adapters()
    assert ignores and all(rules == ["SLF001"] for rules in ignores.values())
    for pattern in ignores:
        files = sorted(ROOT.glob(pattern))
        assert files, f"{pattern}: no such module (a stale ignore)"
        proc = subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "SLF001", "--output-format",
             "concise", "--no-cache", *map(str, files)],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )
        by_name = [hit for path in files for hit in private_names_by_string(path)]
        assert (proc.returncode == 1 and "SLF001" in proc.stdout) or by_name, (
            f"{pattern} touches no private attribute: drop it")


def host_leaning_classes(root: Path) -> list[str]:
    """Classes that declare their host's attributes (``if TYPE_CHECKING:`` in the class body) or stand on ``_Host``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            declares = any(isinstance(stmt, ast.If) and "TYPE_CHECKING" in ast.unparse(stmt.test) for stmt in node.body)
            stand_in = any(ast.unparse(base) == "_Host" for base in node.bases)
            if declares or stand_in:
                found.append(f"{path.relative_to(root.parent)}: {node.name}")
    return found


def test_no_class_leans_on_its_hosts_state(tmp_path):
    assert host_leaning_classes(ROOT / "wikitui") == []
    planted = tmp_path / "pkg" / "mixin.py"  # not vacuous: the old TurnEndings' shape is found
    planted.parent.mkdir()
    planted.write_text(
        "from typing import TYPE_CHECKING\n\n"
        "class TurnEndings:\n"
        "    if TYPE_CHECKING:\n"
        "        _feedback: str | None\n\n"
        "    def finish(self):\n"
        "        self._feedback = None\n",
        encoding="utf-8",
    )
    assert host_leaning_classes(planted.parent) == ["pkg/mixin.py: TurnEndings"]


#: The one module a private module of each library may be imported from (its adapter).
PRIVATE_MODULE_ADAPTERS = {
    "textual": "wikitui/ui/textual_internals.py",
    "textual_image": "wikitui/ui/terminal_pictures.py",
}


def private_imports(path: Path) -> list[tuple[int, str]]:
    """(line, dotted name) of each import of a private module or name of the adapted libraries in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] in PRIVATE_MODULE_ADAPTERS and any(p.startswith("_") and not p.startswith("__")
                                                         for p in parts):
                found.append((node.lineno, name))
    return found


def test_textual_and_textual_images_private_modules_are_imported_by_their_adapters_only():
    strays = [f"{path.relative_to(ROOT)}:{line}: {name}"
              for path in sorted((ROOT / "wikitui").rglob("*.py"))
              for line, name in private_imports(path)
              if PRIVATE_MODULE_ADAPTERS[name.split(".")[0]] != path.relative_to(ROOT).as_posix()]
    assert strays == [], "\n".join(strays)
    # Not vacuous: each adapter does import what it adapts.
    for library, adapter in PRIVATE_MODULE_ADAPTERS.items():
        assert any(name.startswith(library + ".") for _, name in private_imports(ROOT / adapter))


def test_the_private_import_check_is_in_force(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("from textual._time import get_time\nimport textual_image._sixel\n"
                       "from textual.widgets import Footer\n", encoding="utf-8")
    assert [name for _, name in private_imports(planted)] == [
        "textual._time", "textual._time.get_time", "textual_image._sixel"]
