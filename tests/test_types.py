"""The hints are checked: mypy (pyproject.toml ``[tool.mypy]``) finds no error in ``wikitui/``.

Third-party packages without hints are skipped module by module in the config;
no wikitui module is. Each check runs mypy in a fresh interpreter (the same one)
on the source tree as it is, with its cache in ``.mypy_cache`` (ignored by git),
so a second run reads only what changed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def mypy(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run mypy with the project's config (and its cache) in ``cwd``."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(ROOT / ".mypy_cache"), *args],
        cwd=cwd, capture_output=True, text=True, timeout=280,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )


def test_mypy_finds_no_error_in_wikitui():
    proc = mypy()
    assert proc.returncode == 0, f"mypy's report:\n{proc.stdout}{proc.stderr}"
    assert "Success: no issues found" in proc.stdout


def test_the_config_is_in_force(tmp_path):
    """Not vacuous: a wrong hint, an error in an unannotated function and a needless ignore are each reported."""
    planted = tmp_path / "planted.py"
    planted.write_text(
        "def wrong() -> int:\n"
        "    return 'text'\n"
        "\n"
        "def untyped():\n"  # checked too: check_untyped_defs
        "    return 1 + 'one'\n"
        "\n"
        "x: int = 1  # type: ignore[assignment]\n",  # warn_unused_ignores
        encoding="utf-8",
    )
    proc = mypy(str(planted), cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = proc.stdout
    assert "planted.py:2: error" in report and "[return-value]" in report
    assert "planted.py:5: error" in report and "[operator]" in report
    assert "planted.py:7: error" in report and "[unused-ignore]" in report
