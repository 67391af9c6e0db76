"""Link syntax and resolution (DESIGN §2) on small vaults built in a temp folder."""

from __future__ import annotations

import os
from pathlib import Path

from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault


def make_vault(root: Path, files: dict[str, str | bytes]) -> tuple[Vault, LinkGraph]:
    """Write ``files`` (vault-relative path -> content) under ``root`` and load the graph."""
    (root / "wiki").mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    vault = Vault.open(root)
    return vault, LinkGraph.load(vault)


def page(title: str, body: str = "", **fields: str) -> str:
    extra = "".join(f"{k}: {v}\n" for k, v in fields.items())
    return f"---\ntitle: {title}\ntype: concept\nsummary: {title} in one line\n{extra}---\n\n{body}\n"


def resolved(graph: LinkGraph, path: str) -> list[tuple[str, str, str, str, bool, str | None]]:
    """(target, anchor, label, kind, embed, resolved path) of each outgoing link, in reading order."""
    return [(l.target, l.anchor, l.label, l.kind, l.embed, t) for l, t in graph.outgoing(path)]


def test_every_link_form_resolves_as_obsidian_would(tmp_path):
    body = "\n".join(
        [
            "# Top",
            "Plain [[Target]] and labelled [[Target|the target]].",
            "A section [[Target#Heading One]] and a block [[Target#^blk1]].",
            "A missing heading still finds the page: [[Target#No Such Heading]].",
            "Same page: [[#Top]].",
            "Folder-qualified: [[folder/Target]].",
            "Embeds: ![[img.png]] and ![[gone.png]].",
            "Markdown: [note](../other/Note.md) and [web](https://example.com/a_(b)).",
        ]
    )
    vault, graph = make_vault(
        tmp_path,
        {
            "wiki/Target.md": page("Target Page", "# Heading One\n\nA paragraph. ^blk1"),
            "wiki/folder/Target.md": page("Folder Target"),
            "wiki/other/Note.md": page("Note"),
            "wiki/sub/src.md": page("Source", body),
            "wiki/img.png": b"\x89PNG\r\n\x1a\n\x00\x00",
        },
    )
    assert resolved(graph, "wiki/sub/src.md") == [
        ("Target", "", "", "wiki", False, "wiki/Target.md"),
        ("Target", "", "the target", "wiki", False, "wiki/Target.md"),
        ("Target", "Heading One", "", "wiki", False, "wiki/Target.md"),
        ("Target", "^blk1", "", "wiki", False, "wiki/Target.md"),
        ("Target", "No Such Heading", "", "wiki", False, "wiki/Target.md"),
        ("", "Top", "", "wiki", False, "wiki/sub/src.md"),
        ("folder/Target", "", "", "wiki", False, "wiki/folder/Target.md"),
        ("img.png", "", "", "wiki", True, "wiki/img.png"),
        ("gone.png", "", "", "wiki", True, None),
        ("../other/Note.md", "", "note", "md", False, "wiki/other/Note.md"),
        ("https://example.com/a_(b)", "", "web", "url", False, None),
    ]
    # The target page knows its block id and headings.
    assert graph.pages["wiki/Target.md"].block_ids == ["blk1"]
    # External URLs are neither counted nor unresolved; the missing embed is.
    assert graph.link_count() == 10
    assert [(p, l.target) for p, l in graph.unresolved()] == [("wiki/sub/src.md", "gone.png")]
    assert [b.source for b in graph.backlinks("wiki/Target.md")] == ["wiki/sub/src.md"] * 5


def test_links_in_code_comments_and_frontmatter_are_text(tmp_path):
    text = "\n".join(
        [
            "---",
            "title: Hidden",
            "related: \"[[In Frontmatter]]\"",
            "---",
            "Real link to [[Real]].",
            "```python",
            "x = '[[In Backtick Fence]]'",
            "```",
            "~~~",
            "[[In Tilde Fence]]",
            "~~~",
            "Inline `[[In Inline Code]]` and ``double `[[In Double]]` ticks``.",
            "%% [[In Obsidian Comment]] %%",
            "<!-- [[In HTML Comment]]",
            "spanning lines [[Still Comment]] -->",
            "After everything, [[Also Real]].",
        ]
    )
    _vault, graph = make_vault(tmp_path, {"wiki/hidden.md": text})
    links = graph.pages["wiki/hidden.md"].links
    assert [(l.target, l.line) for l in links] == [("Real", 5), ("Also Real", 16)]


def test_resolution_prefers_stem_then_title_then_alias(tmp_path):
    _vault, graph = make_vault(
        tmp_path,
        {
            # "Beta" is the title of alpha.md but the stem of beta.md: the stem wins.
            "wiki/alpha.md": page("Beta"),
            "wiki/beta.md": page("Something Else"),
            # "Gamma" is an alias of one page and the title of another: the title wins.
            "wiki/g1.md": page("G One", aliases="[Gamma]"),
            "wiki/g2.md": page("Gamma"),
            # Only an alias names this one.
            "wiki/d.md": page("Delta", aliases='["Δ", "The D"]'),
            "wiki/src.md": page("Src", "[[beta]] [[gamma]] [[the d]] [[Δ]] [[ALPHA]] [[g one]]"),
        },
    )
    assert [t for _l, t in graph.outgoing("wiki/src.md")] == [
        "wiki/beta.md",
        "wiki/g2.md",
        "wiki/d.md",
        "wiki/d.md",
        "wiki/alpha.md",
        "wiki/g1.md",
    ]


def test_ties_go_to_the_shortest_path_then_alphabetical(tmp_path):
    _vault, graph = make_vault(
        tmp_path,
        {
            "wiki/deep/er/Note.md": "# deep",
            "wiki/zz/Note.md": "# zz",
            "wiki/aa/Note.md": "# aa",
            "wiki/bb/Same.md": page("Shared Title"),
            "wiki/ab/Samf.md": page("Shared Title"),
            "wiki/src.md": page("Src", "[[note]] [[NOTE]] [[shared title]] [[deep/er/note]] [[er/Note]]"),
        },
    )
    assert [t for _l, t in graph.outgoing("wiki/src.md")] == [
        "wiki/aa/Note.md",
        "wiki/aa/Note.md",
        "wiki/ab/Samf.md",  # same length as wiki/bb/Same.md: alphabetical
        "wiki/deep/er/Note.md",
        "wiki/deep/er/Note.md",
    ]


def test_names_with_section_signs_spaces_quotes_apostrophes_and_backticks(tmp_path):
    names = [
        "§ 32a EStG",
        "Alice's Sister",
        'The "Quoted" Page',
        "About `We are Good People`",
        "Name, with comma",
    ]
    files = {f"wiki/{n}.md": f"# {n}\n" for n in names}
    files["wiki/src.md"] = page("Src", "\n".join(f"- [[{n}]] and [[{n.lower()}|x]]" for n in names))
    _vault, graph = make_vault(tmp_path, files)
    targets = [t for _l, t in graph.outgoing("wiki/src.md")]
    assert targets == [f"wiki/{n}.md" for n in names for _ in (0, 1)]
    # A page without a frontmatter title is named by its file, as in Obsidian.
    assert graph.pages["wiki/§ 32a EStG.md"].title == "§ 32a EStG"
    assert graph.unresolved() == []


def test_renaming_a_title_moves_backlinks_and_deleting_a_page_unresolves_links(tmp_path):
    vault, graph = make_vault(
        tmp_path,
        {
            "wiki/x.md": page("Alpha"),
            "wiki/y.md": page("Beta"),
            "wiki/s.md": page("S", "See [[Alpha]]."),
        },
    )
    assert [b.source for b in graph.backlinks("wiki/x.md")] == ["wiki/s.md"]

    # The user swaps the names: "Alpha" now belongs to y.md.
    (tmp_path / "wiki/x.md").write_text(page("Gamma"), encoding="utf-8")
    graph.update_path("wiki/x.md")
    (tmp_path / "wiki/y.md").write_text(page("Alpha"), encoding="utf-8")
    graph.update_path("wiki/y.md")
    assert graph.backlinks("wiki/x.md") == []
    assert [b.source for b in graph.backlinks("wiki/y.md")] == ["wiki/s.md"]
    assert graph.unresolved() == []

    (tmp_path / "wiki/y.md").unlink()
    graph.update_path("wiki/y.md")
    assert "wiki/y.md" not in graph.pages
    assert [(p, l.target) for p, l in graph.unresolved()] == [("wiki/s.md", "Alpha")]

    # The same graph, built from scratch, agrees with the incremental one.
    fresh = LinkGraph.load(vault, use_cache=False)
    assert [(p, l.target) for p, l in fresh.unresolved()] == [("wiki/s.md", "Alpha")]


def test_warm_cache_parses_nothing_and_one_changed_file_is_reparsed(tmp_path):
    files = {f"wiki/p{i}.md": page(f"P{i}", f"[[P{(i + 1) % 5}]]") for i in range(5)}
    vault, cold = make_vault(tmp_path, files)
    assert cold.parsed_count == 5

    warm = LinkGraph.load(vault)
    assert warm.parsed_count == 0
    assert warm.link_count() == 5 and warm.unresolved() == []

    changed = tmp_path / "wiki/p2.md"
    changed.write_text(page("P2", "[[P3]] and [[Nowhere]]"), encoding="utf-8")
    st = changed.stat()
    os.utime(changed, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    again = LinkGraph.load(vault)
    assert again.parsed_count == 1
    assert [(p, l.target) for p, l in again.unresolved()] == [("wiki/p2.md", "Nowhere")]
