"""``wikitui sync``: two machines (or two people) keep one wiki through a git remote (issue 26, DESIGN §14).

Real git, no network: the remote is a bare repository on disk, and each side is a
clone with its own author. Changes are made the way wikitui makes them (a
changeset applied: the page, its log.md entry, index.md, one commit).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.cli_run import run_wikitui
from tests.core.changes_util import git, make_vault, open_vault, page, read
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.sync.combine import Combined, Conflict, combine, union_log

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")

LONG = "".join(f"Line {i} of the notes.\n" for i in range(1, 31))


def clone(remote, dest, name):
    subprocess.run(["git", "clone", "-q", str(remote), str(dest)], check=True, capture_output=True)
    git(dest, "config", "user.name", name)
    git(dest, "config", "user.email", f"{name.lower()}@example.com")
    return dest


@pytest.fixture
def sides(tmp_path):
    """A bare remote holding a small wiki, and two clones of it: Alice's and Bob's."""
    seed = make_vault(tmp_path / "seed", {
        "notes.md": page("Notes", "# Notes\n\n" + LONG),
        "concepts/Attention.md": page("Attention", "# Attention\n\nSee [[Notes]].\n"),
    })
    git(seed, "init", "-q", "-b", "main")
    (seed / ".gitignore").write_text(".wikitui/\n", encoding="utf-8")
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=Seed", "-c", "user.email=seed@example.com", "commit", "-q", "-m", "initial")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(seed), str(remote)], check=True, capture_output=True)
    return remote, clone(remote, tmp_path / "alice", "Alice"), clone(remote, tmp_path / "bob", "Bob")


def apply_edit(root, rel, old, new, title):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit(rel, [{"old": old, "new": new}], "test")
    return apply_changeset(vault, graph, b.build("edit", title, model="test/model"))


def apply_new(root, rel, title, body):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.new_page(rel, page(title, body), "test")
    return apply_changeset(vault, graph, b.build("ingest", title, model="test/model"))


def sync(root, *extra):
    proc = run_wikitui(["sync", "--json", *extra], cwd=root)
    return proc.returncode, (json.loads(proc.stdout) if proc.stdout.strip() else None), proc.stderr


def remote_head(remote):
    return git(remote, "rev-parse", "main").strip()


def log_titles(root):
    return re.findall(r"^## \[\d{4}-\d{2}-\d{2}\] \S+ \| (.*)$", read(root, "wiki/log.md"), re.MULTILINE)


# ------------------------------------------------------------------ both sides' work, merged
def test_edits_to_different_pages_on_two_machines_end_up_on_both(sides):
    remote, alice, bob = sides
    apply_new(alice, "wiki/concepts/Transformer.md", "Transformer", "# Transformer\n\nBuilt on [[Attention]].\n")
    apply_edit(bob, "wiki/concepts/Attention.md", "See [[Notes]].", "See [[Notes]] and the 2017 paper.", "Attention date")
    apply_new(bob, "wiki/concepts/Softmax.md", "Softmax", "# Softmax\n\nUsed by [[Attention]].\n")

    code, out, err = sync(alice)
    assert code == 0, err
    assert out["pushed"] and out["incoming"] == []
    code, out, err = sync(bob)  # Bob brings Alice's page in, merges, and pushes both
    assert code == 0, err
    assert out["incoming"] and {c["author"] for c in out["incoming"]} == {"Alice"}
    assert "wiki/concepts/Transformer.md" in out["written"]
    assert out["pushed"] and out["index_regenerated"]
    code, out, err = sync(alice)  # Alice gets Bob's work (and the merge) as a fast-forward
    assert code == 0, err
    assert {"wiki/concepts/Softmax.md", "wiki/concepts/Attention.md"} <= set(out["written"])

    for root in (alice, bob):
        assert (root / "wiki/concepts/Transformer.md").exists() and (root / "wiki/concepts/Softmax.md").exists()
        assert "the 2017 paper" in read(root, "wiki/concepts/Attention.md")
        index = read(root, "wiki/index.md")
        assert "[[Transformer]]" in index and "[[Softmax]]" in index  # regenerated, never merged
        assert "<<<<<<<" not in index
        assert set(log_titles(root)) >= {"Transformer", "Attention date", "Softmax"}  # both sides' entries
        assert git(root, "status", "--porcelain") == ""
        assert ".wikitui" not in git(root, "ls-files")  # wikitui's own state never travels
    assert read(alice, "wiki/log.md") == read(bob, "wiki/log.md")
    authors = git(bob, "log", "--format=%an").split()
    assert "Alice" in authors and "Bob" in authors  # each side's commits, each with its author
    assert remote_head(remote) == git(alice, "rev-parse", "HEAD").strip() == git(bob, "rev-parse", "HEAD").strip()


def test_log_entries_from_both_sides_are_kept_in_date_order():
    base = "# Log\n\n## [2026-11-01] ingest | Old\n- pages: [[a]]\n\n"
    ours = base + "## [2026-11-03] edit | Ours later\n- pages: [[b]]\n\n"
    theirs = base + "## [2026-11-02] edit | Theirs earlier\n- pages: [[c]]\n\n## [2026-11-04] edit | Theirs last\n"
    merged = union_log(base, ours, theirs)
    assert re.findall(r"\| (.*)", merged) == ["Old", "Theirs earlier", "Ours later", "Theirs last"]
    assert merged.startswith("# Log\n")


_day = st.dates().map(lambda d: d.isoformat())
_entry = st.tuples(_day, st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12))


@given(st.lists(_entry, max_size=4), st.lists(_entry, max_size=4), st.lists(_entry, max_size=4))
def test_the_log_union_keeps_every_entry_once_and_orders_the_new_ones_by_date(old, mine, yours):
    def text(entries):
        return "# Log\n\n" + "".join(f"## [{d}] edit | {t.strip() or 'x'} {i}\n" for i, (d, t) in entries)

    base_e = [(f"b{i}", e) for i, e in enumerate(old)]
    base = text([(i, e) for i, e in base_e])
    ours = text([(i, e) for i, e in base_e] + [(f"o{i}", e) for i, e in enumerate(mine)])
    theirs = text([(i, e) for i, e in base_e] + [(f"t{i}", e) for i, e in enumerate(yours)])
    merged = union_log(base, ours, theirs)
    lines = [ln for ln in merged.splitlines() if ln.startswith("## [")]
    expected = {ln for ln in (ours + theirs).splitlines() if ln.startswith("## [")}
    assert set(lines) == expected and len(lines) == len(expected)
    new = [ln for ln in lines if ln not in base.splitlines()]
    assert [ln[4:14] for ln in new] == sorted(ln[4:14] for ln in new)


def test_one_page_edited_on_both_sides_in_different_places_is_merged(sides):
    _remote, alice, bob = sides
    apply_edit(alice, "wiki/notes.md", "Line 3 of", "Line three of", "Alice's fix")
    apply_edit(bob, "wiki/notes.md", "Line 25 of", "Line twenty-five of", "Bob's fix")
    assert sync(alice)[0] == 0
    code, out, err = sync(bob)
    assert code == 0, err
    text = read(bob, "wiki/notes.md")
    assert "Line three of" in text and "Line twenty-five of" in text and "<<<<<<<" not in text
    assert sync(alice)[0] == 0
    assert read(alice, "wiki/notes.md") == text


def test_the_same_place_edited_on_both_sides_waits_for_the_person_and_nothing_is_pushed(sides):
    remote, alice, bob = sides
    apply_edit(alice, "wiki/notes.md", "Line 3 of", "Line three of", "Alice's fix")
    apply_edit(bob, "wiki/notes.md", "Line 3 of", "Line 3 (third) of", "Bob's fix")
    assert sync(alice)[0] == 0
    pushed_by_alice = remote_head(remote)
    bob_head, bob_text = git(bob, "rev-parse", "HEAD"), read(bob, "wiki/notes.md")

    code, out, _err = sync(bob)
    assert code == 4
    assert [c["path"] for c in out["conflicts"]] == ["wiki/notes.md"]
    assert "Line three of" in out["conflicts"][0]["regions"][0]  # what each side wrote, shown
    assert read(bob, "wiki/notes.md") == bob_text and "<<<<<<<" not in bob_text  # never conflict markers
    assert git(bob, "rev-parse", "HEAD") == bob_head and not out["pushed"]
    assert remote_head(remote) == pushed_by_alice  # nothing pushed until it is resolved

    proc = run_wikitui(["sync", "--take", "theirs", "wiki/notes.md"], cwd=bob)  # take Alice's line
    assert proc.returncode == 0, proc.stderr
    assert "Line three of" in read(bob, "wiki/notes.md") and "Line 3 (third)" not in read(bob, "wiki/notes.md")
    assert remote_head(remote) == git(bob, "rev-parse", "HEAD").strip()  # pushed once resolved
    assert set(log_titles(bob)) >= {"Alice's fix", "Bob's fix"}


def test_a_conflict_resolved_by_editing_the_page_keeps_the_persons_text(sides):
    _remote, alice, bob = sides
    apply_edit(alice, "wiki/notes.md", "Line 3 of", "Line three of", "Alice's fix")
    apply_edit(bob, "wiki/notes.md", "Line 3 of", "Line 3 (third) of", "Bob's fix")
    assert sync(alice)[0] == 0
    assert sync(bob)[0] == 4
    both = read(bob, "wiki/notes.md").replace("Line 3 (third) of", "Line three (third) of")
    (bob / "wiki/notes.md").write_text(both, encoding="utf-8")  # the person writes the resolution by hand
    proc = run_wikitui(["sync", "--take", "file", "wiki/notes.md"], cwd=bob)
    assert proc.returncode == 0, proc.stderr
    assert "Line three (third) of" in read(bob, "wiki/notes.md")
    assert git(bob, "status", "--porcelain") == ""
    assert "Line three (third) of" in git(bob, "show", "HEAD:wiki/notes.md")


def test_a_persons_uncommitted_edit_is_committed_apart_first_then_merged(sides):
    _remote, alice, bob = sides
    apply_edit(alice, "wiki/notes.md", "Line 3 of", "Line three of", "Alice's fix")
    assert sync(alice)[0] == 0
    text = read(bob, "wiki/notes.md").replace("Line 28 of", "Line 28 (typed by Bob) of")
    (bob / "wiki/notes.md").write_text(text, encoding="utf-8")  # not committed
    code, out, err = sync(bob)
    assert code == 0, err
    merged = read(bob, "wiki/notes.md")
    assert "Line three of" in merged and "Line 28 (typed by Bob) of" in merged
    assert "wikitui: your edits before sync" in git(bob, "log", "--format=%s")
    assert any("committed first" in n for n in out["notes"])


def test_a_plain_git_pull_keeps_both_sides_log_entries(sides):
    _remote, alice, bob = sides
    assert sync(alice)[0] == 0  # the first sync writes (and pushes) the union rule
    assert "wiki/log.md merge=union" in read(alice, ".gitattributes")
    assert sync(bob)[0] == 0
    apply_edit(alice, "wiki/notes.md", "Line 3 of", "Line three of", "Alice's fix")
    apply_edit(bob, "wiki/concepts/Attention.md", "See [[Notes]].", "See [[Notes]] too.", "Bob's fix")
    assert sync(alice)[0] == 0
    proc = subprocess.run(["git", "pull", "-q", "--no-rebase", "--no-edit"], cwd=bob, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    log = read(bob, "wiki/log.md")
    assert "Alice's fix" in log and "Bob's fix" in log and "<<<<<<<" not in log


def test_sync_with_no_upstream_says_how_to_add_one(tmp_path):
    root = make_vault(tmp_path / "v", {"A.md": page("A", "# A\n")})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial")
    proc = run_wikitui(["sync"], cwd=root)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "git remote add origin" in proc.stderr


def test_an_unreachable_remote_is_one_line_and_exit_3(sides, tmp_path):
    remote, alice, _bob = sides
    shutil.move(str(remote), str(tmp_path / "gone.git"))  # the shared disk is not mounted today
    before = git(alice, "rev-parse", "HEAD")
    proc = run_wikitui(["sync"], cwd=alice)
    assert proc.returncode == 3 and proc.stderr.count("\n") == 1 and "could not fetch" in proc.stderr
    assert git(alice, "rev-parse", "HEAD") == before


# ------------------------------------------------------------------ combine, path by path
@pytest.mark.parametrize("base, ours, theirs, expect", [
    (b"a\n", b"a\n", b"b\n", b"b\n"),           # only theirs changed
    (b"a\n", b"b\n", b"a\n", b"b\n"),           # only ours
    (b"a\n", None, b"a\n", None),               # deleted here, untouched there
    (b"a\n", b"a\n", None, None),               # deleted upstream
    (None, b"x\n", b"x\n", b"x\n"),             # created on both sides alike
])
def test_combine_takes_the_side_that_changed(base, ours, theirs, expect):
    assert combine("wiki/p.md", base, ours, theirs, log_path="wiki/log.md") == Combined(expect)


@pytest.mark.parametrize("base, ours, theirs, why", [
    (b"a\n", None, b"b\n", "deleted here"),
    (b"a\n", b"b\n", None, "deleted upstream"),
    (None, b"x\n", b"y\n", "created on both sides"),
    (b"a\n", b"\x00b", b"\x00c", "binary"),
    (b"a\n", b"b\n", b"c\n", "same place"),
])
def test_combine_names_what_does_not_combine(base, ours, theirs, why):
    outcome = combine("wiki/p.md", base, ours, theirs, log_path="wiki/log.md")
    assert isinstance(outcome, Conflict) and why in outcome.why


def test_index_md_above_its_marker_is_merged_and_below_it_left_for_regeneration():
    head = "# Index\n\nIntro.\n\n<!-- wikitui:index -->\n"
    base = head + "- [[A]]\n"
    ours = head.replace("Intro.", "Intro, edited here.") + "- [[A]]\n- [[B]]\n"
    theirs = head + "- [[A]]\n- [[C]]\n"  # both catalogs grew in the same place: no conflict, it is regenerated
    outcome = combine("wiki/index.md", base.encode(), ours.encode(), theirs.encode(), log_path="wiki/log.md",
                      index_path="wiki/index.md")
    assert isinstance(outcome, Combined) and outcome.data is not None
    assert outcome.data.decode().startswith("# Index\n\nIntro, edited here.\n")


def test_a_page_a_teammate_locked_stays_locked_for_everyones_agent(sides):
    from wikitui.core.changes.model import ProposalError

    _remote, alice, bob = sides
    locked = read(alice, "wiki/notes.md").replace("summary: Notes in one line\n", "summary: Notes in one line\nllm: locked\n")
    (alice / "wiki/notes.md").write_text(locked, encoding="utf-8")
    git(alice, "commit", "-qam", "lock my notes")  # Alice's own commit, by hand
    assert sync(alice)[0] == 0
    assert sync(bob)[0] == 0
    assert "llm: locked" in read(bob, "wiki/notes.md")
    vault, graph = open_vault(bob)
    with pytest.raises(ProposalError, match="locked"):
        ChangesetBuilder(vault, graph).edit("wiki/notes.md", [{"old": "Line 3 of", "new": "Line three of"}], "x")


def test_each_sides_log_entries_name_their_author_after_a_sync(sides):
    _remote, alice, bob = sides
    apply_edit(alice, "wiki/notes.md", "Line 3 of", "Line three of", "Alice's fix")
    apply_edit(bob, "wiki/concepts/Attention.md", "See [[Notes]].", "See [[Notes]] too.", "Bob's fix")
    assert sync(alice)[0] == 0 and sync(bob)[0] == 0
    from wikitui.core.vault.log_entries import read_log
    from wikitui.core.vault.layout import Vault

    by_title = {e.title: e for e in read_log(Vault.open(bob))}
    assert by_title["Alice's fix"].author == "Alice" and by_title["Bob's fix"].author == "Bob"
    assert by_title["Alice's fix"].model == "test/model"


# ------------------------------------------------------------------ pending work survives a sync (26.3)
def test_a_pending_changeset_on_a_page_that_changed_upstream_is_rebased_with_its_hunks_intact(sides):
    from wikitui.core.changes.disk_status import disk_status
    from wikitui.core.changes.pending import PendingStore
    from wikitui.core.vault.layout import Vault

    _remote, alice, bob = sides
    apply_edit(alice, "wiki/notes.md", "Line 3 of", "Line three of", "Alice's fix")
    assert sync(alice)[0] == 0
    vault, graph = open_vault(bob)
    b = ChangesetBuilder(vault, graph)
    b.edit("wiki/notes.md", [{"old": "Line 20 of", "new": "Line twenty of"},
                             {"old": "Line 27 of", "new": "Line twenty-seven of"}], "Bob's agent")
    waiting = b.build("edit", "Waiting", model="m")
    b2 = ChangesetBuilder(vault, graph)
    b2.edit("wiki/notes.md", [{"old": "Line 3 of", "new": "Line 3 (Bob's agent) of"}], "meets Alice's line")
    clash = b2.build("edit", "Clashing", model="m")
    store = PendingStore(vault)
    store.save(waiting)
    store.save(clash)

    code, out, err = sync(bob)
    assert code == 0, err
    assert {"changeset": waiting.id, "path": "wiki/notes.md"} in out["rebased"]
    assert {"changeset": clash.id, "path": "wiki/notes.md"} in out["rebase_conflicts"]
    now = read(bob, "wiki/notes.md")
    rebased = PendingStore(Vault.open(bob)).load(waiting.id)
    [fc] = rebased.files
    assert fc.base_text == now  # re-based on the text that came in
    assert [h.lines for h in fc.hunks] == [h.lines for h in waiting.files[0].hunks]  # the same two hunks
    assert "Line three of" in fc.new_text and "Line twenty of" in fc.new_text and "Line twenty-seven of" in fc.new_text
    assert disk_status(Vault.open(bob), fc).state == "same"
    kept = PendingStore(Vault.open(bob)).load(clash.id)
    assert kept == clash  # left as it was, nothing lost...
    assert disk_status(Vault.open(bob), kept.files[0]).state == "conflict"  # ...and the review marks it


def test_a_batch_holds_its_next_source_while_a_sync_writes(fake_llm, sample_vault):
    import threading

    from tests.core.batch_util import batch_files, ingesting
    from tests.core.test_two_writers import Holder

    for name in ("a", "b"):
        (sample_vault / "raw/papers").mkdir(parents=True, exist_ok=True)
        (sample_vault / f"raw/papers/{name}.md").write_text(f"# Paper {name}\n\nAbout {name}.\n")
    fake_llm.script(*ingesting(20))
    holder = Holder(sample_vault)  # a sync in another wikitui holds the vault's write lock
    outcome: list = []
    batch = threading.Thread(target=lambda: outcome.append(
        run_wikitui(["ingest", "raw/papers/", "--vault", str(sample_vault), "--yes"])))
    batch.start()
    try:
        import time

        deadline = time.monotonic() + 60
        while not batch_files(sample_vault) and time.monotonic() < deadline:  # the queue is written first
            batch.join(0.05)
        assert batch_files(sample_vault), "the batch's queue"
        batch.join(0.5)
        assert batch.is_alive()
        assert {e["state"] for e in batch_files(sample_vault)[0]["entries"]} == {"queued"}  # held, not started
    finally:
        holder.release()
    batch.join(120)
    [proc] = outcome
    assert proc.returncode == 0, proc.stderr
    assert "batch paused: another wikitui is writing" in proc.stderr and "batch resumed" in proc.stderr
    assert {e["state"] for e in batch_files(sample_vault)[0]["entries"]} == {"proposed"}


def test_in_a_rebased_file_the_hunk_that_meets_what_came_in_is_named_and_the_rest_applies(sides):
    from wikitui.core.changes.disk_status import disk_status
    from wikitui.core.changes.pending import PendingStore
    from wikitui.core.vault.layout import Vault

    _remote, alice, bob = sides
    apply_edit(alice, "wiki/notes.md", "Line 3 of", "Line three of", "Alice's fix")
    assert sync(alice)[0] == 0
    vault, graph = open_vault(bob)
    b = ChangesetBuilder(vault, graph)
    b.edit("wiki/notes.md", [{"old": "Line 3 of", "new": "Line 3 (Bob's agent) of"},
                             {"old": "Line 22 of", "new": "Line twenty-two of"}], "two hunks")
    waiting = b.build("edit", "Two hunks", model="m")
    PendingStore(vault).save(waiting)
    code, out, err = sync(bob)
    assert code == 0, err
    assert out["rebase_conflicts"] == [{"changeset": waiting.id, "path": "wiki/notes.md"}]
    vault = Vault.open(bob)
    [fc] = PendingStore(vault).load(waiting.id).files
    status = disk_status(vault, fc)
    assert status.state == "conflict"
    assert "hunk 1 (line" in status.why and "reject it to apply the rest" in status.why and "hunk 2" not in status.why
    first, second = [h.id for h in fc.hunks if h.kind == "text"]
    assert disk_status(vault, fc, rejected={first}).state == "merges"  # the rest still applies
    _v, graph = open_vault(bob)
    apply_changeset(vault, graph, PendingStore(vault).load(waiting.id), accepted={second}, rejected={first})
    text = read(bob, "wiki/notes.md")
    assert "Line three of" in text and "Line twenty-two of" in text and "Bob's agent" not in text
