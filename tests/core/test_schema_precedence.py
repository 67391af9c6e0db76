"""The agent follows the vault's schema over wikitui's defaults (issue 24.9), and lint's semantic pass merges
only after reading both pages (24.8).

What the model receives is read from the fake server's requests: the real session built it and
litellm sent it. The vault here keeps its own conventions in CLAUDE.md, in the style of the
bilingual wiki the issue measured: its own contradiction format, sources cited by URL, and
frontmatter fields of its own.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.core.test_session import Chat, sent
from tests.fakeserver import text
from wikitui.core.agent.prompts import compact
from wikitui.core.agent.prompts import lint as lint_prompt
from wikitui.core.agent.prompts.system import PRECEDENCE

CLAUDE_MD = """\
# How this wiki is kept

Every page starts with:

    ---
    title: Attention
    lang: en
    ---

Cite sources by their URL in the text, never a raw/ path. A disagreement is a line `DISPUTED: <claim> vs <claim>`.
"""


def own_vault(sample_vault: Path) -> Path:
    """The sample vault kept by its CLAUDE.md: pages with title and lang only, no WIKI.md."""
    (sample_vault / "WIKI.md").unlink()
    (sample_vault / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    shutil.rmtree(sample_vault / ".wikitui", ignore_errors=True)
    index = sample_vault / "wiki/index.md"
    index.write_text("# Our wiki\n\nStart at [[Alice]].\n", encoding="utf-8")  # hand-written, no marker
    return sample_vault


async def test_the_precedence_is_stated_once_and_covers_every_default(fake_llm, sample_vault):
    fake_llm.script(text("## Findings\nnone"))
    await Chat(own_vault(sample_vault), compact=False).session.lint()
    system = sent(fake_llm, 0)[0]["content"]
    assert system.count("Precedence:") == 1 and system.count(PRECEDENCE) == 1
    rule = system[system.index(PRECEDENCE):].split("\n", 1)[0]
    for words in ("comes before every default", "frontmatter (its fields, no others)",
                  "how page text cites sources (its form, not raw paths)",
                  "how a contradiction is noted (its format, not the line above)"):
        assert words in rule, words
    # No other line says the default format is the only one.
    assert "the only format" not in system and "exactly in this form" not in system
    assert "DISPUTED: <claim> vs <claim>" in system  # the schema itself is there to follow


async def test_the_semantic_pass_fills_in_only_the_fields_the_schema_asks_for(fake_llm, sample_vault):
    fake_llm.script(text("## Findings\nnone"))
    await Chat(own_vault(sample_vault), compact=False).session.lint()
    system = sent(fake_llm, 0)[0]["content"]
    assert "Never fill in frontmatter the vault's schema does not ask for" in system
    report = system.split("Deterministic report:\n", 1)[1]
    # CLAUDE.md asks for title and lang: the sample's pages lack lang, and nothing else is asked of them.
    assert "missing-frontmatter" in report and "frontmatter lacks lang (CLAUDE.md asks for title, lang)" in report
    assert "lacks type" not in report and "lacks summary" not in report
    assert "not-in-index" not in report.split("\n", 1)[1]  # index.md is the vault's own


def test_the_lint_task_merges_only_after_reading_both_pages_in_both_sizes():
    full = lint_prompt.lint_task("Counts: no problems")
    merge = full[full.index("near-duplicate pages"):full.index("- fixes for")]
    assert merge.index("read BOTH pages in full") < merge.index("propose_merge")
    assert "only when the two readings show one subject; similar titles alone are no reason to merge" in merge
    small = compact.lint_task("Counts: no problems")
    assert "merge near-duplicates only after reading both pages and finding one subject" in small
    assert "never others the schema does not ask for" in small


async def test_the_compact_prompt_puts_citing_and_the_contradiction_format_among_the_defaults(
        fake_llm, sample_vault):
    fake_llm.script(text("The [[Dodo]]."))
    await Chat(own_vault(sample_vault), compact=True).session.ask("Who organised the race?")
    system = sent(fake_llm, 0)[0]["content"]
    defaults = system[system.index("Defaults:"):system.index("comes before these defaults")]
    assert "raw/x.md" in defaults and "[!contradiction]" in defaults
    rules = system[system.index("Rules:"):system.index("Defaults:")]
    assert "[!contradiction]" not in rules and "raw/x.md" not in rules  # never "before these rules"
    assert "its way of citing, its contradiction format" in system
