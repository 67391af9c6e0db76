"""The core never imports the UI toolkit, and the CLI's start-up path stays light.

Harlequin's pattern: each check runs in a fresh interpreter, so modules imported by
other tests in this process cannot hide (or fake) a violation.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import wikitui.core


def loaded_after(code: str) -> set[str]:
    """Top-level package names in sys.modules after running ``code`` in a fresh interpreter."""
    script = code + "\nimport json, sys\nprint(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.splitlines()[-1]))


def core_modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(wikitui.core.__path__, prefix="wikitui.core.")]
    assert "wikitui.core.vault.lint" in names and "wikitui.core.vault.graph" in names
    return sorted(names)


def test_no_core_module_imports_textual_or_rich_or_litellm():
    modules = core_modules()
    loaded = loaded_after("\n".join(f"import {m}" for m in modules))
    assert "wikitui" in loaded
    assert not {"textual", "rich"} & loaded
    # litellm is imported lazily, inside the call that needs it.
    assert "litellm" not in loaded


def test_cli_and_search_start_without_the_ui_or_the_model_library():
    loaded = loaded_after("import wikitui.cli\nimport wikitui.core.search.facade")
    assert not {"textual", "rich", "litellm"} & loaded


def test_cli_module_imports_nothing_heavy_until_a_command_needs_it():
    loaded = loaded_after("import wikitui.cli")
    assert not {"textual", "rich", "litellm", "whoosh", "yaml", "frontmatter", "ruamel"} & loaded


def test_a_search_from_the_command_line_loads_only_what_it_needs(sample_vault):
    """`wikitui search` runs a search in a fresh process without the parser, YAML or dataclasses.

    Every module it imports is start-up time of every run: the query parser
    (built only for queries with operators), the YAML and page parsers (the
    index holds what they read) and ``dataclasses`` (it imports ``inspect``).
    """
    from wikitui.core.search.facade import SearchIndex
    from wikitui.core.vault.layout import Vault

    SearchIndex(Vault.open(sample_vault)).update()
    code = (
        "import sys\nfrom wikitui.cli import main\n"
        f"assert main(['search', 'white rabbit', '--vault', {str(sample_vault)!r}]) == 0\n"
    )
    loaded = loaded_after(code)
    assert "whoosh" in loaded and "wikitui" in loaded
    assert not {"textual", "rich", "litellm", "yaml", "frontmatter", "ruamel", "dataclasses", "inspect", "typing"} & loaded
