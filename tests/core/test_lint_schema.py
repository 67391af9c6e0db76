"""Lint checks what the vault's own schema asks for, not wikitui's defaults (issue 24.7).

One small vault per style of the real vaults the issue measured (written here, in their
style; the corpora stay read-only): Obsidian's help vault (notes with their own
frontmatter, no schema), a research vault (a hand-written index.md essay), a bilingual
Quartz wiki (site-rooted links under ``content/``, URLs cited as sources) and a Chinese
wiki in Karpathy's layout (a singular ``source:`` key). Each shows the false finding gone
and a true one of the same kind still reported.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.cli_run import run_wikitui
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.lint import LintReport, run_lint
from wikitui.core.vault.schema import schema_fields
from wikitui.core.vault.site_root import clean_root
from wikitui.core.vault.staleness import same_address


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def lint(root: Path) -> LintReport:
    vault = Vault.open(root)
    return run_lint(vault, LinkGraph.load(vault))


def found(report: LintReport, check: str) -> list[tuple]:
    return [(p.path, p.target) for p in report.problems if p.check == check]


# ----------------------------------------------------------------- Obsidian's help vault
OBSIDIAN_HELP = {
    ".obsidian/app.json": "{}",
    "Home.md": "---\npermalink: home\ncssclasses: [home]\n---\nStart with [[Create your first note]].\n",
    "Getting started/Create your first note.md": (
        "---\naliases: [First note]\ndescription: How to write a note.\n---\n"
        "Open [[Home]] and see [[Link to blocks]] and [[Workspaces]].\n"),
    "Linking notes and files/Link to blocks.md": "Blocks: back to [[Home]], and [[Block references]].\n",
    "User interface/Workspace.md": "---\npermalink: workspace\n---\nThe window you work in. [[Home]]\n",
    "User interface/Workspaces.md": (
        "---\npermalink: workspaces\n---\nThe Workspaces core plugin saves layouts of panes by name. [[Home]]\n"),
}


def test_an_obsidian_vault_with_its_own_frontmatter_is_not_missing_any(tmp_path):
    report = lint(write(tmp_path, OBSIDIAN_HELP))
    assert found(report, "missing-frontmatter") == []  # notes with permalink/aliases or none at all
    # The true finding stays: a link to a note that is not there.
    assert found(report, "broken-link") == [("Linking notes and files/Link to blocks.md", "Block references")]
    # "Workspace" and "Workspaces" are two notes made apart on purpose: their bodies share nothing.
    assert found(report, "near-duplicate") == []


def test_a_vault_that_uses_wikitui_fields_is_checked_for_them(tmp_path):
    # Most notes carry type and summary: the one that lacks them is a true finding.
    files = {
        ".obsidian/app.json": "{}",
        "a.md": "---\ntitle: A\ntype: concept\nsummary: The letter A.\n---\n[[b]] [[c]]\n",
        "b.md": "---\ntitle: B\ntype: concept\nsummary: The letter B.\n---\n[[a]] [[c]]\n",
        "c.md": "---\ntitle: C\ntype: concept\n---\n[[a]]\n",
    }
    report = lint(write(tmp_path, files))
    assert [(p.path, p.message) for p in report.problems if p.check == "missing-frontmatter"] == [
        ("c.md", "frontmatter lacks summary (the vault's pages use title, type, summary)")]


# ----------------------------------------------------------------- a research vault
RESEARCH = {
    ".obsidian/app.json": "{}",
    "index.md": ("# Where I am\n\nThis vault is my notebook on [[Sleep]] research. Most notes are raw thoughts; "
                 "the essays are the point.\n"),
    "Sleep.md": "Notes on sleep. See [[Circadian rhythm]].\n",
    "Circadian rhythm.md": "About 24 hours. Back to [[Sleep]].\n",
    "Melatonin.md": "A hormone; [[Sleep]] and [[Circadian rhythm]].\n",
    "Broken.md": "---\ntitle: [unclosed\n---\nA note whose frontmatter does not parse. [[Sleep]]\n",
}


def test_a_hand_written_index_is_not_a_catalog_every_page_must_be_in(tmp_path):
    root = write(tmp_path, RESEARCH)
    report = lint(root)
    assert found(report, "not-in-index") == []
    assert found(report, "missing-frontmatter") == []
    assert found(report, "invalid-frontmatter") == [("Broken.md", None)]  # always a true finding
    # Once wikitui keeps the catalog (its marker line), a page it does not list is a true finding.
    (root / "index.md").write_text("# Index\n\n<!-- wikitui:index -->\n\n- [[Sleep]]\n- [[Circadian rhythm]]\n"
                                   "- [[Broken]]\n", encoding="utf-8")
    report = lint(root)
    assert found(report, "not-in-index") == [("Melatonin.md", None)]
    # ... and so are wikitui's fields, which the catalog shows.
    assert sorted(found(report, "missing-frontmatter")) == [
        ("Circadian rhythm.md", None), ("Melatonin.md", None), ("Sleep.md", None)]


# ----------------------------------------------------------------- a bilingual Quartz wiki
QUARTZ_CLAUDE = """\
# How this wiki is kept

Pages live in `content/en/` and `content/ru/`, one translation each. Link with the site path, always:
`[[en/concepts/attention]]`, `[[ru/concepts/attention]]`; a section's page is its folder, `[[en/concepts]]`.

Sources are cited by their URL, never a file path. Every page starts with:

```yaml
---
title: Attention
lang: en
sources: [https://example.org/attention-paper]
tags: [ml]            # optional
---
```
"""

QUARTZ = {
    ".obsidian/app.json": "{}",  # the site's notes are kept in Obsidian
    "quartz.config.ts": "export default { configuration: { pageTitle: 'Wiki' } }\n",
    "CLAUDE.md": QUARTZ_CLAUDE,
    "content/index.md": "---\ntitle: Wiki\nlang: en\nsources: []\n---\n[[en]] and [[ru]]\n",
    "content/en/index.md": "---\ntitle: English\nlang: en\nsources: []\n---\n[[en/concepts]]\n",
    "content/ru/index.md": "---\ntitle: Русский\nlang: ru\nsources: []\n---\n[[ru/concepts]]\n",
    "content/en/concepts/index.md": "---\ntitle: Concepts\nlang: en\nsources: []\n---\n[[en/concepts/attention]]\n",
    "content/ru/concepts/index.md": "---\ntitle: Понятия\nlang: ru\nsources: []\n---\n[[ru/concepts/attention]]\n",
    "content/en/concepts/attention.md": (
        "---\ntitle: Attention\nlang: en\nsources: [https://example.org/attention-paper]\n---\n"
        "Weights over tokens ([[en/concepts]], [[ru/concepts/attention]], [[en/concepts/transformer]]). "
        "Also https://blog.example.com/illustrated\n"),
    "content/ru/concepts/attention.md": (
        "---\ntitle: Attention\nlang: ru\nsources: [https://example.org/attention-paper]\n---\n"
        "Веса по токенам ([[ru/concepts]], [[en/concepts/attention]]).\n"),
    "content/en/concepts/no-title.md": "---\nlang: en\nsources: []\n---\nA stub. [[en/concepts/attention]]\n",
    "raw/attention-paper.md": "---\ntitle: Attention\nsource_url: \"https://www.example.org/attention-paper/\"\n---\nText\n",
    "raw/illustrated.md": "---\nsource: https://blog.example.com/illustrated\n---\nText\n",
    "raw/never-cited.md": "---\nsource_url: https://example.org/other\n---\nText\n",
}


def test_quartz_site_rooted_links_resolve_under_its_content_folder(tmp_path):
    report = lint(write(tmp_path, QUARTZ))
    # [[en]], [[en/concepts]] are folder pages (content/en/index.md...): they resolve; a page that is not there
    # does not.
    assert found(report, "broken-link") == [("content/en/concepts/attention.md", "en/concepts/transformer")]


def test_link_root_from_the_config_without_a_site_config(tmp_path):
    files = {k.replace("content/", "site/"): v for k, v in QUARTZ.items() if k != "quartz.config.ts"}
    root = write(tmp_path, files)
    broken = found(lint(root), "broken-link")
    assert ("site/index.md", "en") in broken  # no site config, no root: the folder pages are not found
    write(root, {".wikitui/config.toml": 'link_root = "site"\n'})
    assert found(lint(root), "broken-link") == [("site/en/concepts/attention.md", "en/concepts/transformer")]


def test_hugo_content_dir_is_read_from_its_config(tmp_path):
    files = {k.replace("content/", "pages/"): v for k, v in QUARTZ.items() if k != "quartz.config.ts"}
    files["hugo.toml"] = 'baseURL = "https://example.org/"\ncontentDir = "pages"\n'
    files["pages/en/concepts/_index.md"] = files.pop("pages/en/concepts/index.md")  # Hugo's section page
    assert found(lint(write(tmp_path, files)), "broken-link") == [
        ("pages/en/concepts/attention.md", "en/concepts/transformer")]


def test_urls_cited_as_sources_count_as_ingested(tmp_path):
    report = lint(write(tmp_path, QUARTZ))
    # One cited in sources (another spelling of the address), one in the text; the third nobody cites.
    assert found(report, "uningested-source") == [("raw/never-cited.md", None)]


def test_a_page_and_its_translation_are_not_duplicates(tmp_path):
    root = write(tmp_path, QUARTZ)
    report = lint(root)
    assert found(report, "duplicate-title") == []  # en/ and ru/ copies of "Attention"
    assert found(report, "near-duplicate") == []
    # Two English pages with the same title are still duplicates.
    write(root, {"content/en/concepts/attention-2.md": QUARTZ["content/en/concepts/attention.md"]})
    assert sorted(found(lint(root), "duplicate-title")) == [
        ("content/en/concepts/attention-2.md", "Attention"), ("content/en/concepts/attention.md", "Attention")]


def test_the_schemas_fields_are_checked_and_no_others(tmp_path):
    report = lint(write(tmp_path, QUARTZ))
    # CLAUDE.md asks for title, lang and sources (tags is optional): the stub lacks its title; nobody is
    # asked for wikitui's type or summary.
    assert [(p.path, p.message) for p in report.problems if p.check == "missing-frontmatter"] == [
        ("content/en/concepts/no-title.md", "frontmatter lacks title (CLAUDE.md asks for title, lang, sources)")]


# ----------------------------------------------------------------- a Chinese wiki in Karpathy's layout
CHINESE_CLAUDE = """\
# 知识库规则

每个页面都以 YAML 开头：

    ---
    title: 浮存金
    type: concept
    source: raw/1967年.md
    tags: [保险]
    ---

`title`、`type` 和 `source` 是必填字段 (required)。
"""

CHINESE = {
    "CLAUDE.md": CHINESE_CLAUDE,
    "wiki/index.md": "# 索引\n\n- [[浮存金]]\n- [[巴菲特]]\n",
    "wiki/concepts/浮存金.md": "---\ntitle: 浮存金\ntype: concept\nsource: raw/1967年.md\n---\n[[巴菲特]] 的浮存金。\n",
    "wiki/entities/巴菲特.md": "---\ntitle: 巴菲特\ntype: entity\nsource:\n  - raw/1962年.md\n---\n[[浮存金]]\n",
    "wiki/entities/芒格.md": "---\ntitle: 芒格\ntype: entity\n---\n[[巴菲特]] 的伙伴。\n",
    "raw/1967年.md": "致股东的信\n", "raw/1962年.md": "致合伙人的信\n", "raw/1970年.md": "未读\n",
}


def test_a_singular_source_key_counts(tmp_path):
    report = lint(write(tmp_path, CHINESE))
    assert found(report, "uningested-source") == [("raw/1970年.md", None)]  # the one no page names
    # The schema's own required fields: title, type and source; the page without a source is reported.
    assert [(p.path, p.message) for p in report.problems if p.check == "missing-frontmatter"] == [
        ("wiki/entities/芒格.md", "frontmatter lacks source (CLAUDE.md asks for title, type, source)")]


# ----------------------------------------------------------------- the schema's fields, read
def test_schema_fields_are_the_required_ones_else_the_examples_keys():
    assert schema_fields("") == ()
    assert schema_fields("Be kind. The `/go` step is required before writing; `plan` it first.\n") == ()
    assert schema_fields("Every page's frontmatter: `title` and `date` are required.\n") == ("title", "date")
    example = "```yaml\n---\ntitle: X\ntype: concept\nsummary: s\naliases: []  # optional\n---\n```\n"
    assert schema_fields(example) == ("title", "type", "summary")
    assert schema_fields(example + "- `title` and `type` are required.\n") == ("title", "type")
    nested = "    ---\n    title: X\n    author:\n      name: Y\n    ---\n"
    assert schema_fields(nested) == ("title", "author")
    wiki_md = (Path(__file__).resolve().parents[2] / "wikitui/data/WIKI.md").read_text(encoding="utf-8")
    assert schema_fields(wiki_md) == ("title", "type", "summary")  # what `wikitui init` writes


# ----------------------------------------------------------------- the report, grouped
def test_lint_prints_counts_first_then_the_findings_by_kind_the_smallest_first(tmp_path):
    files = dict(RESEARCH)
    files["index.md"] = "# Index\n\n<!-- wikitui:index -->\n\n- [[Sleep]]\n"
    root = write(tmp_path, files)
    done = run_wikitui(["lint", "--vault", str(root)])
    code, out, err = done.returncode, done.stdout, done.stderr
    assert code == 1
    lines = out.splitlines()
    # One invalid frontmatter, two orphans, three pages the catalog lacks, three without wikitui's fields:
    # the kind with one finding comes first, whatever the order of the checks.
    assert lines[0] == "9 problems: 1 invalid-frontmatter, 2 orphan, 3 not-in-index, 3 missing-frontmatter"
    heads = [line for line in lines if line.endswith(")") and ":" not in line]
    assert heads == ["invalid-frontmatter (1)", "orphan (2)", "not-in-index (3)", "missing-frontmatter (3)"]
    group = lines[lines.index("not-in-index (3)") + 1:lines.index("missing-frontmatter (3)")]
    assert [line for line in group if line] == [f"{page}: not-in-index: index.md does not link this page"
                                                for page in ("Broken.md", "Circadian rhythm.md", "Melatonin.md")]
    assert err.startswith("9 problems (2 orphan, 3 not-in-index, 3 missing-frontmatter, 1 invalid-frontmatter)")


def test_a_page_citing_a_singular_source_goes_stale_when_it_changes(tmp_path):
    root = write(tmp_path, CHINESE)
    assert found(lint(root), "stale") == []  # first seen: recorded
    (root / "raw/1967年.md").write_text("致股东的信，修订版\n", encoding="utf-8")
    assert found(lint(root), "stale") == [("wiki/concepts/浮存金.md", "raw/1967年.md")]


# ----------------------------------------------------------------- the parsers, on any text
_SCHEMA_BITS = st.sampled_from(["---", "    ---", "```", "```yaml", "    title: x", "type: y  # optional",
                                "- `title` is required", "front matter `a`", "\t", "", "  nested: 1", "`b` must have"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_SCHEMA_BITS, st.text(max_size=30)), max_size=25))
def test_schema_fields_of_any_text_are_names_the_text_holds(lines):
    text = "\n".join(lines)
    fields = schema_fields(text)
    assert len(set(fields)) == len(fields)
    for name in fields:
        assert name.isidentifier() or name.replace("-", "_").isidentifier()
        assert name in text


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
@example("0\r\\")  # a carriage return once survived the first cleaning ("0\r") and not the second
@example("/ /a")  # nor may a slash that a space hid come back to the front
def test_a_configured_link_root_never_leads_out_of_the_vault(value):
    root = clean_root(value)
    assert root == "" or not (root.startswith("/") or ".." in root.split("/") or root.startswith("."))
    assert clean_root(root) == root


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_an_address_compares_the_same_however_often_it_is_cleaned(url):
    once = same_address(url)
    assert same_address(once) == once
    assert same_address("https://www.Example.org/a/") == same_address("<http://example.org/a#top>") == "example.org/a"


def test_link_root_goes_through_the_config_and_belongs_to_the_vault(tmp_path, monkeypatch):
    from wikitui.core.config.settings import load_settings

    root = write(tmp_path / "v", {k: v for k, v in QUARTZ.items() if k != "quartz.config.ts"})
    user = tmp_path / "user.toml"
    user.write_text('link_root = "content"\n', encoding="utf-8")
    monkeypatch.setenv("WIKITUI_CONFIG", str(user))
    settings = load_settings(Vault.open(root))
    assert settings.link_root is None  # one vault's folder: not a setting for every vault
    assert any("'link_root' describes one vault" in w for w in settings.warnings)
    assert Vault.open(root).link_root == ""  # and the vault does not take it from there either
    write(root, {".wikitui/config.toml": "link_root = 3\n"})
    settings = load_settings(Vault.open(root))
    assert any("'link_root' has the wrong type" in w for w in settings.warnings) and settings.link_root is None
    assert Vault.open(root).link_root == ""
    write(root, {".wikitui/config.toml": 'link_root = "/content/"\n'})
    assert load_settings(Vault.open(root)).link_root == "/content/" and Vault.open(root).link_root == "content"
    write(root, {".wikitui/config.toml": 'link_root = "../elsewhere"\n'})
    assert Vault.open(root).link_root == ""  # never outside the vault


def test_the_semantic_pass_reads_the_smallest_kinds_first_too():
    from wikitui.core.agent.prompts.lint import format_lint_report
    from wikitui.core.vault.problem import Problem

    orphans = [Problem("orphan", f"p{i}.md", None, None, "no other page links here") for i in range(50)]
    broken = [Problem("broken-link", "a.md", 3, "Nowhere", "link [[Nowhere]] resolves to nothing")]
    lines = format_lint_report(LintReport(orphans + broken, {"orphan": 50, "broken-link": 1}),
                               limit=10).splitlines()
    assert lines[1] == "- broken-link a.md:3 [Nowhere]: link [[Nowhere]] resolves to nothing"
    assert lines[-1] == "... and 41 more orphan (fix the pattern, not each one)"
