"""Who did what (issue 26.4, DESIGN §14): log.md entries and commits carry the author, and the model for agent changes."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.cli_run import run_wikitui
from tests.core.changes_util import git, git_init, make_vault, open_vault, page, read
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.vault.log_entries import read_log

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")


def agent_edit(root, title="Tidy", old="Alpha."):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("wiki/A.md", [{"old": old, "new": f"Alpha ({title})."}], "tidy")
    apply_changeset(vault, graph, b.build("edit", title, model="test/model"))
    return vault


@pytest.fixture
def root(tmp_path):
    return make_vault(tmp_path / "v", {"A.md": page("A", "# A\n\nAlpha.\n")})


@needs_git
def test_an_agent_change_names_the_person_who_accepted_it_and_the_model(root):
    git_init(root)
    git(root, "config", "user.name", "Alice Doe")
    git(root, "config", "user.email", "alice@example.com")
    vault = agent_edit(root)
    entry = read_log(vault)[-1]
    assert entry.author == "Alice Doe" and entry.model == "test/model"
    assert "- author: Alice Doe\n- model: test/model\n" in read(root, "wiki/log.md")
    assert git(root, "log", "-1", "--format=%an").strip() == "Alice Doe"


@needs_git
def test_a_persons_own_commit_and_an_agents_change_are_told_apart_in_history(root):
    git_init(root)
    git(root, "config", "user.name", "Bob")
    git(root, "config", "user.email", "bob@example.com")
    (root / "wiki/A.md").write_text(page("A", "# A\n\nAlpha.\n\nBob's own line.\n"), encoding="utf-8")
    git(root, "commit", "-qam", "my own note")
    agent_edit(root)
    proc = run_wikitui(["history", "wiki/A.md", "--json"], cwd=root)
    versions = json.loads(proc.stdout)["versions"]
    agent = next(v for v in versions if v["changeset"])
    human = next(v for v in versions if v["title"] == "my own note")
    assert agent["author"] == "Bob" and agent["model"] == "test/model"
    assert human["author"] == "Bob" and human["model"] is None  # a person's edit: no model


@needs_git
def test_the_configs_author_names_log_entries_and_commits(root):
    git_init(root)
    git(root, "config", "user.name", "laptop-user")
    (root / ".wikitui").mkdir(exist_ok=True)
    (root / ".wikitui" / "config.toml").write_text('author = "Dr. Carol  King"\n', encoding="utf-8")
    vault = agent_edit(root)
    assert read_log(vault)[-1].author == "Dr. Carol King"
    assert git(root, "log", "-1", "--format=%an").strip() == "Dr. Carol King"


def test_without_git_or_config_the_entry_names_no_author(root):
    vault = agent_edit(root)
    assert read_log(vault)[-1].author is None and "- author:" not in read(root, "wiki/log.md")
    (root / ".wikitui" / "config.toml").write_text('author = "Dana"\n', encoding="utf-8")
    vault = agent_edit(root, "Again", old="Alpha (Tidy).")
    assert read_log(vault)[-1].author == "Dana"
    proc = run_wikitui(["changes", "--since", "1d", "--json"], cwd=root)
    assert "Dana" in json.loads(proc.stdout)["authors"]
