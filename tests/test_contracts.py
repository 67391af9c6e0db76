"""The layout's contracts (pyproject.toml ``[tool.importlinter]``) hold, and would catch a breach.

import-linter reads every import, including those inside functions (a deferred
import is still a dependency): the core never imports Textual, Rich or the UI;
only ``core/agent/llm.py`` imports litellm; widgets never import screens or the
app; dependencies point down (cli → ui → workspace → agent → changes | search |
outputs → vault); no two modules of a package import each other, directly or in
a ring. Each check runs in a fresh interpreter on the source tree as it is.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LINT = (
    "import sys\n"
    "from importlinter.cli import lint_imports\n"
    "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))\n"
)


def lint(root: Path) -> subprocess.CompletedProcess:
    """Run import-linter on the project at ``root`` (its pyproject.toml, its wikitui package)."""
    return subprocess.run([sys.executable, "-c", LINT], cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)})


def test_every_contract_is_kept():
    proc = lint(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_a_breach_of_each_contract_is_caught(tmp_path):
    """The contracts are not vacuous: the breaches this layout was rebuilt to end are each reported."""
    copy = tmp_path / "project"
    shutil.copytree(ROOT / "wikitui", copy / "wikitui", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    breaches = {
        # The core imports Textual (behind a function, as a "harmless" deferred import).
        "wikitui/core/vault/lint.py": "\n\ndef _breach():\n    import textual  # noqa: F401\n",
        # A module other than the model client imports litellm.
        "wikitui/core/agent/prompts/system.py": "\n\ndef _breach():\n    import litellm  # noqa: F401\n",
        # The help screen imports the app, which imports the workspace screen, which opens the help.
        "wikitui/ui/screens/help.py": "\n\ndef _breach():\n    from wikitui.ui.app import WikituiApp  # noqa: F401\n",
        # The chat's controller imports the pane that owns it.
        "wikitui/ui/chat/controller.py": "\n\ndef _breach():\n    from wikitui.ui.widgets import chat_pane  # noqa: F401\n",
        # A widget pushes a screen itself.
        "wikitui/ui/widgets/page_tree.py": "\n\ndef _breach():\n    from wikitui.ui.screens import outline  # noqa: F401\n",
        # The MCP session (plain Python) imports the SDK, which only core/mcp/server.py may.
        "wikitui/core/mcp/session.py": "\n\ndef _breach():\n    import mcp  # noqa: F401\n",
        # The vault reaches up into the changes.
        "wikitui/core/vault/graph.py": "\n\ndef _breach():\n    from wikitui.core.changes import pending  # noqa: F401\n",
    }
    for rel, code in breaches.items():
        with open(copy / rel, "a", encoding="utf-8") as fh:
            fh.write(code)
    proc = lint(copy)
    out = proc.stdout
    assert proc.returncode != 0 and "0 kept" in out, out
    assert "wikitui.core.vault.lint -> textual" in out
    assert "wikitui.core.agent.prompts.system -> litellm" in out
    assert "wikitui.ui.widgets.page_tree -> wikitui.ui.screens.outline" in out
    assert "wikitui.core.vault.graph -> wikitui.core.changes.pending" in out
    assert "wikitui.core.mcp.session -> mcp" in out
    assert "No cycles are allowed in wikitui.ui." in out  # app -> screens -> app; chat <-> widgets
