"""Bounded work on hostile vaults (DESIGN §8): a page built to make commands slow or their output huge.

A 5 MB line holding 450,000 links once made ``links PAGE --json`` peak at 1.2 GB
and print 146 MB, and blanking each link out of the text one at a time made
unlinked mentions quadratic. These tests check the bounds by what can be counted
(rows, context length, output size), never by a time. ``bench/hostile.py`` times
the same cases at full size.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wikitui import cli
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.links import CONTEXT_CHARS, extract_links
from wikitui.core.vault.page import MAX_LINKS, parse_page

#: Links on the hostile line (a tenth of the reported case keeps the test quick; the work is linear).
N = 45_000


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def add_crowd(vault: Path) -> Path:
    """One page whose one line links Alice N times and names her N times."""
    line = " ".join(f"[[Alice]] met Alice and [[Nowhere {i % 3}]]" for i in range(N))
    (vault / "wiki" / "crowd.md").write_text(f"---\ntitle: Crowd\n---\n\n{line}\n\nAlice again.\n", encoding="utf-8")
    return vault


@pytest.fixture
def hostile(sample_vault: Path) -> Path:
    """The sample vault plus the crowd page."""
    return add_crowd(sample_vault)


def test_a_link_context_is_cut_to_200_characters():
    text = "intro " + "word " * 1000 + "[[Target]] " + "more " * 1000
    [link] = extract_links(text)
    assert len(link.context) == CONTEXT_CHARS == 200 and link.context.endswith("…")
    assert extract_links("  short line [[T]]  \n")[0].context == "short line [[T]]"


def test_links_of_a_page_linked_from_a_huge_line_list_each_line_once(sample_vault, capsys):
    before = run(capsys, "links", "Alice", "--json", "--vault", str(sample_vault))[1]
    hostile = add_crowd(sample_vault)
    code, out, err = run(capsys, "links", "Alice", "--json", "--vault", str(hostile))
    assert code == 0, err
    data = json.loads(out)
    from_crowd = [b for b in data["backlinks"] if b["path"] == "wiki/crowd.md"]
    assert [b["line"] for b in from_crowd] == [5]  # 45,000 links, one line: one row
    mentions = [m for m in data["unlinked"] if m["path"] == "wiki/crowd.md"]
    assert [(m["line"], m["context"]) for m in mentions][1:] == [(7, "Alice again.")]
    assert mentions[0]["line"] == 5
    assert all(len(row["context"]) <= CONTEXT_CHARS for group in ("backlinks", "unlinked") for row in data[group])
    assert len(out) - len(before) < 3 * (CONTEXT_CHARS + 100)  # three rows more: not 90,000 contexts


def test_the_huge_lines_outgoing_links_are_listed_once_per_target_and_line(hostile, capsys):
    code, out, _ = run(capsys, "links", "Crowd", "--json", "--vault", str(hostile))
    assert code == 0
    data = json.loads(out)
    assert data["outgoing"] == [
        {"target": "Alice", "path": "wiki/characters/alice.md", "line": 5},
        {"target": "Nowhere 0", "path": None, "line": 5},
        {"target": "Nowhere 1", "path": None, "line": 5},
        {"target": "Nowhere 2", "path": None, "line": 5},
    ]
    code, text_out, _ = run(capsys, "links", "Crowd", "--vault", str(hostile))
    assert code == 0 and "Outgoing (4)" in text_out and len(text_out) < 2_000


def test_lint_reports_every_broken_link_occurrence_in_json_that_parses(hostile, capsys):
    code, out, _ = run(capsys, "lint", "--json", "--vault", str(hostile))
    assert code == 1
    data = json.loads(out)
    broken = [p for p in data["problems"] if p["check"] == "broken-link" and p["path"] == "wiki/crowd.md"]
    # The contract: one problem per link occurrence read. The line holds 2N links, Alice and Nowhere
    # alternating; a page's first MAX_LINKS are read, and lint says the page has more.
    assert 2 * N > MAX_LINKS and len(broken) == MAX_LINKS // 2
    assert [p["path"] for p in data["problems"] if p["check"] == "too-many-links"] == ["wiki/crowd.md"]
    assert {p["line"] for p in broken} == {5} and max(len(p["message"]) for p in broken) < 100
    assert data["counts"]["broken-link"] == len([p for p in data["problems"] if p["check"] == "broken-link"])


def test_unlinked_mentions_are_one_per_line_with_a_short_context(hostile):
    graph = LinkGraph.load(Vault.open(hostile))
    mentions = [m for m in graph.unlinked_mentions("wiki/characters/alice.md") if m.path == "wiki/crowd.md"]
    assert [m.line for m in mentions] == [5, 7]
    assert len(mentions[0].context) == CONTEXT_CHARS and mentions[0].context.startswith("[[Alice]] met Alice")


# ------------------------------------------------------------- a page with more links than are read
def test_a_page_of_450000_links_holds_memory_a_couple_of_times_its_size():
    """The reported page: 4.5 MB, one line of 450,000 links. Reading it once peaked at ~150 MB of objects."""
    import tracemalloc

    text = "---\ntitle: Links\n---\n" + " ".join("[[alice]]" for _ in range(450_000)) + "\n"
    tracemalloc.start()
    try:
        info = parse_page("wiki/links.md", text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(text), f"parsing a {len(text):,}-byte page peaked at {peak:,} bytes"
    assert len(info.links) == MAX_LINKS and info.links_cut
    assert any(f"{MAX_LINKS:,} links" in w for w in info.warnings)
    first, last = info.links[0], info.links[-1]
    at = text.index("[[alice]]")
    assert (first.target, first.start, last.start) == ("alice", at, at + 10 * (MAX_LINKS - 1))


def test_links_past_the_limit_are_cut_in_reading_order_across_kinds():
    """Wiki links, markdown links and bare URLs interleaved: the first MAX_LINKS in reading order are kept."""
    parts = ["[[W]]", "[m](M.md)", "https://example.org/u"] * (MAX_LINKS // 3 + 5)
    text = "\n".join(parts) + "\n"
    every = extract_links(text)
    cut = extract_links(text, limit=MAX_LINKS)
    assert len(every) == len(parts) > MAX_LINKS
    assert cut == every[:MAX_LINKS]


def test_lint_names_the_page_whose_links_are_cut_and_lists_only_the_links_read(sample_vault, capsys):
    line = " ".join(f"[[nowhere {i}]]" for i in range(MAX_LINKS + 5_000))
    (sample_vault / "wiki" / "broken.md").write_text(f"---\ntitle: Broken\n---\n{line}\n", encoding="utf-8")
    code, out, _ = run(capsys, "lint", "--json", "--vault", str(sample_vault))
    assert code == 1
    data = json.loads(out)
    [cut] = [p for p in data["problems"] if p["check"] == "too-many-links"]
    assert cut["path"] == "wiki/broken.md" and f"{MAX_LINKS:,}" in cut["message"]
    broken = [p for p in data["problems"] if p["check"] == "broken-link" and p["path"] == "wiki/broken.md"]
    assert len(broken) == MAX_LINKS and broken[-1]["target"] == f"nowhere {MAX_LINKS - 1}"
    assert data["counts"]["too-many-links"] == 1
    code, text_out, _ = run(capsys, "lint", "--vault", str(sample_vault))
    assert "too-many-links" in text_out or "more than 20,000 links" in text_out
