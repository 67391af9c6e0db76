"""Applying changesets: per-hunk choices, merges and conflicts, bookkeeping, git, crash safety."""

from __future__ import annotations

import datetime as _dt
import os
import random
import shutil
import subprocess
import sys
import textwrap

import pytest

from tests.core.changes_util import git, git_init, make_vault, open_vault, page, read, tree_hashes
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder, FileConflict
from wikitui.core.changes.diffs import apply_hunks, compute_hunks
from wikitui.core.changes.journal import JOURNAL_NAME
from wikitui.core.changes.pending import PendingStore
from wikitui.core.changes.recovery import recover
from wikitui.core.base.errors import UnsafePath
from wikitui.core.vault.frontmatter_edit import roundtrip_frontmatter, set_frontmatter_keys

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")

LONG = "".join(f"Line {i} of the notes.\n" for i in range(1, 41))


def content_hashes(root):
    """Hashes of the vault's content (wikitui's own state folder aside)."""
    return {k: v for k, v in tree_hashes(root).items() if not k.startswith(".wikitui")}


@pytest.fixture
def vault_root(tmp_path):
    return make_vault(tmp_path / "v", {
        "notes.md": LONG,
        "concepts/Transformer.md": page("Transformer", "# Transformer\n\nBuilt on attention.\n", updated="2026-01-05"),
        "concepts/Attention.md": page("Attention", "# Attention\n\nSee [[Transformer]].\n"),
    })


def three_hunk_changeset(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("notes.md", [
        {"old": "Line 2 of", "new": "Line two of"},
        {"old": "Line 20 of", "new": "Line twenty of"},
        {"old": "Line 38 of", "new": "Line thirty-eight of"},
    ], "tidy")
    return vault, graph, b.build("edit", "Tidy notes", model="test/model", tokens=500, cost=0.01)


# ------------------------------------------------------------------ hunks
def test_apply_hunks_all_none_and_mixed():
    base = LONG
    new = base.replace("Line 2 of", "Line two of").replace("Line 20 of", "Line twenty of").replace("Line 38 of", "L38")
    hunks = compute_hunks(base, new, 0)
    assert [h.id for h in hunks] == ["f0h0", "f0h1", "f0h2"]
    assert apply_hunks(base, hunks, None) == new
    assert apply_hunks(base, hunks, {"f0h0", "f0h1", "f0h2"}) == new
    assert apply_hunks(base, hunks, set()) == base
    assert apply_hunks(base, hunks, {"f0h0", "f0h2"}) == base.replace("Line 2 of", "Line two of").replace("Line 38 of", "L38")
    assert apply_hunks(base, hunks, {"f0h1"}) == base.replace("Line 20 of", "Line twenty of")


def test_apply_hunks_handles_insertions_at_the_edges_and_missing_final_newline():
    base = "a\nb\nc"
    new = "top\na\nb\nc\nbottom"
    hunks = compute_hunks(base, new, 3)
    assert apply_hunks(base, hunks, None) == new
    assert apply_hunks(base, hunks, set()) == base


# ------------------------------------------------------------------ apply
def test_accepting_everything_writes_the_proposal_and_the_bookkeeping(vault_root):
    vault, graph = open_vault(vault_root)
    b = ChangesetBuilder(vault, graph)
    b.edit("concepts/Attention.md", [{"old": "See [[Transformer]].", "new": "See [[Transformer]] and [[BERT]]."}], "link")
    b.new_page("concepts/BERT.md", page("BERT", "# BERT\n\nAn encoder built on [[Attention]].\n"), "new")
    cs = b.build("ingest", "BERT paper", model="test/model", tokens=1234, cost=0.02)
    PendingStore(vault).save(cs)
    seen = []
    result = apply_changeset(vault, graph, cs, on_progress=lambda d, t: seen.append((d, t)))
    assert read(vault_root, "wiki/concepts/BERT.md") == cs.files[1].new_text
    assert "and [[BERT]]." in read(vault_root, "wiki/concepts/Attention.md")
    assert result.applied == cs.hunk_ids() and result.remaining is None
    assert sorted(result.written) == ["wiki/concepts/Attention.md", "wiki/concepts/BERT.md"]
    assert "[[BERT]] — BERT in one line" in read(vault_root, "wiki/index.md") and result.index_updated
    log = read(vault_root, "wiki/log.md")
    assert "] ingest | BERT paper" in log and cs.id in log and "test/model" in log and "1,234" in log
    assert result.log_entry in log
    assert "wiki/concepts/BERT.md" in graph.pages and graph.backlinks("wiki/concepts/BERT.md")
    assert seen == [(n, 5) for n in range(1, 6)]  # two pages, index.md, log.md, the commit: progress ends at total
    assert PendingStore(vault).list() == []  # fully decided: no longer pending
    assert not (vault.state_dir / JOURNAL_NAME).exists()


def test_accept_some_reject_others_gives_the_exact_text_and_keeps_the_undecided(vault_root):
    vault, graph, cs = three_hunk_changeset(vault_root)
    PendingStore(vault).save(cs)
    result = apply_changeset(vault, graph, cs, {"f0h0"}, rejected={"f0h2"})
    assert read(vault_root, "wiki/notes.md") == LONG.replace("Line 2 of", "Line two of")
    assert result.applied == ["f0h0"]
    rest = result.remaining
    assert rest is not None and rest.id == cs.id
    [fc] = rest.files
    assert [h.id for h in fc.hunks] == ["f0h0"] and "+Line twenty of the notes.\n" in fc.hunks[0].lines
    assert PendingStore(vault).load(cs.id) == rest  # the pending record now holds only the undecided hunk
    # Later, the remaining hunk still applies to the text the first apply wrote.
    again = apply_changeset(vault, graph, PendingStore(vault).load(cs.id))
    assert read(vault_root, "wiki/notes.md") == LONG.replace("Line 2 of", "Line two of").replace("Line 20 of", "Line twenty of")
    assert again.remaining is None and PendingStore(vault).list() == []
    log = read(vault_root, "wiki/log.md")
    assert log.count(cs.id) == 2 and "1 of 3: f0h0" in log and log.count("- tokens: 500") == 1


def test_a_remainder_left_on_a_page_edited_meanwhile_still_applies_later(vault_root):
    vault, graph, cs = three_hunk_changeset(vault_root)
    mine = LONG.replace("Line 30 of", "Line 30 (mine) of")
    (vault_root / "wiki/notes.md").write_text(mine, encoding="utf-8")
    first = apply_changeset(vault, graph, cs, {"f0h0"})
    assert first.merged == ["wiki/notes.md"] and first.remaining is not None
    assert [h.id for h in first.remaining.files[0].hunks] == ["f0h0", "f0h1"]
    apply_changeset(vault, graph, first.remaining)
    assert read(vault_root, "wiki/notes.md") == (
        mine.replace("Line 2 of", "Line two of").replace("Line 20 of", "Line twenty of")
        .replace("Line 38 of", "Line thirty-eight of")
    )


def test_a_moves_rename_and_its_content_are_separate_decisions(vault_root):
    vault, graph = open_vault(vault_root)
    b = ChangesetBuilder(vault, graph)
    b.edit("notes.md", [{"old": "Line 2 of", "new": "Line two of"}], "")
    b.move("notes.md", "archive/notes.md", "")
    cs = b.build("edit", "Archive notes")
    [fc] = cs.files
    assert [(h.id, h.kind) for h in fc.hunks] == [("f0h0", "rename"), ("f0h1", "text")]
    first = apply_changeset(vault, graph, cs, {"f0h1"})  # the content, not (yet) the rename
    assert read(vault_root, "wiki/notes.md") == LONG.replace("Line 2 of", "Line two of")
    [rest] = first.remaining.files
    assert (rest.action, rest.new_path, [h.kind for h in rest.hunks]) == ("move", "wiki/archive/notes.md", ["rename"])
    apply_changeset(vault, graph, first.remaining)
    assert not (vault_root / "wiki/notes.md").exists()
    assert read(vault_root, "wiki/archive/notes.md") == LONG.replace("Line 2 of", "Line two of")


def test_rejecting_everything_writes_no_page(vault_root):
    vault, graph, cs = three_hunk_changeset(vault_root)
    before = content_hashes(vault_root)
    result = apply_changeset(vault, graph, cs, set(), rejected=set(cs.hunk_ids()))
    assert result.applied == [] and result.remaining is None and result.log_entry is None
    assert content_hashes(vault_root) == before


def test_a_change_made_on_disk_elsewhere_in_the_page_is_merged(vault_root):
    vault, graph, cs = three_hunk_changeset(vault_root)
    path = vault_root / "wiki/notes.md"
    path.write_text(LONG.replace("Line 30 of", "Line 30 (edited by me) of"), encoding="utf-8")
    result = apply_changeset(vault, graph, cs)
    assert result.merged == ["wiki/notes.md"]
    assert read(vault_root, "wiki/notes.md") == (
        LONG.replace("Line 30 of", "Line 30 (edited by me) of").replace("Line 2 of", "Line two of")
        .replace("Line 20 of", "Line twenty of").replace("Line 38 of", "Line thirty-eight of")
    )


def test_a_change_made_on_disk_to_the_same_line_is_a_conflict_and_nothing_is_written(vault_root):
    vault, graph = open_vault(vault_root)
    b = ChangesetBuilder(vault, graph)
    b.new_page("concepts/BERT.md", "# BERT\n", "new")
    b.edit("notes.md", [{"old": "Line 20 of", "new": "Line twenty of"}], "tidy")
    cs = b.build("edit", "t")
    (vault_root / "wiki/notes.md").write_text(LONG.replace("Line 20 of", "Line 20 (mine) of"), encoding="utf-8")
    before = content_hashes(vault_root)
    with pytest.raises(FileConflict) as err:
        apply_changeset(vault, graph, cs)
    assert err.value.path == "wiki/notes.md" and err.value.exit_code == 4
    assert "Line 20 (mine) of" in err.value.region and "Line twenty of" in err.value.region
    assert content_hashes(vault_root) == before  # not even the new page of the same changeset


def test_deleted_on_disk_and_created_meanwhile_are_conflicts(vault_root):
    vault, graph, cs = three_hunk_changeset(vault_root)
    (vault_root / "wiki/notes.md").unlink()
    with pytest.raises(FileConflict, match="deleted on disk"):
        apply_changeset(vault, graph, cs)
    b = ChangesetBuilder(vault, graph)
    b.new_page("concepts/BERT.md", "# BERT\n", "new")
    cs2 = b.build("edit", "t")
    (vault_root / "wiki/concepts/BERT.md").write_text("# My own BERT page\n", encoding="utf-8")
    with pytest.raises(FileConflict, match="created on disk"):
        apply_changeset(vault, graph, cs2)
    assert read(vault_root, "wiki/concepts/BERT.md") == "# My own BERT page\n"


def test_updated_is_bumped_only_on_pages_that_have_it(vault_root):
    vault, graph = open_vault(vault_root)
    b = ChangesetBuilder(vault, graph)
    b.edit("concepts/Transformer.md", [{"old": "Built on attention.", "new": "Built on self-attention."}], "")
    b.edit("concepts/Attention.md", [{"old": "# Attention", "new": "# Attention (mechanism)"}], "")
    apply_changeset(vault, graph, b.build("edit", "t"))
    today = _dt.date.today().isoformat()
    transformer = read(vault_root, "wiki/concepts/Transformer.md")
    assert f"\nupdated: {today}\n" in transformer and "self-attention" in transformer
    assert "updated" not in read(vault_root, "wiki/concepts/Attention.md")


def test_a_crlf_page_with_a_bom_keeps_its_bytes_through_an_apply(tmp_path):
    raw = ("\ufeff---\r\ntitle: Win # a comment\r\nupdated: 2026-01-05\r\n---\r\n\r\n"
           "One.\r\nTwo.\r\nThree.\r\n").encode("utf-8")
    root = make_vault(tmp_path / "v", {"win.md": raw})
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("win.md", [{"old": "Two.\n", "new": "Two, revised.\nTwo and a half.\n"}], "")
    apply_changeset(vault, graph, b.build("edit", "t"))
    today = _dt.date.today().isoformat().encode()
    assert (root / "wiki/win.md").read_bytes() == (
        raw.replace(b"2026-01-05", today).replace(b"Two.\r\n", b"Two, revised.\r\nTwo and a half.\r\n")
    )


def test_a_rejected_target_page_is_reported_as_an_unresolved_link(vault_root):
    vault, graph = open_vault(vault_root)
    b = ChangesetBuilder(vault, graph)
    b.edit("concepts/Attention.md", [{"old": "See [[Transformer]].", "new": "See [[Transformer]] and [[BERT]]."}], "")
    b.new_page("concepts/BERT.md", "# BERT\n", "new")
    cs = b.build("edit", "t")
    result = apply_changeset(vault, graph, cs, {"f0h0"}, rejected={"f1h0"})
    assert [(p, link.target) for p, link in result.unresolved_links] == [("wiki/concepts/Attention.md", "BERT")]


def test_a_move_applies_with_its_link_rewrites(vault_root):
    vault, graph = open_vault(vault_root)
    (vault_root / "wiki/concepts/Attention.md").write_text("See [[Transformer]] and [[concepts/Transformer|it]].\n", encoding="utf-8")
    vault, graph = open_vault(vault_root)
    b = ChangesetBuilder(vault, graph)
    b.move("concepts/Transformer.md", "architectures/Transformer.md", "regroup")
    result = apply_changeset(vault, graph, b.build("edit", "Regroup"))
    assert not (vault_root / "wiki/concepts/Transformer.md").exists()
    assert "wiki/concepts/Transformer.md" in result.deleted
    assert read(vault_root, "wiki/concepts/Attention.md") == "See [[Transformer]] and [[architectures/Transformer|it]].\n"
    assert {bl.source for bl in graph.backlinks("wiki/architectures/Transformer.md")} >= {"wiki/concepts/Attention.md"}
    assert result.unresolved_links == []


def test_a_tampered_pending_changeset_cannot_write_outside_the_wiki(vault_root):
    vault, graph, cs = three_hunk_changeset(vault_root)
    cs.files[0].path = "raw/chapter-01.md"
    before = content_hashes(vault_root)
    with pytest.raises(UnsafePath):
        apply_changeset(vault, graph, cs)
    assert content_hashes(vault_root) == before


# -------------------------------------------------------------------- git
@needs_git
def test_a_git_vault_gets_one_commit_with_exactly_the_touched_files(vault_root):
    git_init(vault_root)
    (vault_root / "wiki/concepts/Attention.md").write_text("my unsaved work\n", encoding="utf-8")
    (vault_root / "scratch.md").write_text("staged by me\n", encoding="utf-8")
    git(vault_root, "add", "scratch.md")
    vault, graph, cs = three_hunk_changeset(vault_root)
    result = apply_changeset(vault, graph, cs)
    assert result.commit and git(vault_root, "rev-parse", "HEAD").strip() == result.commit
    message = git(vault_root, "log", "-1", "--format=%B")
    assert message.startswith("wikitui: edit | Tidy notes") and f"changeset: {cs.id}" in message
    files = git(vault_root, "show", "--name-only", "--format=", "HEAD").split()
    assert result.index_updated  # the first apply fills the catalog below the marker
    assert sorted(files) == ["wiki/index.md", "wiki/log.md", "wiki/notes.md"]
    status = git(vault_root, "status", "--porcelain")
    assert " M wiki/concepts/Attention.md" in status and "A  scratch.md" in status  # the user's changes stay theirs
    assert git(vault_root, "log", "--format=%an", "-1").strip() == "wikitui"  # no identity configured here
    assert cs.id in git(vault_root, "log", f"--grep={cs.id}", "--format=%B")
    # The log entry says the changeset was committed and how to find the commit.
    assert f"- commit: git log --grep {cs.id}" in result.log_entry
    assert result.log_entry in (vault_root / "wiki/log.md").read_text(encoding="utf-8")


# ------------------------------------------------------------ crash safety
CRASH_SCRIPT = textwrap.dedent("""
    import os, sys
    from wikitui.core.changes import journal
    from wikitui.core.changes.apply import apply_changeset
    from wikitui.core.changes.pending import PendingStore
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    root, cs_id, when = sys.argv[1], sys.argv[2], sys.argv[3]
    vault = Vault.open(root)
    graph = LinkGraph.load(vault, use_cache=False, save_cache=False)
    cs = PendingStore(vault).load(cs_id)
    if when == "mid-write":
        from wikitui.core.changes import replace
        real, count = replace.put_in, [0]
        def crashing(*args):
            count[0] += 1
            if count[0] == 3:
                os._exit(9)  # the power goes out after two files
            return real(*args)
        replace.put_in = crashing
    else:
        real_mark = journal.Journal.mark_written
        def crash_after(self, commit):
            real_mark(self, commit)
            os._exit(9)  # every file written, the commit not yet made
        journal.Journal.mark_written = crash_after
    apply_changeset(vault, graph, cs)
""")


def crash_apply(root, cs_id, when):
    proc = subprocess.run([sys.executable, "-c", CRASH_SCRIPT, str(root), cs_id, when], capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr


def test_a_crash_mid_apply_is_rolled_back_at_the_next_start(vault_root):
    vault, graph = open_vault(vault_root)
    b = ChangesetBuilder(vault, graph)
    for name in ("notes.md", "concepts/Transformer.md", "concepts/Attention.md"):
        b.new_page(name, f"# Rewritten {name}\n", "rewrite")
    cs = b.build("edit", "Rewrite three")
    PendingStore(vault).save(cs)
    before = content_hashes(vault_root)
    crash_apply(vault_root, cs.id, "mid-write")
    assert (vault.state_dir / JOURNAL_NAME).exists()
    assert content_hashes(vault_root) != before  # the crash really left two pages half-applied
    report = recover(vault)
    assert report.action == "rolled back" and len(report.restored) == 2
    assert content_hashes(vault_root) == before
    assert not (vault.state_dir / JOURNAL_NAME).exists()
    assert PendingStore(vault).load(cs.id) == cs  # still pending, to review again
    assert recover(vault) is None


@needs_git
def test_a_crash_after_the_writes_is_completed_with_its_commit(vault_root):
    git_init(vault_root)
    vault, graph, cs = three_hunk_changeset(vault_root)
    PendingStore(vault).save(cs)
    crash_apply(vault_root, cs.id, "after-writes")
    assert cs.id not in git(vault_root, "log", "--format=%B")
    report = recover(vault)
    assert report.action == "completed"
    assert f"changeset: {cs.id}" in git(vault_root, "log", "-1", "--format=%B")
    assert git(vault_root, "status", "--porcelain", "--", "wiki") == ""
    assert PendingStore(vault).list() == []
    assert "Line two of" in read(vault_root, "wiki/notes.md")


# --------------------------------------------------------------- frontmatter_edit
def test_one_key_edit_changes_one_line_and_keeps_comments_and_order():
    text = textwrap.dedent("""\
        ---
        title: 'Quoted title'   # keep me
        tags:
          - one
          - two
        zip: 01234
        updated: 2026-01-02
        aliases: [A, "B"]
        ---
        # Body
        """)
    out = set_frontmatter_keys(text, {"updated": _dt.date(2026, 11, 30)})
    changed = [(a, b) for a, b in zip(text.splitlines(), out.splitlines()) if a != b]
    assert changed == [("updated: 2026-01-02", "updated: 2026-11-30")]
    assert len(out.splitlines()) == len(text.splitlines())
    crlf = "\ufeff" + text.replace("\n", "\r\n")
    assert set_frontmatter_keys(crlf, {"updated": _dt.date(2026, 11, 30)}) == "\ufeff" + out.replace("\n", "\r\n")


@pytest.mark.corpus
def test_frontmatter_round_trip_changes_no_byte_on_real_pages(corpus_copy):
    root = corpus_copy("vault-small")
    files = sorted(p for p in (root / "wiki").rglob("*.md"))
    with_fm = [p for p in files if p.read_bytes().lstrip(b"\xef\xbb\xbf").startswith(b"---")]
    sample = random.Random(7).sample(with_fm, min(200, len(with_fm)))
    assert len(sample) >= 100
    changed = [p for p in sample if roundtrip_frontmatter(p.read_bytes().decode("utf-8")) != p.read_bytes().decode("utf-8")]
    assert changed == []
    # A one-key edit changes exactly one line on the same pages.
    for p in sample[:50]:
        text = p.read_bytes().decode("utf-8")
        out = set_frontmatter_keys(text, {"updated": _dt.date(2031, 1, 1)})
        diff = [ln for ln in zip(text.splitlines(), out.splitlines()) if ln[0] != ln[1]]
        assert len(diff) <= 1 and len(out.splitlines()) - len(text.splitlines()) in (0, 1), p
