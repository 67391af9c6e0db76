"""``wikitui init`` and launching in a folder that is not a vault (DESIGN §2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from wikitui.core.vault.catalog import INDEX_MARKER
from wikitui.core.vault.create import init_vault
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.lint import run_lint

WIKITUI = Path(sys.executable).parent / "wikitui"


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``root`` (folders map to None)."""
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def test_init_creates_the_layout_and_the_result_is_a_clean_vault(tmp_path):
    root = tmp_path / "notes"
    created = init_vault(root)
    assert [p.relative_to(root).as_posix() if p != root else "." for p in created] == [
        ".", "raw", "wiki", "wiki/index.md", "wiki/log.md", "WIKI.md", ".wikitui", ".wikitui/.gitignore", ".gitignore",
    ]
    index = (root / "wiki/index.md").read_text(encoding="utf-8")
    assert index.startswith("# Index\n") and index.rstrip().endswith(INDEX_MARKER)
    assert (root / "wiki/log.md").read_text(encoding="utf-8") == "# Log\n"
    assert (root / ".gitignore").read_text(encoding="utf-8") == ".wikitui/\n"
    assert (root / ".wikitui").is_dir() and (root / "raw").is_dir()

    vault = Vault.open(root)
    assert vault.wiki_prefix == "wiki"
    report = run_lint(vault, LinkGraph.load(vault))
    assert report.problems == []


def test_default_schema_is_a_real_guide_for_the_agent(tmp_path):
    init_vault(tmp_path)
    schema = (tmp_path / "WIKI.md").read_text(encoding="utf-8")
    assert 80 <= len(schema.splitlines()) <= 150
    for must in ("title", "type", "summary", "sources", "aliases", "raw/", "[[", "/ingest", "/go", "/ask", "/file",
                 "/lint", "Contradictions", INDEX_MARKER, "log.md"):
        assert must in schema, must


def test_init_never_overwrites_and_running_twice_changes_nothing(tmp_path):
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki/index.md").write_text("# My own index\n", encoding="utf-8")
    (tmp_path / "WIKI.md").write_text("my schema\n", encoding="utf-8")
    (tmp_path / ".gitignore").write_text("node_modules/\n*.pyc", encoding="utf-8")

    created = init_vault(tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in created) == [
        ".gitignore", ".wikitui", ".wikitui/.gitignore", "raw", "wiki/log.md",
    ]
    assert (tmp_path / "wiki/index.md").read_text(encoding="utf-8") == "# My own index\n"
    assert (tmp_path / "WIKI.md").read_text(encoding="utf-8") == "my schema\n"
    assert (tmp_path / ".gitignore").read_text(encoding="utf-8") == "node_modules/\n*.pyc\n.wikitui/\n"

    before = snapshot(tmp_path)
    assert init_vault(tmp_path) == []
    assert snapshot(tmp_path) == before


def test_gitignore_that_already_ignores_the_state_folder_is_left_alone(tmp_path):
    (tmp_path / ".gitignore").write_text("/.wikitui\n", encoding="utf-8")
    created = init_vault(tmp_path)
    assert tmp_path / ".gitignore" not in created
    assert (tmp_path / ".gitignore").read_text(encoding="utf-8") == "/.wikitui\n"


def test_init_in_an_obsidian_vault_without_wiki_folder_keeps_the_notes_where_they_are(tmp_path):
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / "Some Note.md").write_text("Hello [[Other Note]]\n", encoding="utf-8")
    init_vault(tmp_path)
    assert not (tmp_path / "wiki").exists()
    assert (tmp_path / "index.md").is_file() and (tmp_path / "log.md").is_file()
    vault = Vault.open(tmp_path)
    assert "Some Note.md" in LinkGraph.load(vault).pages


def test_launching_outside_a_vault_without_a_terminal_writes_nothing_and_exits_2(tmp_path):
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a vault\n", encoding="utf-8")
    before = snapshot(folder)
    proc = subprocess.run(
        [str(WIKITUI), str(folder)], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("wikitui: error: ") and proc.stderr.count("\n") == 1
    assert "wikitui init" in proc.stderr
    assert snapshot(folder) == before
