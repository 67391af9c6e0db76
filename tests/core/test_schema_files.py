"""The schema of other tools (DESIGN §10): with no WIKI.md, AGENTS.md or CLAUDE.md is the vault's schema.

Checked where it matters: the system prompt the model receives, through the
headless ``ask`` and the fake model server.
"""

from __future__ import annotations

from tests.core.test_headless import fast_client, run
from tests.fakeserver import text
from wikitui.core.agent.headless import run_ask

CLAUDE_RULES = "# House rules\n\nEvery character page ends with a section `## Sightings`.\n"
AGENTS_RULES = "# Agents\n\nAnswers cite chapters as raw/chapter-NN.md, never by title.\n"


def system_prompt_of_one_ask(fake_llm, vault) -> str:
    fake_llm.script(text("The Dodo organises it ([[Dodo]])."))
    code, out, err = run(run_ask, vault, "Who runs the race?", client=fast_client())
    assert code == 0, err
    (first,) = fake_llm.requests
    system = first["messages"][0]
    assert system["role"] == "system"
    return system["content"]


def test_claude_md_is_the_schema_when_there_is_no_wiki_md(fake_llm, sample_vault):
    (sample_vault / "WIKI.md").unlink()
    (sample_vault / "CLAUDE.md").write_text(CLAUDE_RULES)
    prompt = system_prompt_of_one_ask(fake_llm, sample_vault)
    assert "## The vault's schema, from CLAUDE.md" in prompt
    assert "Every character page ends with a section `## Sightings`." in prompt
    assert "## Conventions (no WIKI.md)" not in prompt  # the vault's own rules replace the defaults
    assert "## WIKI.md (" not in prompt


def test_agents_md_comes_before_claude_md(fake_llm, sample_vault):
    (sample_vault / "WIKI.md").unlink()
    (sample_vault / "AGENTS.md").write_text(AGENTS_RULES)
    (sample_vault / "CLAUDE.md").write_text(CLAUDE_RULES)
    prompt = system_prompt_of_one_ask(fake_llm, sample_vault)
    assert "## The vault's schema, from AGENTS.md" in prompt and "never by title" in prompt
    assert "Sightings" not in prompt


def test_wiki_md_wins_over_claude_md(fake_llm, sample_vault):
    wiki_md = (sample_vault / "WIKI.md").read_text()
    (sample_vault / "CLAUDE.md").write_text(CLAUDE_RULES)
    prompt = system_prompt_of_one_ask(fake_llm, sample_vault)
    assert "## WIKI.md (this vault's schema and conventions)" in prompt
    assert wiki_md.strip().splitlines()[0] in prompt
    assert "Sightings" not in prompt and "from CLAUDE.md" not in prompt


def test_a_blank_claude_md_leaves_the_default_conventions(fake_llm, sample_vault):
    (sample_vault / "WIKI.md").unlink()
    (sample_vault / "CLAUDE.md").write_text("\n  \n")
    prompt = system_prompt_of_one_ask(fake_llm, sample_vault)
    assert "## Conventions (no WIKI.md)" in prompt and "from CLAUDE.md" not in prompt


def test_in_a_vault_without_a_wiki_folder_the_agents_files_are_not_pages(tmp_path):
    """An Obsidian vault read as the wiki: its root CLAUDE.md is instructions, not a note to lint or index."""
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault
    from wikitui.core.vault.lint import run_lint

    root = tmp_path / "notes"
    (root / ".obsidian").mkdir(parents=True)
    (root / "Cat.md").write_text("---\ntitle: Cat\ntype: entity\nsummary: a cat\n---\nGrins.\n", encoding="utf-8")
    (root / "CLAUDE.md").write_text(CLAUDE_RULES, encoding="utf-8")
    (root / "AGENTS.md").write_text(AGENTS_RULES, encoding="utf-8")
    (root / "sub").mkdir()
    (root / "sub" / "CLAUDE.md").write_text("# A note that happens to be named so\n", encoding="utf-8")
    vault = Vault.open(root)
    assert not vault.wiki_prefix
    graph = LinkGraph.load(vault)
    assert sorted(graph.pages) == ["Cat.md", "sub/CLAUDE.md"]
    assert not vault.is_page_path("CLAUDE.md") and not vault.is_page_path("AGENTS.md")
    assert vault.is_page_path("sub/CLAUDE.md")
    assert not [p for p in run_lint(vault, graph).problems if p.path in ("CLAUDE.md", "AGENTS.md")]
