"""Checks of how wikitui is built, not of what it does: which modules load, which syscalls run, the GC.

    .venv/bin/python bench/checks.py

These were tests once; they assert incidentals that serve speed (``wikitui search``
imports no query parser, UI, model client or YAML stack;
a snippet-sized read costs no ``fstat``; the entry points keep the garbage collector
off the link graph), not behaviour a person sees. A behaviour test stays green
whatever the import graph is; these print what they find instead, one line each
(``ok`` or ``CHANGED``) and a JSON summary, for a person to judge against the
figures of ``bench/core.py``. Each runs in a fresh interpreter, so modules other
checks imported cannot hide (or fake) a finding. Not part of the test run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample"


def _loaded_after(code: str) -> set[str]:
    """Module names in sys.modules (and their top-level packages) after running ``code`` in a fresh interpreter."""
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)
    if proc.returncode:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed")
    names = json.loads(proc.stdout.splitlines()[-1])
    return {n.split(".")[0] for n in names} | set(names)


def _run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    if proc.returncode:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed")
    return proc.stdout.strip()


def none_of(loaded: set[str], unwanted: set[str]) -> tuple[bool, str]:
    found = sorted(loaded & unwanted)
    return (not found, f"loaded: {', '.join(found)}" if found else "none of " + ", ".join(sorted(unwanted)))


def check_cli_import(vault: Path) -> tuple[bool, str]:
    """``import wikitui.cli`` loads nothing heavy until a command needs it."""
    return none_of(_loaded_after("import wikitui.cli"),
                   {"textual", "rich", "litellm", "whoosh", "yaml", "frontmatter", "ruamel"})


def check_search_command(vault: Path) -> tuple[bool, str]:
    """``wikitui search`` (index current) loads no UI, model client, query parser or YAML."""
    code = f"from wikitui.cli import main\nassert main(['search', 'white rabbit', '--vault', {str(vault)!r}]) == 0\n"
    loaded = _loaded_after(code)
    ok, text = none_of(loaded, {"textual", "rich", "litellm", "yaml", "frontmatter", "ruamel", "whoosh.qparser"})
    return ok and "whoosh" in loaded, text


def check_facade_import(vault: Path) -> tuple[bool, str]:
    """Importing the search facade (or the workspace) imports no Whoosh."""
    return none_of(_loaded_after("import wikitui.core.search.facade, wikitui.core.workspace"), {"whoosh"})


def check_plain_queries(vault: Path) -> tuple[bool, str]:
    """Plain queries never load Whoosh's query parser; an operator loads it."""
    out = _run(
        "import sys; from wikitui.core.workspace import Workspace\n"
        f"ws = Workspace.open({str(vault)!r}); ws.update_index()\n"
        "for q in ('gryphon', '\"lazy creature\" tag:sea', 'mar*', 'type:entity'): ws.index.search(q)\n"
        "print('whoosh.qparser' in sys.modules); ws.index.search('gryphon OR marmalade')\n"
        "print('whoosh.qparser' in sys.modules)"
    )
    return out.split() == ["False", "True"], f"parser loaded after plain / operator queries: {out.split()}"


def check_fast_import(vault: Path) -> tuple[bool, str]:
    """The fast path's import of Whoosh leaves out urllib.request, cached_property, asyncio and the morphology tables."""
    loaded = _loaded_after("from wikitui.core.search.whoosh.fast.loader import import_whoosh; import_whoosh()")
    return none_of(loaded, {"urllib.request", "cached_property", "asyncio", "whoosh.lang.morph_en"})


def check_agent_import(vault: Path) -> tuple[bool, str]:
    """Importing the agent's modules imports no litellm (~3 s, ~200 MB): the first model call does."""
    code = ("import wikitui.core.agent, wikitui.core.agent.llm, wikitui.core.agent.session, "
            "wikitui.core.agent.tools, wikitui.core.agent.headless, wikitui.core.config.settings")
    return none_of(_loaded_after(code), {"litellm", "textual", "rich"})


def check_graph_gc(vault: Path) -> tuple[bool, str]:
    """A graph loaded under ``gc_tuning.paused()`` leaves the young generation, the collector on, frozen objects frozen."""
    out = _run(
        "import gc, tempfile, pathlib\n"
        "from wikitui import gc_tuning\n"
        "from wikitui.core.vault.graph import LinkGraph; from wikitui.core.vault.layout import Vault\n"
        "root = pathlib.Path(tempfile.mkdtemp()); (root / 'wiki').mkdir()\n"
        "for i in range(20): (root / 'wiki' / f'p{i}.md').write_text(f'# P{i}\\n\\n[[P{(i + 1) % 20}]]\\n')\n"
        "with gc_tuning.paused(): graph = LinkGraph.load(Vault.open(root), save_cache=False)\n"
        "young = {id(o) for o in gc.get_objects(generation=0)}\n"
        "old = not any(id(i) in young or id(i.links) in young for i in graph.pages.values())\n"
        "keep = [object() for _ in range(10)]; gc.freeze(); frozen = gc.get_freeze_count()\n"
        "with gc_tuning.paused(): LinkGraph.load(Vault.open(root), save_cache=False)\n"
        "print(old, gc.isenabled(), gc.get_freeze_count() >= frozen)"
    )
    return out.split() == ["True", "True", "True"], f"promoted, collector on, frozen kept: {out.split()}"


def check_exit_freeze(vault: Path) -> tuple[bool, str]:
    """The console script freezes its objects before exiting (collections at exit cost ~20 ms); a caller's are left."""
    out = _run(
        "import gc, sys\nfrozen = []\ngc.freeze = lambda: frozen.append(True)\n"
        "from wikitui import cli\nsys.argv = ['wikitui', '--version']\nimport io, contextlib\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    cli.main(); cli.main(['--version'])\n"
        "print(len(frozen))"
    )
    return out == "1", f"freezes: {out} (1 expected: the console script's, not the library call's)"


def check_snippet_read(vault: Path) -> tuple[bool, str]:
    """A snippet-sized read (16 KB of each hit) costs no ``fstat``."""
    out = _run(
        "import os, tempfile, pathlib\nfrom wikitui.core.vault.files import read_bytes\n"
        "path = pathlib.Path(tempfile.mkdtemp()) / 'page.md'; path.write_bytes(b'a line\\n' * 5000)\n"
        "calls = []; real = os.fstat\nos.fstat = lambda fd: calls.append(fd) or real(fd)\n"
        "read_bytes(path, 16384); read_bytes(path, 100_000, size=40_000)\nprint(len(calls))"
    )
    return out == "0", f"fstat calls: {out}"


CHECKS = [check_cli_import, check_search_command, check_facade_import, check_plain_queries, check_fast_import,
          check_agent_import, check_graph_gc, check_exit_freeze, check_snippet_read]


def main() -> int:
    import shutil

    results = {}
    with tempfile.TemporaryDirectory(prefix="wikitui-checks-") as tmp:
        vault = Path(tmp) / "sample"
        shutil.copytree(SAMPLE, vault, ignore=shutil.ignore_patterns(".wikitui"))
        _run(f"from wikitui.core.workspace import Workspace; Workspace.open({str(vault)!r}).update_index()")
        for check in CHECKS:
            try:
                ok, detail = check(vault)
            except Exception as exc:  # a check that cannot run says so and the others go on
                ok, detail = False, f"could not run: {exc}"
            name = check.__name__.removeprefix("check_")
            print(f"{'ok     ' if ok else 'CHANGED'}  {name}: {check.__doc__.splitlines()[0]} ({detail})")
            results[name] = {"ok": ok, "detail": detail}
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
