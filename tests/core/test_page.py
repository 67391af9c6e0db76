"""Parsing single pages: the tolerant cases a real vault has."""

from __future__ import annotations

from wikitui.core.graph import LinkGraph
from wikitui.core.page import parse_page
from wikitui.core.vault import Vault


def test_title_comes_from_frontmatter_then_the_single_h1_then_the_file_stem():
    assert parse_page("wiki/a.md", "---\ntitle: Fm Title\n---\n# Heading\n").title == "Fm Title"
    assert parse_page("wiki/a.md", "intro\n\n# The Heading\n\ntext\n").title == "The Heading"
    # Several H1s are sections, not a document title; an H2 first is no title either.
    assert parse_page("wiki/a.md", "# Types\n\n# Examples\n").title == "a"
    assert parse_page("wiki/a.md", "## Sub\n# Late\n").title == "a"
    assert parse_page("wiki/a.md", "no heading at all\n").title == "a"


def test_obsidian_vault_names_notes_by_file_while_a_wiki_folder_uses_the_h1(tmp_path):
    obsidian = tmp_path / "obs"
    (obsidian / ".obsidian").mkdir(parents=True)
    (obsidian / "Sound Classes.md").write_text("# Examples\n\nsee [[Other]]\n")
    wiki = tmp_path / "llm"
    (wiki / "wiki").mkdir(parents=True)
    (wiki / "wiki" / "sound-classes.md").write_text("# Sound Classes\n\ntext\n")
    (wiki / "wiki" / "user.md").write_text("links to [[Sound Classes]]\n")
    assert LinkGraph.load(Vault.open(obsidian)).pages["Sound Classes.md"].title == "Sound Classes"
    g = LinkGraph.load(Vault.open(wiki))
    assert g.pages["wiki/sound-classes.md"].title == "Sound Classes"
    assert [t for _l, t in g.outgoing("wiki/user.md")] == ["wiki/sound-classes.md"]


def test_bom_crlf_and_broken_yaml_still_give_a_page():
    bom_crlf = "\r\n".join(["---", "title: Über", "type: concept", "---", "# Über", "see [[X]]", ""])
    info = parse_page("wiki/u.md", bom_crlf.encode("utf-8").decode("utf-8"))
    assert (info.title, info.type, info.body_line) == ("Über", "concept", 5)
    assert [(l.target, l.line) for l in info.links] == [("X", 6)]
    broken = parse_page("wiki/b.md", "---\ntitle: [unclosed\n---\n# Still Here\nbody [[Y]]\n")
    assert broken.frontmatter_error and broken.warnings
    assert broken.title == "Still Here" and [l.target for l in broken.links] == ["Y"]


def test_headings_and_block_ids_skip_code():
    text = "# Top\n```\n# not a heading ^nope\n```\npara ^blk-1\n## Second\n"
    info = parse_page("wiki/h.md", text)
    assert [(h.level, h.text, h.line) for h in info.headings] == [(1, "Top", 1), (2, "Second", 6)]
    assert info.block_ids == ["blk-1"]
