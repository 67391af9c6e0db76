"""Shared fixtures: no test touches the real home directory, and vaults are temp copies."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample"
#: A small Chinese, Japanese and Korean vault (tests/data/cjk_vault/WIKI.md says what is in it).
CJK_VAULT = ROOT / "tests" / "data" / "cjk_vault"
#: An Obsidian vault with two notes of one name: ``Obsidian Sync/Security and privacy.md`` and
#: ``Obsidian Publish/Security and privacy.md``, each linked as ``[[Security and privacy]]`` from an
#: overview in its own folder; Home.md (the root) links it too, and ``Obsidian Publish/Custom
#: domains.md`` links ``[[Obsidian Sync/Security and privacy]]`` (an exact vault path).
TWIN_VAULT = ROOT / "tests" / "data" / "twin_notes_vault"
#: The real-world corpora live beside the project (../shared/corpus); CI always has them.
CORPUS = Path(os.environ.get("WIKITUI_CORPUS", ROOT.parent / "shared" / "corpus"))


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    """Point HOME and the XDG folders at a temp dir; clear model settings from the environment."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                     ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state")):
        monkeypatch.setenv(var, str(home / sub))
    for var in ("WIKITUI_MODEL", "WIKITUI_API_BASE", "WIKITUI_CONFIG", "OPENAI_API_KEY",
                "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return home


@pytest.fixture
def sample_vault(tmp_path) -> Path:
    """A fresh copy of the sample vault."""
    dest = tmp_path / "sample"
    shutil.copytree(SAMPLE, dest, ignore=shutil.ignore_patterns(".wikitui"))
    return dest


@pytest.fixture
def cjk_vault(tmp_path) -> Path:
    """A fresh copy of the CJK vault."""
    dest = tmp_path / "cjk"
    shutil.copytree(CJK_VAULT, dest, ignore=shutil.ignore_patterns(".wikitui"))
    return dest


@pytest.fixture
def twin_vault(tmp_path) -> Path:
    """A fresh copy of the vault with two same-named notes in two folders (:data:`TWIN_VAULT`)."""
    dest = tmp_path / "twins"
    shutil.copytree(TWIN_VAULT, dest, ignore=shutil.ignore_patterns(".wikitui"))
    return dest


def corpus_path(name: str) -> Path:
    """The path of a corpus folder, skipping the test with a clear reason when absent."""
    path = CORPUS / name
    if not path.is_dir():
        pytest.skip(
            f"corpus {name!r} not found at {path}: the corpora live in ../shared/corpus beside the project "
            "(or set WIKITUI_CORPUS); CI has them"
        )
    return path


@pytest.fixture
def corpus_copy(tmp_path):
    """Factory: copy a corpus vault into a temp dir (corpora are never written)."""

    def make(name: str) -> Path:
        src = corpus_path(name)
        dest = tmp_path / name
        shutil.copytree(src, dest)
        return dest

    return make


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """A module's tests that share a module-scoped fixture of that module run on one xdist worker.

    ``--dist loadgroup`` otherwise deals a module's tests out to every worker, and each then
    builds the module's fixture again (a generated vault and its index: 5.5 s each, twice).
    """
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        module_id = item.nodeid.split("::", 1)[0]
        defs = getattr(item, "_fixtureinfo", None)
        if defs is None:
            continue
        for fixturedefs in defs.name2fixturedefs.values():
            if any(d.scope == "module" and d.baseid == module_id for d in fixturedefs):
                item.add_marker(pytest.mark.xdist_group(module_id))
                break


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker more than the cores.

    A test spends about a quarter of its time waiting (on a child process, a socket, a
    terminal, the pilot's idle checks): with one worker a core, the cores idled 26-27% of the
    suite (user+sys CPU over wall time x cores, two runs on this 2-core machine).
    """
    return (os.cpu_count() or 1) + 1

