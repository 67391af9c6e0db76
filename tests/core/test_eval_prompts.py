"""Prompts that carry the pattern without a WIKI.md, the lint pass's gaps and reading plan (DESIGN §12).

What the model receives is read from the fake server's requests: the real session
built it and litellm sent it.
"""

from __future__ import annotations

from tests.core.test_session import Chat, sent
from tests.fakeserver import text, tool_call
from wikitui.core.agent.prompts import lint as lint_prompt
from wikitui.core.agent.lint_plan import reading_plan
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.create import default_schema, init_vault
from wikitui.core.vault.lint import LintReport, Problem, run_lint
from wikitui.core.vault.staleness import SourceRecords
from wikitui.core.vault.layout import Vault

FORMAT = "> [!contradiction] <claim> — [[Other page]] says <other claim> (raw/source.md)"


def system_of(fake_llm, n: int = 0) -> str:
    return sent(fake_llm, n)[0]["content"]


async def test_without_a_wiki_md_the_system_prompt_carries_the_conventions(fake_llm, sample_vault):
    (sample_vault / "WIKI.md").unlink()
    fake_llm.script(text("The [[Dodo]]."))
    await Chat(sample_vault).session.ask("Who organised the race?")
    system = system_of(fake_llm)
    assert "## Conventions (no WIKI.md)" in system
    for kind, folder in (("source", "sources"), ("entity", "entities"), ("concept", "concepts"),
                         ("topic", "topics"), ("answer", "answers")):
        assert f"`{kind}` in `wiki/{folder}/`" in system, kind
    for field in ("title (unique)", "type (one of the kinds)", "summary (one specific line", "aliases", "sources"):
        assert field in system, field
    assert "Search before you create" in system and "Links go both ways" in system
    assert FORMAT in system  # the default format; the vault's schema may set its own (issue 24.9)


async def test_with_a_wiki_md_the_system_prompt_uses_the_users(fake_llm, sample_vault):
    (sample_vault / "WIKI.md").write_text("# Our rules\n\nPeople go in wiki/folk/, one page each.\n")
    fake_llm.script(text("The [[Dodo]]."))
    await Chat(sample_vault).session.ask("Who organised the race?")
    system = system_of(fake_llm)
    assert "## WIKI.md (this vault's schema and conventions)\n# Our rules\n\nPeople go in wiki/folk/" in system
    assert "Conventions (no WIKI.md)" not in system and "`entity` in `wiki/entities/`" not in system


async def test_a_vault_rooted_wiki_gets_folders_at_its_root(fake_llm, tmp_path):
    root = tmp_path / "notes"
    (root / ".obsidian").mkdir(parents=True)
    (root / "alpha.md").write_text("---\ntitle: Alpha\n---\nText.\n")
    fake_llm.script(text("Nothing."))
    await Chat(root).session.ask("What is here?")
    system = system_of(fake_llm)
    assert "`concept` in `concepts/`" in system and "wiki/concepts/" not in system


async def test_ingest_searches_before_it_creates_and_notes_contradictions_in_the_one_format(fake_llm, sample_vault):
    fake_llm.script(tool_call("read", path="raw/chapter-03.md"), text("Plan: nothing new."),
                    text("Nothing to propose."))
    chat = Chat(sample_vault)
    await chat.session.ingest("raw/chapter-03.md", auto_go=True)
    write = system_of(fake_llm, 2)
    assert "before proposing any NEW page, `search` for its name and aliases" in write
    assert f"each as one line in the contradiction format, `{FORMAT}` (never overwrite the old claim)" in write
    assert "> Contradiction:" not in write


async def test_lint_asks_for_gaps_questions_and_sources_and_reads_stale_then_most_linked_pages(fake_llm, sample_vault):
    vault = Vault.open(sample_vault)
    SourceRecords(vault).record("wiki/characters/dormouse.md", ["raw/chapter-07.md"])
    with (sample_vault / "raw/chapter-07.md").open("a") as fh:
        fh.write("\nA new paragraph in the source.\n")  # the Dormouse's page is now stale
    fake_llm.script(text("## Findings\nnone"))
    await Chat(sample_vault, context_tokens=16384).session.lint()  # the full prompt: more than half of 8k
    system = system_of(fake_llm)
    assert "Plan your reading rather than sampling pages at random" in system
    for ask in ("data the wiki lacks", "questions worth investigating", "sources worth looking for",
                "Findings, Data gaps, Questions and Sources to look for"):
        assert ask in system, ask
    plan = system.split("Reading plan:\n", 1)[1].split("\n\nDeterministic report:", 1)[0].splitlines()
    assert plan[1] == "- wiki/characters/dormouse.md (Dormouse): stale, a source it lists has changed"
    assert plan[2].startswith("- wiki/characters/alice.md (Alice): linked from ")  # the most-linked page next
    counts = [int(line.rsplit("linked from ", 1)[1].split()[0]) for line in plan[2:]]
    assert counts == sorted(counts, reverse=True) and len(plan) == 13


def test_the_reading_plan_leaves_out_index_and_log_and_an_empty_wiki_has_none(tmp_path, sample_vault):
    vault = Vault.open(sample_vault)
    graph = LinkGraph.load(vault)
    plan = reading_plan(vault, graph, run_lint(vault, graph), limit=100)
    assert "wiki/index.md" not in plan and "wiki/log.md" not in plan
    init_vault(tmp_path / "empty")
    empty = Vault.open(tmp_path / "empty")
    assert reading_plan(empty, LinkGraph.load(empty), LintReport()) == ""
    assert "(none: start from index.md)" in lint_prompt.lint_task("Counts: no problems", "")


def test_thousands_of_one_problem_never_hide_another_in_the_lint_prompt():
    problems = [Problem("broken-link", "wiki/a.md", 3, "Nowhere", "link [[Nowhere]] resolves to nothing")]
    problems += [Problem("missing-frontmatter", f"wiki/p{i}.md", None, None, "no frontmatter") for i in range(5000)]
    problems += [Problem("stale", "wiki/b.md", None, "raw/b.md", "raw/b.md changed")]
    report = LintReport(sorted(problems, key=lambda p: p.check != "missing-frontmatter"),
                        {"broken-link": 1, "missing-frontmatter": 5000, "stale": 1})
    text_ = lint_prompt.format_lint_report(report)
    assert "- broken-link wiki/a.md:3 [Nowhere]" in text_ and "- stale wiki/b.md [raw/b.md]" in text_
    assert text_.count("- missing-frontmatter ") == 20
    assert "... and 4980 more missing-frontmatter (fix the pattern, not each one)" in text_
    assert len(text_.splitlines()) < 30


def test_the_default_wiki_md_says_the_same_in_the_users_words(tmp_path):
    schema = default_schema()
    assert FORMAT in schema and "## Contradictions" in schema
    assert "only after a `search` for the name" in schema  # search before create
    assert "Name the gaps: data the wiki lacks, questions worth investigating next, sources worth looking for" \
        in schema.replace("\n  ", " ")
    assert "stale pages first, then the most\n   linked ones" in schema
    assert "`llm: locked`" in schema and "`llm: append`" in schema
    init_vault(tmp_path / "v")
    assert (tmp_path / "v" / "WIKI.md").read_text(encoding="utf-8") == schema
    # The format is shown in a code block: WIKI.md's own example is never a link or a callout of the wiki.
    assert "```markdown\n" + FORMAT + "\n```" in schema
