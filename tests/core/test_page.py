"""Parsing single pages: the tolerant cases a real vault has."""

from __future__ import annotations

from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.page import parse_page


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


def alias_bomb(levels: int = 9) -> str:
    """A "billion laughs" frontmatter: each line names the one before nine times (9^9 values)."""
    lines = ["---", 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    names = "abcdefghijklmnop"
    for prev, name in zip(names, names[1:levels]):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    lines += [f"title: *{names[levels - 1]}", f"tags: *{names[levels - 1]}", "---", "# Bomb", "", "body [[X]]", ""]
    return "\n".join(lines)


def test_yaml_anchors_and_aliases_are_refused_not_expanded():
    info = parse_page("wiki/bomb.md", alias_bomb())
    assert info.frontmatter_error == "YAML anchors and aliases (&name, *name) are not expanded in frontmatter"
    assert info.meta == {} and info.tags == []  # nothing of the block is read
    assert info.title == "Bomb" and [l.target for l in info.links] == ["X"]  # the rest of the page is
    # A single anchor is refused too, and a merge key (it needs an alias); `*` and `&` in text are not YAML.
    assert parse_page("wiki/a.md", "---\nbase: &b {x: 1}\ntitle: A\n---\n").frontmatter_error
    assert parse_page("wiki/a.md", "---\nbase: {x: 1}\nmore:\n  <<: *b\n---\n").frontmatter_error
    plain = parse_page("wiki/a.md", "---\ntitle: R&D *notes*\nsummary: 'a & b'\nx: [1, {y: 2}]\n---\n")
    assert plain.frontmatter_error is None and plain.title == "R&D *notes*"


def test_a_page_with_an_alias_bomb_is_invalid_frontmatter_in_lint_and_indexed_as_text(tmp_path):
    from wikitui.core.search.facade import SearchIndex
    from wikitui.core.vault.lint import run_lint

    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "bomb.md").write_text(alias_bomb(), encoding="utf-8")
    (tmp_path / "wiki" / "x.md").write_text("---\ntitle: X\ntype: t\nsummary: s\n---\nsee [[bomb]]\n")
    vault = Vault.open(tmp_path)
    graph = LinkGraph.load(vault)
    problems = [(p.check, p.path) for p in run_lint(vault, graph).problems if p.check == "invalid-frontmatter"]
    assert problems == [("invalid-frontmatter", "wiki/bomb.md")]
    with SearchIndex(vault) as index:
        assert index.update().added == 2
        hits = index.search("bomb")
        assert hits[0].path == "wiki/bomb.md" and hits[0].title == "Bomb"
        assert index.search("lol") == []  # the block was not read into any field


def test_frontmatter_edits_refuse_aliases_too():
    import pytest

    from wikitui.core.vault.frontmatter_edit import FrontmatterEditError, frontmatter_value, set_frontmatter_keys

    with pytest.raises(FrontmatterEditError, match="anchors and aliases"):
        set_frontmatter_keys(alias_bomb(), {"updated": "2026-01-01"})
    assert frontmatter_value(alias_bomb(), "title") is None
    assert frontmatter_value("---\ntitle: R&D *x*\n---\n", "title") == "R&D *x*"
