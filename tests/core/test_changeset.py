"""Proposing changes: the builder's checks, composed edits, moves that rewrite links, patches git accepts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tests.core.changes_util import INDEX_HEAD, git, make_vault, open_vault, page, read, tree_hashes
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import Changeset, ChangesetBuilder, ProposalError
from wikitui.core.changes.diffs import apply_hunks
from wikitui.core.changes.pending import PendingStore

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")

TRANSFORMER = page("Transformer", "# Transformer\n\nA neural architecture built on [[Self-Attention]].\n\nIt was introduced in 2017.\n")


@pytest.fixture
def small(tmp_path):
    root = make_vault(tmp_path / "v", {
        "concepts/Transformer.md": TRANSFORMER,
        "concepts/Self-Attention.md": page("Self-Attention", "# Self-Attention\n\nUsed by the [[Transformer]].\n"),
        "concepts/bert-model.md": page("BERT", "# BERT\n\nAn encoder.\n"),
        "notes/reading.md": page("Reading", "Read [[bert-model]], [[concepts/bert-model#Training|training]] and "
                                 "![[bert-model]]; see also [[BERT]] and [the model](../concepts/bert-model.md#intro).\n"),
    })
    return root


def test_edit_records_the_replacement_and_writes_nothing(small):
    vault, graph = open_vault(small)
    before = tree_hashes(small)
    b = ChangesetBuilder(vault, graph)
    msg = b.edit("concepts/Transformer.md", [{"old": "introduced in 2017", "new": "introduced in 2017 by Vaswani et al."}], "cite")
    assert "wiki/concepts/Transformer.md" in msg
    cs = b.build("edit", "Cite the paper", model="m", tokens=10, cost=0.5)
    assert tree_hashes(small) == before  # a proposal writes nothing
    [fc] = cs.files
    assert (fc.path, fc.action, fc.reason) == ("wiki/concepts/Transformer.md", "edit", "cite")
    assert fc.base_text == TRANSFORMER
    assert fc.new_text == TRANSFORMER.replace("in 2017.", "in 2017 by Vaswani et al..")
    [h] = fc.hunks
    assert (h.id, h.added, h.removed) == ("f0h0", 1, 1)
    assert h.header.startswith("@@ -") and "-It was introduced in 2017.\n" in h.lines
    assert cs.id.startswith("cs-") and cs.stats() == (1, 1, 1)


def test_edits_to_one_page_compose_within_a_turn(small):
    vault, graph = open_vault(small)
    b = ChangesetBuilder(vault, graph)
    b.edit("wiki/concepts/Transformer.md", [{"old": "2017", "new": "June 2017"}], "date")
    b.edit("concepts/Transformer.md", [{"old": "June 2017", "new": "June 2017 (NeurIPS)"}, {"old": "# Transformer\n", "new": "# The Transformer\n"}], "more")
    [fc] = b.build("edit", "t").files
    assert "# The Transformer\n" in fc.new_text and "June 2017 (NeurIPS)." in fc.new_text
    assert fc.reason == "date; more"


def test_missing_old_changes_nothing_and_quotes_what_is_there(small):
    vault, graph = open_vault(small)
    b = ChangesetBuilder(vault, graph)
    with pytest.raises(ProposalError) as err:
        b.edit("concepts/Transformer.md", [
            {"old": "introduced in 2017", "new": "introduced in 2018"},
            {"old": "A neural  architecture built", "new": "x"},  # doubled space: a copying slip
        ], "r")
    text = str(err.value)
    assert "edit 2 of 2" in text and "line 9" in text and "A neural architecture built on" in text
    assert "no edit was applied" in text
    assert b.build("edit", "t") is None  # the first edit of the call was not kept either


def test_ambiguous_old_says_how_many_and_asks_for_context(tmp_path):
    root = make_vault(tmp_path / "v", {"a.md": "alpha\nbeta\nalpha\n"})
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    with pytest.raises(ProposalError, match=r"occurs 2 times \(at lines 1, 3\).*more of the surrounding text"):
        b.edit("a.md", [{"old": "alpha", "new": "gamma"}], "")
    b.edit("a.md", [{"old": "beta\nalpha", "new": "beta\ngamma"}], "")
    assert b.build("edit", "t").files[0].new_text == "alpha\nbeta\ngamma\n"


@pytest.mark.parametrize("path", [
    "../x.md", "/etc/passwd", "raw/chapter-01.md", "wiki/log.md", "log.md", ".wikitui/x.md",
    "wiki/.hidden.md", "concepts/notes.txt", "wiki/escape/secret.md", "wiki/escape", "wiki/link.md",
])
def test_hostile_paths_are_refused_and_nothing_is_written_anywhere(small, tmp_path, path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret\n", encoding="utf-8")
    os.symlink(outside, small / "wiki" / "escape")
    os.symlink(outside / "secret.md", small / "wiki" / "link.md")
    vault, graph = open_vault(small)
    before, outside_before = tree_hashes(small), tree_hashes(outside)
    b = ChangesetBuilder(vault, graph)
    calls = [
        lambda: b.edit(path, [{"old": "secret", "new": "x"}], ""),
        lambda: b.new_page(path, "# pwned\n", ""),
        lambda: b.delete(path, ""),
        lambda: b.move("concepts/Transformer.md", path, ""),
    ]
    for call in calls:
        with pytest.raises(ProposalError):
            call()
    assert b.build("edit", "t") is None
    assert tree_hashes(small) == before and tree_hashes(outside) == outside_before


def test_a_page_with_bytes_that_are_not_utf8_keeps_them_outside_the_edit(small):
    # DESIGN §8 "Bytes are kept": invalid bytes outside the changed region survive; the review shows U+FFFD.
    (small / "wiki" / "latin.md").write_bytes("caf\xe9 au lait\nsecond line\n".encode("latin-1"))
    vault, graph = open_vault(small)
    b = ChangesetBuilder(vault, graph)
    b.edit("latin.md", [{"old": "second line", "new": "2nd line"}], "")
    cs = b.build("edit", "t")
    assert cs.files[0].hunks[0].display_lines[0] == " caf\ufffd au lait"
    again = Changeset.from_dict(json.loads(PendingStore(vault).encode(cs)))
    assert again == cs
    apply_changeset(vault, graph, again)
    assert (small / "wiki" / "latin.md").read_bytes() == "caf\xe9 au lait\n2nd line\n".encode("latin-1")


def test_the_schema_is_writable_but_not_deletable(small):
    vault, graph = open_vault(small)
    b = ChangesetBuilder(vault, graph)
    b.edit("WIKI.md", [{"old": "Conventions.", "new": "Conventions: one concept per page."}], "")
    with pytest.raises(ProposalError, match="schema"):
        b.delete("WIKI.md", "")
    assert b.build("edit", "t").files[0].path == "WIKI.md"


def test_index_is_editable_above_the_marker_only(small):
    vault, graph = open_vault(small)
    b = ChangesetBuilder(vault, graph)
    b.edit("index.md", [{"old": "My notes about this wiki.", "new": "Notes on deep learning."}], "intro")
    with pytest.raises(ProposalError, match="generated by wikitui"):
        b.edit("index.md", [{"old": "<!-- wikitui:index -->\n", "new": "<!-- wikitui:index -->\n- [[Mine]]\n"}], "")
    with pytest.raises(ProposalError, match="generated by wikitui"):
        b.new_page("index.md", "# Index\n\nAll mine now.\n", "")
    with pytest.raises(ProposalError):
        b.delete("index.md", "")
    [fc] = b.build("edit", "t").files
    assert fc.new_text == INDEX_HEAD.replace("My notes about this wiki.", "Notes on deep learning.")


def test_index_without_marker_belongs_to_whoever_edits_it(tmp_path):
    root = make_vault(tmp_path / "v", {}, index="# Index\n\n- [[A]]\n")
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("index.md", [{"old": "- [[A]]\n", "new": "- [[A]]\n- [[B]]\n"}], "")
    assert b.build("edit", "t").files[0].new_text.endswith("- [[B]]\n")


def test_crlf_and_bom_pages_keep_every_other_byte(tmp_path):
    raw = "\ufeff---\r\ntitle: Windows\r\n---\r\n\r\nFirst line.\r\nSecond line.\r\nThird line.\r\n".encode("utf-8")
    root = make_vault(tmp_path / "v", {"win.md": raw})
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("win.md", [{"old": "First line.\nSecond line.", "new": "First line.\nA new second line.\nAnd another."}], "")
    fc = b.build("edit", "t").files[0]
    expected = raw.replace(b"Second line.\r\n", b"A new second line.\r\nAnd another.\r\n")
    assert fc.new_text.encode("utf-8") == expected
    assert fc.base_text.encode("utf-8") == raw  # base text is the exact bytes on disk
    b2 = ChangesetBuilder(vault, graph)
    b2.new_page("win.md", "# Rewritten\n\nAll new.\n", "")
    assert b2.build("edit", "t").files[0].new_text.encode("utf-8") == "\ufeff# Rewritten\r\n\r\nAll new.\r\n".encode("utf-8")


def test_move_rewrites_inbound_stem_and_path_links_keeping_label_anchor_and_embed(small):
    vault, graph = open_vault(small)
    b = ChangesetBuilder(vault, graph)
    msg = b.move("concepts/bert-model.md", "models/bert.md", "tidy")
    assert "4 links in 1 page" in msg
    cs = b.build("edit", "Move BERT")
    by_path = {fc.path: fc for fc in cs.files}
    move = by_path["wiki/concepts/bert-model.md"]
    assert (move.action, move.new_path) == ("move", "wiki/models/bert.md")
    assert move.hunks[0].kind == "rename" and move.hunks[0].id == "f0h0"
    reading = by_path["wiki/notes/reading.md"].new_text
    assert ("Read [[bert]], [[models/bert#Training|training]] and ![[bert]]; see also [[BERT]] and "
            "[the model](../models/bert.md#intro).") in reading  # [[BERT]] is the title: it still resolves


def test_move_uses_a_path_when_the_new_stem_is_taken(small):
    (small / "wiki" / "other").mkdir()
    (small / "wiki" / "other" / "Transformer.md").write_text("# Another transformer\n", encoding="utf-8")
    vault, graph = open_vault(small)
    b = ChangesetBuilder(vault, graph)
    b.move("concepts/bert-model.md", "zoo/deep/Transformer.md", "")
    reading = next(fc for fc in b.build("edit", "t").files if fc.path.endswith("reading.md")).new_text
    assert "Read [[zoo/deep/Transformer]]" in reading


def test_move_target_that_exists_is_refused(small):
    vault, graph = open_vault(small)
    b = ChangesetBuilder(vault, graph)
    with pytest.raises(ProposalError, match="already exists"):
        b.move("concepts/bert-model.md", "concepts/Transformer.md", "")


def test_drafts_show_what_the_turn_would_write_without_building_it(small):
    vault, graph = open_vault(small)
    b = ChangesetBuilder(vault, graph)
    b.edit("concepts/Transformer.md", [{"old": "2017", "new": "June 2017"}], "date")
    b.new_page("concepts/Attention.md", page("Attention", "# Attention\n"), "new")
    b.move("concepts/bert-model.md", "concepts/BERT.md", "rename")
    b.delete("concepts/Self-Attention.md", "gone")
    drafts = {d.path: d for d in b.drafts()}
    assert "wiki/concepts/Self-Attention.md" not in drafts  # a deletion writes nothing
    edit, new, moved = (drafts["wiki/concepts/Transformer.md"], drafts["wiki/concepts/Attention.md"],
                        drafts["wiki/concepts/BERT.md"])
    assert (edit.before, edit.created) == (TRANSFORMER, False) and "June 2017" in edit.after
    assert (new.before, new.created) == ("", True)
    assert moved.created and moved.before == read(small, "wiki/concepts/bert-model.md")
    assert "[[BERT" in drafts["wiki/notes/reading.md"].after  # the pages whose links the move rewrote


def test_new_page_then_delete_withdraws_it(small):
    vault, graph = open_vault(small)
    b = ChangesetBuilder(vault, graph)
    b.new_page("concepts/GPT.md", "# GPT", "new")
    assert b.proposed_text("concepts/GPT.md") == "# GPT\n"
    assert "withdrew" in b.delete("concepts/GPT.md", "")
    assert b.build("edit", "t") is None


def test_delete_names_pages_that_will_have_broken_links(small):
    vault, graph = open_vault(small)
    b = ChangesetBuilder(vault, graph)
    msg = b.delete("concepts/Self-Attention.md", "merged")
    assert "wiki/concepts/Transformer.md" in msg
    [fc] = b.build("edit", "t").files
    assert fc.action == "delete" and fc.new_text == "" and len(fc.hunks) == 1
    assert apply_hunks(fc.base_text, fc.hunks, None) == ""


def test_changeset_round_trips_through_json(small):
    vault, graph = open_vault(small)
    b = ChangesetBuilder(vault, graph)
    b.edit("concepts/Transformer.md", [{"old": "2017", "new": "2018"}], "r")
    b.move("concepts/bert-model.md", "models/bert.md", "m")
    b.new_page("concepts/GPT.md", "# GPT\n", "n")
    cs = b.build("ingest", "Paper", model="openai/x", tokens={"in": 10, "out": 2}, cost=0.01)
    again = Changeset.from_dict(json.loads(json.dumps(cs.to_dict())))
    assert again == cs and again.to_patch() == cs.to_patch()


@needs_git
def test_patch_passes_git_apply_and_reproduces_every_new_text(tmp_path):
    crlf = "\ufeffalpha\r\nbeta\r\ngamma\r\n"
    root = make_vault(tmp_path / "v", {
        "a.md": "".join(f"line {i}\n" for i in range(1, 30)),
        "win.md": crlf.encode("utf-8"),
        "tail.md": "no newline at the end",
        "old name.md": "# Old\n\nSee [[a]].\n",
        "gone.md": "bye\n",
        "links.md": "[[old name]] and [[a]]\n",
    })
    git(root, "init", "-q")
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("a.md", [{"old": "line 3\n", "new": "line three\n"}, {"old": "line 25\n", "new": ""}], "")
    b.edit("win.md", [{"old": "beta", "new": "BETA"}], "")
    b.edit("tail.md", [{"old": "the end", "new": "the end, still"}], "")
    b.new_page("café é/new page.md", "# New\n", "")
    b.move("old name.md", "dir/new name.md", "")
    b.delete("gone.md", "")
    cs = b.build("edit", "t")
    patch = cs.to_patch()
    (tmp_path / "cs.patch").write_bytes(patch.encode("utf-8"))
    check = subprocess.run(["git", "apply", "--check", str(tmp_path / "cs.patch")], cwd=root, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr + patch
    git(root, "apply", str(tmp_path / "cs.patch"))
    for fc in cs.files:
        if fc.action == "delete":
            assert not (root / fc.path).exists()
        else:
            assert read(root, fc.final_path) == fc.new_text, fc.path
    assert read(root, "wiki/links.md") == "[[new name]] and [[a]]\n"


def test_sample_vault_move_keeps_every_link_resolving(sample_vault):
    if not (sample_vault / "wiki" / "characters").is_dir():
        pytest.skip("sample/wiki is not there yet")
    vault, graph = open_vault(sample_vault)
    target = max(graph.pages, key=lambda p: len(graph.backlinks(p)) if p.startswith("wiki/characters/") else -1)
    sources = {bl.source for bl in graph.backlinks(target)} - {vault.log_path, vault.index_path}
    assert len(sources) >= 3
    b = ChangesetBuilder(vault, graph)
    b.move(target, "wiki/people/" + target.rsplit("/", 1)[1], "regroup")
    cs = b.build("edit", "Regroup")
    texts = {fc.final_path: fc.new_text for fc in cs.files}
    # Write the proposal into a scratch copy and check each former backlink still reaches the page.
    for fc in cs.files:
        if fc.action == "move":
            (sample_vault / fc.path).unlink()
        dest = sample_vault / fc.final_path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(texts[fc.final_path].encode("utf-8"))
    _vault2, graph2 = open_vault(sample_vault)
    moved = "wiki/people/" + target.rsplit("/", 1)[1]
    assert sources <= {bl.source for bl in graph2.backlinks(moved)}
