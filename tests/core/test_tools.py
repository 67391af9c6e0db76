"""The agent's tools on a copy of the sample vault: what the model sees, and what it cannot do."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from wikitui.core.agent.tools import ToolBox, describe_call
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.search.facade import SearchIndex
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault


def tree_hash(root: Path) -> str:
    """A hash of every file under ``root`` except wikitui's own caches."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith((".wikitui/cache", ".wikitui/index")):
            h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


@pytest.fixture
def box(sample_vault):
    vault = Vault.open(sample_vault)
    graph = LinkGraph.load(vault)
    index = SearchIndex(vault)
    index.update(graph)
    return ToolBox(vault, graph, index, ChangesetBuilder(vault, graph))


def call(box: ToolBox, name: str, **args):
    return box.call(name, json.dumps(args))


def test_schemas_follow_the_contract(box):
    schemas = {s["function"]["name"]: s["function"] for s in box.schemas()}
    assert list(schemas) == ["search", "read", "list_pages", "links", "history",
                             "propose_edit", "propose_page", "propose_delete", "propose_move", "propose_chart",
                             "propose_merge"]
    search = schemas["search"]["parameters"]
    assert search["required"] == ["query"]
    assert search["properties"]["scope"] == {**search["properties"]["scope"], "enum": ["all", "wiki", "raw"], "default": "all"}
    assert search["properties"]["limit"]["default"] == 10
    read = schemas["read"]["parameters"]["properties"]
    assert (read["offset"]["default"], read["limit"]["default"]) == (0, 400)
    edit = schemas["propose_edit"]["parameters"]
    assert edit["required"] == ["path", "edits", "reason"]
    assert edit["properties"]["edits"]["items"]["required"] == ["new", "old"]
    assert schemas["propose_move"]["parameters"]["required"] == ["path", "new_path", "reason"]
    chart = schemas["propose_chart"]["parameters"]
    assert chart["required"] == ["path", "spec", "reason"]
    spec = chart["properties"]["spec"]
    assert spec["required"] == ["kind", "series"] and spec["properties"]["kind"]["enum"][0] == "bar"
    assert spec["properties"]["series"]["items"]["properties"]["x"]["items"] == {"type": ["string", "number"]}
    assert schemas["propose_merge"]["parameters"]["required"] == ["from_path", "into_path", "reason"]
    assert all(s["description"] for s in schemas.values())
    assert "title or alias" in read["path"]["description"]


def test_read_by_path_title_alias_and_wiki_relative_path(box):
    by_path = call(box, "read", path="wiki/characters/cheshire-cat.md")
    assert by_path.ok
    first = by_path.text.splitlines()
    assert first[0].startswith('wiki/characters/cheshire-cat.md (page "Cheshire Cat", entity) lines 1-')
    assert first[1] == "    1\t---"
    for name in ("Cheshire Cat", "characters/cheshire-cat.md", "[[Cheshire Cat]]"):
        assert call(box, "read", path=name).text == by_path.text
    alias = box.graph.pages["wiki/characters/mad-hatter.md"].aliases[0]
    assert call(box, "read", path=alias).text.startswith("wiki/characters/mad-hatter.md")
    assert by_path.description == "read wiki/characters/cheshire-cat.md"


def test_long_files_are_paged_with_a_note(box):
    first = call(box, "read", path="raw/chapter-01.md", limit=50)
    assert first.text.splitlines()[0] == "raw/chapter-01.md (raw source, read-only) lines 1-50 of 61"
    assert first.text.endswith("[lines 1-50 of 61; call read with offset=50 for more]")
    second = call(box, "read", path="raw/chapter-01.md", offset=50, limit=400)
    assert second.text.splitlines()[1].startswith("   51\t")
    assert "call read with offset" not in second.text  # the rest fits
    assert "offset 500 is past the end" in call(box, "read", path="raw/chapter-01.md", offset=500).text
    assert len(call(box, "read", path="raw/chapter-01.md", limit=10_000).text.splitlines()) <= 402


def test_binary_files_are_described_not_dumped(box):
    assets = box.vault.root / "raw" / "assets"
    assets.mkdir(parents=True)
    png = b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big") + b"\0" * 200
    (assets / "tea-party.png").write_bytes(png)
    (box.vault.root / "raw" / "notes.pdf").write_bytes(b"%PDF-1.7\n\0\0binary" * 100)
    box.graph.refresh()
    img = call(box, "read", path="raw/assets/tea-party.png")
    assert img.ok and "PNG image, 640x480 pixels" in img.text and "\0" not in img.text
    pdf = call(box, "read", path="raw/notes.pdf")
    assert "notes.pdf is not a readable PDF" in pdf.text and "%PDF" not in pdf.text  # one clear line


def test_reading_outside_the_vault_content_is_refused(box, tmp_path):
    secret = tmp_path / "outside.txt"
    secret.write_text("outside secret")
    os.symlink(secret, box.vault.root / "wiki" / "link.md")
    (box.vault.root / ".wikitui").mkdir(exist_ok=True)
    (box.vault.root / ".wikitui" / "config.toml").write_text('model = "x"\n')
    for path in ("../outside.txt", str(secret), ".wikitui/config.toml", "wiki/link.md", "raw/../../outside.txt"):
        out = call(box, "read", path=path)
        assert not out.ok and out.text.startswith("error: "), path
        assert "outside secret" not in out.text
    missing = call(box, "read", path="Cheshire Kat")
    assert not missing.ok and "did you mean Cheshire Cat" in missing.text


def test_search_list_pages_and_links(box):
    hits = call(box, "search", query="grin", scope="wiki", limit=3)
    assert hits.ok and hits.description == 'searched "grin" in wiki'
    assert hits.summary.startswith(("1 hit", "2 hits", "3 hits"))
    assert "wiki/characters/cheshire-cat.md — Cheshire Cat (page" in hits.text
    assert "raw/" not in hits.text
    none = call(box, "search", query="zzyzzx")
    assert none.ok and none.text.startswith('0 hits for "zzyzzx"')

    places = call(box, "list_pages", folder="places")
    assert places.text.splitlines()[0] == "8 pages in wiki/places/:"
    assert "wiki/places/pool-of-tears.md — The Pool of Tears [entity]: " in places.text or \
        any(line.startswith("wiki/places/pool-of-tears.md — ") for line in places.text.splitlines())
    themes = call(box, "list_pages", type="concept")
    assert all(line.startswith("wiki/themes/") for line in themes.text.splitlines()[1:])
    assert call(box, "list_pages", type="spaceship").text.startswith("0 pages of type spaceship. Types in this wiki:")

    links = call(box, "links", path="Dodo")
    assert links.text.startswith('wiki/characters/dodo.md ("Dodo")')
    assert "→ wiki/characters/alice.md" in links.text
    assert "Backlinks (" in links.text and "wiki/sources/chapter-03.md:" in links.text


def test_search_ranked_by_any_word_says_so_in_the_result(box):
    # Issue 21.9: a question in words no page holds all of still finds pages, and the model is told.
    found = call(box, "search", query="how do I find the hatter zzyzzx", scope="wiki", limit=3)
    lines = found.text.splitlines()
    assert found.ok and lines[1] == "Note: no result has every word; showing results with any of them"
    assert "hatter" in found.text.lower()
    # A phrase is shown at its line (issue 21.7).
    phrase = call(box, "search", query='"mad here"', scope="raw", limit=1)
    assert "raw/chapter-06.md" in phrase.text and "**mad** **here**" in phrase.text
    line = int(phrase.text.split(", line ")[1].split(",")[0])
    assert "mad here" in (box.vault.root / "raw/chapter-06.md").read_text(encoding="utf-8").splitlines()[line - 1]


def test_bad_calls_become_error_results(box):
    cases = {
        ("fly", "{}"): "there is no tool 'fly'",
        ("search", '{"query": "alice", "limit": '): "arguments are not valid JSON",
        ("search", '["alice"]'): "must be a JSON object",
        ("search", '{"limit": 3}'): "needs the argument 'query'",
        ("search", '{"query": "x", "limit": "many"}'): "limit must be an integer",
        ("search", '{"query": "x", "scope": "everywhere"}'): "scope must be one of 'all', 'wiki', 'raw'",
        ("read", '{"path": "wiki/index.md", "colour": "red"}'): "read has no argument 'colour'",
        ("propose_edit", '{"path": "wiki/characters/dodo.md", "edits": [{"old": "x"}], "reason": "r"}'): "edits[0] is missing 'new'",
        ("propose_edit", '{"path": "wiki/characters/dodo.md", "edits": "nope", "reason": "r"}'): "edits must be a list",
    }
    for (name, args), expected in cases.items():
        out = box.call(name, args)
        assert not out.ok and out.text.startswith("error: ") and expected in out.text, (name, args, out.text)
    # Gentle coercions a model commonly needs.
    assert box.call("search", '{"query": "grin", "limit": "2", "scope": "WIKI", "scope": null}').ok


def test_hostile_proposals_are_refused_and_nothing_is_written(box):
    before = tree_hash(box.vault.root)
    hostile = [
        ("propose_page", {"path": "../../etc/x", "content": "pwned", "reason": "escape"}),
        ("propose_page", {"path": "/etc/x.md", "content": "pwned", "reason": "absolute"}),
        ("propose_page", {"path": "raw/chapter-01.md", "content": "rewritten", "reason": "edit a source"}),
        ("propose_page", {"path": "wiki/log.md", "content": "history rewritten", "reason": "rewrite log"}),
        ("propose_page", {"path": ".wikitui/config.toml", "content": "model='evil'", "reason": "config"}),
        ("propose_delete", {"path": "raw/chapter-02.md", "reason": "delete a source"}),
        ("propose_move", {"path": "wiki/characters/dodo.md", "new_path": "raw/dodo.md", "reason": "into raw"}),
        ("propose_edit", {"path": "wiki/log.md", "edits": [{"old": "##", "new": "#"}], "reason": "log"}),
    ]
    for name, args in hostile:
        out = call(box, name, **args)
        assert not out.ok and out.text.startswith("error: "), (name, args, out.text)
    assert box.builder.build("edit", "hostile") is None
    assert tree_hash(box.vault.root) == before


def test_proposals_accumulate_in_the_builder_without_touching_disk(box):
    before = tree_hash(box.vault.root)
    dodo = box.vault.root / "wiki/characters/dodo.md"
    old = "One of the creatures"
    assert old in dodo.read_text()
    ok = call(box, "propose_edit", path="wiki/characters/dodo.md",
              edits=[{"old": old, "new": "A bird, one of the creatures"}], reason="clarify")
    assert ok.ok, ok.text
    missing = call(box, "propose_edit", path="wiki/characters/dodo.md",
                   edits=[{"old": "text that is not there", "new": "x"}], reason="r")
    assert not missing.ok
    page = call(box, "propose_page", path="wiki/themes/prizes.md",
                content="---\ntitle: Prizes\ntype: concept\nsummary: Everybody wins.\n---\n# Prizes\n", reason="new")
    assert page.ok and page.description == "proposed the page wiki/themes/prizes.md"
    cs = box.builder.build("edit", "test")
    assert sorted(f.path for f in cs.files) == ["wiki/characters/dodo.md", "wiki/themes/prizes.md"]
    assert tree_hash(box.vault.root) == before


def test_the_plan_phase_refuses_proposals(box):
    box.phase = "plan"
    out = call(box, "propose_page", path="wiki/themes/x.md", content="# X\n", reason="r")
    assert not out.ok and "PLAN phase" in out.text
    assert call(box, "read", path="raw/chapter-01.md").ok  # reading still works


def test_large_results_are_cut_with_a_note(box):
    box.max_result_chars = 2000
    out = call(box, "list_pages")
    assert len(out.text) < 2200 and out.text.rstrip().endswith("lower the limit or page with offset]")
    read = call(box, "read", path="raw/chapter-01.md")
    assert len(read.text) < 2200 and "call read with offset=" in read.text


def test_descriptions_are_one_quiet_line():
    assert describe_call("search", {"query": "x"}) == 'searched "x"'
    assert describe_call("read", {"path": "raw/a.md", "offset": 400}) == "read raw/a.md from line 401"
    assert describe_call("list_pages", {"folder": "wiki/places", "type": "entity"}) == \
        "listed pages in wiki/places, type entity"
    assert describe_call("propose_move", {"path": "a.md", "new_path": "b.md"}) == "proposed moving a.md to b.md"
