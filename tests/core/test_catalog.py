"""The files wikitui generates (DESIGN §2): index.md's catalog, and log.md's entries."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest

from wikitui.core.vault.catalog import INDEX_MARKER, render_index
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.log_md import append_log, format_log_entry


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def page(title: str, type_: str | None, summary: str = "") -> str:
    lines = ["---", f"title: {title!r}"]
    if type_ is not None:
        lines.append(f"type: {type_}")
    if summary:
        lines.append(f"summary: {summary!r}")
    return "\n".join([*lines, "---", "", f"# {title}", ""])


PAGES = {
    "wiki/concepts/identity.md": page("Identity", "concept", "Who is Alice, after all the changes?"),
    "wiki/characters/alice.md": page("Alice", "entity", "The girl who falls."),
    "wiki/characters/rabbit.md": page("white Rabbit", "entity", "Late, always."),
    "wiki/overview.md": page("The Book", "overview", "The whole book at a glance."),
    "wiki/sources/chapter-10.md": page("Chapter 10", "source", "The Lobster Quadrille."),
    "wiki/sources/chapter-2.md": page("Chapter 2", "source", "The Pool of Tears."),
    "wiki/answers/why.md": page("Why a raven?", "answer", "Like a writing-desk."),
    "wiki/topics/food.md": page("Food", "topic", "Everything eaten or drunk."),
    "wiki/recipes/tarts.md": page("Tarts", "recipe", "Made on a summer day."),
    "wiki/people/carroll.md": page("Lewis Carroll", "Author", "Wrote it."),
    "wiki/scratch.md": "Just some notes, no frontmatter.\n",
    "wiki/log.md": "# Log\n",
}

EXPECTED_CATALOG = """
## Overview

- [[The Book]] — The whole book at a glance.

## Sources

- [[Chapter 2]] — The Pool of Tears.
- [[Chapter 10]] — The Lobster Quadrille.

## Entities

- [[Alice]] — The girl who falls.
- [[white Rabbit]] — Late, always.

## Concepts

- [[Identity]] — Who is Alice, after all the changes?

## Topics

- [[Food]] — Everything eaten or drunk.

## Answers

- [[Why a raven?]] — Like a writing-desk.

## Author

- [[Lewis Carroll]] — Wrote it.

## Recipe

- [[Tarts]] — Made on a summer day.

## Other

- [[scratch]]
"""


def make(root: Path, pages: dict[str, str], index: str) -> tuple[Vault, LinkGraph]:
    for rel, text in pages.items():
        write(root, rel, text)
    write(root, "wiki/index.md", index)
    vault = Vault.open(root)
    return vault, LinkGraph.load(vault)


def test_catalog_is_grouped_by_type_in_a_fixed_order_and_sorted_by_title(tmp_path):
    head = f"# Index\n\nMy notes.\n\n{INDEX_MARKER}\n"
    vault, graph = make(tmp_path, PAGES, head + "\n- [[Stale entry]]\n")
    assert render_index(vault, graph, (tmp_path / "wiki/index.md").read_text()) == head + EXPECTED_CATALOG


def test_text_above_the_marker_is_kept_byte_for_byte(tmp_path):
    head = f"# My  Index \r\n\r\nTrailing spaces   \r\n[[Alice]] is where to start.\r\n\r\n{INDEX_MARKER}\r\n"
    old = "## Entities\r\n\r\n- [[Old]] — gone.\r\n"
    vault, graph = make(tmp_path, {"wiki/a.md": page("Alice", "entity", "A.")}, head + old)
    out = render_index(vault, graph, head + old)
    assert out.startswith(head)
    # A CRLF file stays CRLF throughout.
    assert out[len(head) :] == "\r\n## Entities\r\n\r\n- [[Alice]] — A.\r\n"


def test_regeneration_is_deterministic_whatever_the_order_pages_were_written(tmp_path):
    index = f"# Index\n{INDEX_MARKER}\n"
    v1, g1 = make(tmp_path / "one", PAGES, index)
    v2, g2 = make(tmp_path / "two", dict(reversed(list(PAGES.items()))), index)
    first = render_index(v1, g1, index)
    assert first == render_index(v1, LinkGraph.load(v1, use_cache=False), index)
    assert first == render_index(v2, g2, index)
    # Regenerating the regenerated text changes nothing.
    assert render_index(v1, g1, first) == first


def test_an_index_without_the_marker_is_the_users_own(tmp_path):
    vault, graph = make(tmp_path, PAGES, "# Index\n\n- [[Alice]]\n")
    assert render_index(vault, graph, "# Index\n\n- [[Alice]]\n") is None


def test_every_entry_links_to_its_own_page_even_when_titles_collide(tmp_path):
    pages = {
        "wiki/a/mercury.md": page("Mercury", "entity", "The planet."),
        "wiki/b/mercury.md": page("Mercury", "entity", "The element."),
        "wiki/c/quicksilver.md": page("Mercury", "concept", "The god."),
        "wiki/odd.md": page("Pipe | and [brackets] #1", "concept", "Awkward title."),
        "wiki/stem.md": page("Stem", "topic", "Named like another page's file."),
        "wiki/x/stem-2.md": page("stem", "topic", "Its title is the other page's file name."),
    }
    index = f"{INDEX_MARKER}\n"
    vault, graph = make(tmp_path, pages, index)
    out = render_index(vault, graph, index)
    entries = re.findall(r"^- (\[\[.+?\]\])", out, re.MULTILINE)
    assert len(entries) == len(pages)
    targets = [graph.resolve_target(e[2:-2].split("|")[0]) for e in entries]
    assert sorted(targets) == sorted(pages)
    # The first Mercury is what [[Mercury]] means (file stem, shortest path); the others need a path.
    assert "- [[Mercury]] — The planet.\n- [[b/mercury|Mercury]] — The element." in out
    assert "- [[c/quicksilver|Mercury]] — The god." in out
    assert "- [[odd|Pipe | and (brackets) #1]] — Awkward title." in out
    # index.md and log.md are not in their own catalog.
    assert "[[index" not in out.lower() and "[[log" not in out.lower()


def test_sample_vault_catalog_lists_every_page_once(sample_vault):
    vault = Vault.open(sample_vault)
    graph = LinkGraph.load(vault)
    text = (sample_vault / "wiki/index.md").read_text(encoding="utf-8")
    out = render_index(vault, graph, text)
    assert out is not None and out.startswith(text[: text.index(INDEX_MARKER)])
    entries = re.findall(r"^- \[\[(.+?)\]\]", out, re.MULTILINE)
    listed = [graph.resolve_target(e.split("|")[0]) for e in entries]
    assert sorted(listed) == sorted(p for p in graph.pages if p not in (vault.index_path, vault.log_path))


# ------------------------------------------- log.md, the other file wikitui writes
def test_log_entry_format():
    entry = format_log_entry(
        "ingest",
        "Chapter 3:\nA Caucus-Race",
        ["wiki/sources/chapter-03.md", "wiki/characters/dodo.md"],
        model="openai/gpt-x",
        tokens=12345,
        cost=0.01234,
        changeset="cs-20260101-ab12",
        commit="abc1234",
        hunks=["h1", "h3"],
        date=datetime.date(2026, 1, 2),
    )
    assert entry == (
        "## [2026-01-02] ingest | Chapter 3: A Caucus-Race\n"
        "\n"
        "- pages: [[wiki/sources/chapter-03]], [[wiki/characters/dodo]]\n"
        "- model: openai/gpt-x\n"
        "- tokens: 12,345\n"
        "- cost: $0.0123\n"
        "- changeset: cs-20260101-ab12\n"
        "- hunks: h1, h3\n"
        "- commit: abc1234\n"
    )
    undo = format_log_entry("undo", "t", [], date="2026-01-03")
    assert undo.startswith("## [2026-01-03] undo | t\n\n- pages: none\n")
    with pytest.raises(ValueError):
        format_log_entry("rewrite-history", "t", [])


def test_log_is_created_then_appended_to_keeping_what_is_there(tmp_path):
    (tmp_path / "wiki").mkdir()
    vault = Vault.open(tmp_path)
    first = format_log_entry("edit", "One", ["wiki/a.md"], date=datetime.date(2026, 1, 1))
    append_log(vault, first)
    log = tmp_path / "wiki/log.md"
    assert log.read_text(encoding="utf-8") == "# Log\n\n" + first
    # A person's own note at the end, without a final newline, stays as written.
    log.write_text(log.read_text(encoding="utf-8") + "\nmy note", encoding="utf-8")
    second = format_log_entry("query", "Two", [], date=datetime.date(2026, 1, 2))
    append_log(vault, second)
    assert log.read_text(encoding="utf-8") == "# Log\n\n" + first + "\nmy note\n\n" + second
    # Each entry's pages are links the graph resolves (log.md is a page for reading).
    (tmp_path / "wiki/a.md").write_text("# A\n", encoding="utf-8")
    graph = LinkGraph.load(vault)
    assert [t for _l, t in graph.outgoing("wiki/log.md")] == ["wiki/a.md"]
