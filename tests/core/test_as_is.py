"""A folder that is not a vault, opened as it is: the launch offers it, commands take ``--as-is`` (issue 24.6).

Opening and reading such a folder writes nothing to it (wikitui's state lives in the
user's cache, keyed by the folder's path); only a change the user applies is written there.
"""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path

import pytest

from tests.cli_run import run_wikitui
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.pending import PendingStore
from wikitui.core.changes.undo import list_records, undo_last
from wikitui.core.base.errors import NotAVault
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault, read_only_cache_dir


def plain_folder(root: Path) -> Path:
    """Markdown notes with no wiki/, WIKI.md, .wikitui/ or .obsidian/."""
    (root / "projects").mkdir(parents=True)
    (root / "Home.md").write_text("# Home\n\nThe garden plan is in [[Garden]].\n", encoding="utf-8")
    (root / "projects" / "Garden.md").write_text("# Garden\n\nTomatoes by the south wall.\n", encoding="utf-8")
    return root


def tree(root: Path) -> list[tuple[str, int, int]]:
    """Every file and folder under ``root`` (hidden ones too) with its size and mtime, and the root's mtime."""
    out = []
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            st = (Path(folder) / name).lstat()
            out.append(((Path(folder) / name).relative_to(root).as_posix(), st.st_size if name in files else 0,
                        st.st_mtime_ns))
    return sorted(out) + [(".", 0, root.stat().st_mtime_ns)]


@pytest.fixture
def fake_app(monkeypatch):
    """Stand in for wikitui.ui.app so launching does not start a terminal UI."""
    import wikitui.ui as ui_pkg

    opened: list[Path] = []
    mod = types.ModuleType("wikitui.ui.app")
    mod.run_app = lambda path: opened.append(Path(path)) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "wikitui.ui.app", mod)
    monkeypatch.setattr(ui_pkg, "app", mod, raising=False)
    return opened


@pytest.fixture
def answers(monkeypatch):
    """Type these answers at the launch prompt (a terminal on stdin); the prompts asked are collected."""
    given: list[str] = []
    prompts: list[str] = []
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", lambda prompt: (prompts.append(prompt), given.pop(0))[1])
    return given, prompts


def test_the_launch_offers_to_open_a_folder_of_notes_as_it_is(tmp_path, fake_app, answers):
    root = plain_folder(tmp_path / "notes")
    before = tree(root)
    given, prompts = answers
    given += ["q", "o"]
    out = run_wikitui([str(root)])
    assert out.returncode == 1 and "Nothing written." in out.stderr and fake_app == []
    assert "o  open it as it is" in out.stderr and "i  initialise a vault here" in out.stderr
    assert prompts == ["Open it as it is, initialise, or quit? [o/i/Q] "]
    assert not Vault.opened_as_is(root)

    out = run_wikitui([str(root)])
    assert out.returncode == 0 and fake_app == [root.resolve()]
    assert tree(root) == before  # the choice is remembered in the user's cache, not in the folder
    assert Vault.opened_as_is(root)
    # The next launch opens it without asking.
    assert run_wikitui([str(root)]).returncode == 0 and len(prompts) == 2 and len(fake_app) == 2


def test_initialise_is_still_offered_beside_it(tmp_path, fake_app, answers):
    root = plain_folder(tmp_path / "notes")
    answers[0].append("i")
    assert run_wikitui([str(root)]).returncode == 0
    assert (root / "WIKI.md").is_file() and (root / ".wikitui").is_dir() and fake_app == [root.resolve()]


def test_without_a_terminal_the_launch_names_both_ways_and_writes_nothing(tmp_path, fake_app):
    root = plain_folder(tmp_path / "notes")
    before = tree(root)
    out = run_wikitui([str(root)])  # stdin is not a terminal under pytest
    assert out.returncode == 2 and fake_app == []
    assert f"wikitui init {root}" in out.stderr and f"wikitui --as-is {root}" in out.stderr
    assert run_wikitui(["--as-is", str(root)]).returncode == 0 and fake_app == [root.resolve()]
    assert tree(root) == before


def test_a_headless_command_refuses_a_plain_folder_unless_told_or_opened_before(tmp_path):
    root = plain_folder(tmp_path / "notes")
    before = tree(root)
    out = run_wikitui(["search", "tomatoes", "--vault", str(root)])
    assert out.returncode == 2 and "is not a wikitui vault" in out.stderr and "--as-is" in out.stderr
    with pytest.raises(NotAVault):
        Vault.open(root)

    out = run_wikitui(["search", "tomatoes", "--json", "--as-is", "--vault", str(root)])
    assert out.returncode == 0, out.stderr
    assert [hit["path"] for hit in json.loads(out.stdout)] == ["projects/Garden.md"]
    # Remembered: the next commands need no flag, and read it as a wiki rooted at the folder.
    out = run_wikitui(["links", "Garden", "--json", "--vault", str(root)])
    assert out.returncode == 0 and [b["path"] for b in json.loads(out.stdout)["backlinks"]] == ["Home.md"]
    assert run_wikitui(["lint", "--vault", str(root)]).returncode in (0, 1)
    assert run_wikitui(["index", "--vault", str(root)]).returncode == 0
    assert tree(root) == before
    assert (read_only_cache_dir(root) / "index").is_dir()


def test_a_subfolder_of_a_vault_is_still_refused(sample_vault):
    out = run_wikitui(["lint"], cwd=sample_vault / "wiki")
    assert out.returncode == 2 and "is not a wikitui vault" in out.stderr


def test_applying_a_change_writes_only_what_was_accepted(tmp_path):
    root = plain_folder(tmp_path / "notes")
    vault = Vault.open(root, as_is=True)
    graph = LinkGraph.load(vault)
    builder = ChangesetBuilder(vault, graph)
    builder.new_page("projects/Peas.md", "# Peas\n\nSown in March, beside the [[Garden]].\n", "a new note")
    cs = builder.build("edit", "Peas", model="test/model", tokens=10, cost=0.0)
    PendingStore(vault).save(cs)
    assert not (root / ".wikitui").exists() and not (root / "projects" / "Peas.md").exists()
    assert PendingStore(vault).list() != []  # the pending changeset waits in the user's cache

    result = apply_changeset(vault, graph, cs)
    assert "projects/Peas.md" in result.written
    assert (root / "projects" / "Peas.md").read_text(encoding="utf-8").startswith("# Peas")
    assert not (root / ".wikitui").exists()  # wikitui's own records stay in the cache
    written = {p for p, _s, _m in tree(root)} - {"Home.md", "projects", "projects/Garden.md", "."}
    assert written <= {"projects/Peas.md", "log.md", "index.md"}, written
    assert "projects/Peas.md" in graph.pages and [r["changeset"] for _, r in list_records(vault)] == [cs.id]

    # Its undo record is in the cache too: undo puts the folder's notes back.
    undo_last(vault, graph)
    assert not (root / "projects" / "Peas.md").exists() and not (root / ".wikitui").exists()


def test_the_state_stays_in_the_cache_when_the_folder_is_opened_in_obsidian_later(tmp_path):
    root = plain_folder(tmp_path / "notes")
    vault = Vault.open(root, as_is=True)
    builder = ChangesetBuilder(vault, LinkGraph.load(vault))
    builder.new_page("Later.md", "# Later\n", "a note")
    cs = builder.build("edit", "Later", model="test/model", tokens=1, cost=0.0)
    PendingStore(vault).save(cs)
    (root / ".obsidian").mkdir()  # Obsidian opened the folder since
    again = Vault.open(root)
    assert again.state_dir == read_only_cache_dir(root)
    assert [c.id for c in PendingStore(again).list()] == [cs.id]
    assert not (root / ".wikitui").exists()
