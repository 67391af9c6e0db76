"""The layout's contracts (pyproject.toml ``[tool.importlinter]``) hold, and would catch a breach.

import-linter reads every import, including those inside functions (a deferred
import is still a dependency): the core never imports Textual, Rich or the UI;
only ``core/agent/llm.py`` imports litellm; widgets never import screens or the
app; dependencies point down (cli → ui | mcp | eval → workspace → batch | sync |
live → agent → changes | search | outputs → config → vault → base), and every
package is named in those layers; no two modules of a package import each other,
directly or in a ring. Beyond import-linter, no modules of wikitui import each
other in a ring at all, counting imports under ``TYPE_CHECKING``: a ring there is
still two modules that cannot be read or changed one without the other. Each
check runs in a fresh interpreter on the source tree as it is.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
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


#: Prints each ring of wikitui's modules (a strongly connected component of the import graph, imports under
#: ``TYPE_CHECKING`` and inside functions counted), one per line, its modules sorted.
RINGS = """
import grimp
graph = grimp.build_graph("wikitui", cache_dir=None, exclude_type_checking_imports=False)
edges = {m: sorted(i for i in graph.find_modules_directly_imported_by(m) if i in graph.modules)
         for m in graph.modules}
order, low, stack, on_stack, counter = {}, {}, [], set(), 0
for root in sorted(edges):
    if root in order:
        continue
    work = [(root, iter(edges[root]))]
    order[root] = low[root] = counter; counter += 1; stack.append(root); on_stack.add(root)
    while work:
        node, rest = work[-1]
        for nxt in rest:
            if nxt not in order:
                order[nxt] = low[nxt] = counter; counter += 1; stack.append(nxt); on_stack.add(nxt)
                work.append((nxt, iter(edges[nxt])))
                break
            if nxt in on_stack:
                low[node] = min(low[node], order[nxt])
        else:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == order[node]:
                ring = []
                while True:
                    top = stack.pop(); on_stack.discard(top); ring.append(top)
                    if top == node:
                        break
                if len(ring) > 1:
                    print(" <-> ".join(sorted(ring)))
"""


def rings(root: Path) -> list[str]:
    """The import rings among the modules of the wikitui package at ``root``, one string each."""
    proc = subprocess.run([sys.executable, "-c", RINGS], cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


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
        # The live heartbeat (below the workspace) reaches up into it.
        "wikitui/core/live/heartbeat.py": "\n\ndef _breach():\n    from wikitui.core import workspace  # noqa: F401\n",
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
    assert "wikitui.core.live.heartbeat -> wikitui.core.workspace" in out
    assert "wikitui.core.mcp.session -> mcp" in out
    assert "No cycles are allowed in wikitui.ui." in out  # app -> screens -> app; chat <-> widgets


def test_the_layers_name_every_package():
    """Each package and module right under ``wikitui/`` and ``wikitui/core/`` has its layer: none is unconstrained."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(c["layers"] for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    named = {name.strip() for layer in layers for name in layer.split("|")}
    found = set()
    for folder, prefix in ((ROOT / "wikitui", "wikitui"), (ROOT / "wikitui" / "core", "wikitui.core")):
        for entry in folder.iterdir():
            if (entry.is_dir() and (entry / "__init__.py").exists()) or (
                    entry.suffix == ".py" and entry.stem not in ("__init__", "__main__")):
                found.add(f"{prefix}.{entry.stem}")
    found.discard("wikitui.core")  # named by its packages, one by one
    assert "wikitui.core.mcp" in found and "wikitui.core.base" in found  # the walk sees the packages
    assert found - named == set()


def test_no_modules_import_each_other_in_a_ring():
    assert rings(ROOT) == []


def test_a_ring_through_type_checking_is_caught(tmp_path):
    """A ring closed only by an import under ``TYPE_CHECKING`` still counts (import-linter's contracts skip those)."""
    copy = tmp_path / "project"
    shutil.copytree(ROOT / "wikitui", copy / "wikitui", ignore=shutil.ignore_patterns("__pycache__"))
    with open(copy / "wikitui/core/vault/links.py", "a", encoding="utf-8") as fh:
        fh.write("\n\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                 "    from wikitui.core.vault.graph import LinkGraph  # noqa: F401\n")
    found = [set(ring.split(" <-> ")) for ring in rings(copy)]
    assert any({"wikitui.core.vault.graph", "wikitui.core.vault.links"} <= ring for ring in found), found


def _app_reaches(path: Path) -> list[tuple[int, str]]:
    """(line, name) of each ``<something>.app.<name>`` and ``app.<name>`` in the module at ``path``."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.lineno, node.attr) for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and (
                (isinstance(node.value, ast.Attribute) and node.value.attr == "app")
                or (isinstance(node.value, ast.Name) and node.value.id == "app"))]


def _own_app_attributes() -> set[str]:
    """What ``WikituiApp`` defines beyond Textual's ``App``: its methods, properties and ``self.x =`` attributes."""
    import ast

    tree = ast.parse((ROOT / "wikitui/ui/app.py").read_text(encoding="utf-8"))
    app = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "WikituiApp")
    names = {n.name for n in app.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    names |= {t.attr for n in ast.walk(app) if isinstance(n, (ast.Assign, ast.AnnAssign))
              for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
              if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}
    return names - {"__init__", "MODES", "COMMANDS"}


def test_widgets_never_reach_into_the_app():
    """Widgets, the chat, the renderer, the palette's providers and the idle watcher are handed what they use.

    None of them looks up the app's own attributes (its workspace, its screens, its chat...), and no widget
    hands a worker's result back through the app (``call_from_thread``): a message to itself does that.
    """
    own = _own_app_attributes()
    assert {"workspace", "main", "chat", "open_path", "idle_lint"} <= own  # the walk sees the app's attributes
    modules = [*(ROOT / "wikitui/ui").glob("widgets/*.py"), *(ROOT / "wikitui/ui").glob("markdown/*.py"),
               *(ROOT / "wikitui/ui").glob("chat/*.py"), ROOT / "wikitui/ui/commands.py",
               ROOT / "wikitui/ui/idle_lint.py", ROOT / "wikitui/ui/editor.py"]
    reaches = {f"{path.relative_to(ROOT)}:{line} .app.{name}"
               for path in modules for line, name in _app_reaches(path)
               if name in own or (name == "call_from_thread" and path.parent.name == "widgets")}
    assert reaches == set()
