"""Compare before replace (DESIGN §8): a save that lands while an apply or an undo writes is never lost.

The first tests put the person's save at exact points of the write (hooks, no
timing): after the apply read the page, between its last read and the rename,
and in place or by rename. The last one is the live case from issue 9: a writer
thread appends a line every ~2 ms while changesets are applied and undone.
"""

from __future__ import annotations

import os
import threading
import time

import pytest

from tests.core.changes_util import make_vault, open_vault, page, read
from wikitui.core.changes import exchange, replace  # noqa: F401
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder, FileConflict
from wikitui.core.changes.journal import JOURNAL_NAME, Journal
from wikitui.core.changes.pending import PendingStore
from wikitui.core.changes.undo import undo_last

NOTES = "".join(f"Line {i} of the notes.\n" for i in range(1, 41))
PAGE = "wiki/notes.md"


@pytest.fixture
def root(tmp_path):
    return make_vault(tmp_path / "v", {
        "notes.md": NOTES,
        "other.md": page("Other", "# Other\n\nSee [[notes]].\n"),
    })


def edit_line(root, n: int, new: str, *, also_other: bool = True):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("notes.md", [{"old": f"Line {n} of the notes.", "new": new}], "tidy")
    if also_other:
        b.edit("other.md", [{"old": "See [[notes]].", "new": f"See [[notes]] ({n})."}], "")
    cs = b.build("edit", f"Edit line {n}")
    PendingStore(vault).save(cs)
    return vault, graph, cs


def append_in_place(path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)


def save_by_rename(path, text: str) -> None:
    """How vim, Emacs and sync tools save: a new file renamed over the old one."""
    tmp = path.with_name(path.name + ".mine")
    tmp.write_bytes(path.read_bytes() + text.encode("utf-8"))
    os.replace(tmp, path)


def test_a_save_made_after_the_apply_read_the_page_is_merged_in(root, monkeypatch):
    vault, graph, cs = edit_line(root, 5, "Line five of the notes.")
    real_save, saved = Journal.save, []

    def save_then_human_edits(self):
        real_save(self)
        if not saved:  # the apply has read and planned every page; it has not written one
            saved.append(1)
            append_in_place(root / PAGE, "My line, typed during the apply.\n")

    monkeypatch.setattr(Journal, "save", save_then_human_edits)
    result = apply_changeset(vault, graph, cs)
    text = read(root, PAGE)
    assert text == NOTES.replace("Line 5 of", "Line five of") + "My line, typed during the apply.\n"
    assert PAGE in result.merged
    monkeypatch.setattr(Journal, "save", real_save)
    undo_last(vault, graph)
    assert read(root, PAGE) == NOTES + "My line, typed during the apply.\n"


@pytest.mark.parametrize("saver", [append_in_place, save_by_rename], ids=["in place", "by rename"])
def test_a_save_landing_between_the_last_read_and_the_rename_is_merged_in(root, monkeypatch, saver):
    vault, graph, cs = edit_line(root, 5, "Line five of the notes.")
    real_swap, hit = exchange._swap, []

    def human_first(tmp, path):
        if path.name == "notes.md" and not hit:  # the last read said "unchanged"; the person saves now
            hit.append(1)
            saver(path, "Saved in the last microsecond.\n")
        return real_swap(tmp, path)

    monkeypatch.setattr(exchange, "_swap", human_first)
    result = apply_changeset(vault, graph, cs)
    assert hit
    assert read(root, PAGE) == NOTES.replace("Line 5 of", "Line five of") + "Saved in the last microsecond.\n"
    assert PAGE in result.merged
    monkeypatch.setattr(exchange, "_swap", real_swap)
    undo_last(vault, graph)
    assert read(root, PAGE) == NOTES + "Saved in the last microsecond.\n"


def test_without_an_atomic_exchange_a_hard_link_still_catches_an_in_place_save(root, monkeypatch):
    vault, graph, cs = edit_line(root, 5, "Line five of the notes.")
    monkeypatch.setattr(exchange, "_rename2", lambda src, dst, flags: False)  # no renameat2 here
    real_link, hit = os.link, []

    def link_then_save(src, dst, *args, **kwargs):
        real_link(src, dst, *args, **kwargs)
        if str(src).endswith("notes.md") and not hit:
            hit.append(1)
            append_in_place(src, "Saved while wikitui renamed.\n")

    monkeypatch.setattr(replace.os, "link", link_then_save)
    apply_changeset(vault, graph, cs)
    assert hit and read(root, PAGE) == NOTES.replace("Line 5 of", "Line five of") + "Saved while wikitui renamed.\n"
    assert not [p for p in (root / "wiki").iterdir() if p.name.endswith(".tmp")]


def test_a_save_that_overlaps_the_change_stops_the_apply_and_keeps_the_persons_text(root, monkeypatch):
    vault, graph, cs = edit_line(root, 40, "Line forty of the notes.")
    other_before = read(root, "wiki/other.md")
    log_before = (root / "wiki/log.md").read_bytes()
    real_swap, hit = exchange._swap, []
    mine = NOTES.replace("Line 40 of the notes.", "Line 40, mine.")

    def human_first(tmp, path):
        if path.name == "notes.md" and not hit:
            hit.append(1)
            (root / PAGE).write_text(mine, encoding="utf-8")
        return real_swap(tmp, path)

    monkeypatch.setattr(exchange, "_swap", human_first)
    with pytest.raises(FileConflict) as err:
        apply_changeset(vault, graph, cs)
    assert err.value.path == PAGE and "Line 40, mine." in err.value.region
    assert read(root, PAGE) == mine  # theirs, not ours, not the old text
    assert read(root, "wiki/other.md") == other_before and (root / "wiki/log.md").read_bytes() == log_before
    assert PendingStore(vault).load(cs.id) == cs and not (vault.state_dir / JOURNAL_NAME).exists()
    assert not [p for p in (root / "wiki").iterdir() if p.name.endswith(".tmp")]


def test_a_page_edited_while_it_is_being_deleted_is_not_deleted(root, monkeypatch):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.delete("other.md", "")
    cs = b.build("edit", "Drop other")
    real_rename, hit = os.rename, []

    def save_first(src, dst, *a, **k):
        if str(src).endswith("other.md") and not hit:
            hit.append(1)
            append_in_place(src, "Still needed!\n")
        return real_rename(src, dst, *a, **k)

    monkeypatch.setattr(replace.os, "rename", save_first)
    with pytest.raises(FileConflict):
        apply_changeset(vault, graph, cs)
    assert read(root, "wiki/other.md").endswith("Still needed!\n")


def test_an_undo_merges_a_save_landing_while_it_writes(root, monkeypatch):
    vault, graph, cs = edit_line(root, 5, "Line five of the notes.")
    apply_changeset(vault, graph, cs)
    real_swap, hit = exchange._swap, []

    def human_first(tmp, path):
        if path.name == "notes.md" and not hit:
            hit.append(1)
            append_in_place(path, "Typed during the undo.\n")
        return real_swap(tmp, path)

    monkeypatch.setattr(exchange, "_swap", human_first)
    result = undo_last(vault, graph)
    assert hit and read(root, PAGE) == NOTES + "Typed during the undo.\n"
    assert PAGE in result.merged


def test_a_writer_appending_every_2ms_loses_no_line_through_applies_and_undos(root):
    """Issue 9: 20 of 20 live rounds lost the person's lines. Every line must survive here."""
    path = root / PAGE
    stop = threading.Event()
    written: list[str] = []

    def writer():
        n = 0
        while not stop.is_set():
            n += 1
            line = f"Human line {n}.\n"
            append_in_place(path, line)
            written.append(line)
            time.sleep(0.002)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    conflicts = 0
    try:
        for rnd in range(1, 16):
            n = 2 + rnd  # a different line each round, far from the end where the person appends
            vault, graph, cs = edit_line(root, n, f"Line {n}, revised in round {rnd}.", also_other=rnd % 3 == 0)
            try:
                apply_changeset(vault, graph, cs)
                assert f"Line {n}, revised in round {rnd}." in read(root, PAGE)
                undo_last(vault, graph)
                assert f"Line {n} of the notes." in read(root, PAGE)
            except FileConflict:
                conflicts += 1  # a conflict writes nothing: it loses nothing either
    finally:
        stop.set()
        thread.join()
    text = read(root, PAGE)
    missing = [line for line in written if line not in text]
    assert len(written) > 50 and missing == []
    human = [ln + "\n" for ln in text.splitlines() if ln.startswith("Human line")]
    # All of them, once each. (Two lines typed within microseconds, one into the file being replaced,
    # the other into its replacement, may come out in either order.)
    assert sorted(human) == sorted(written)
    assert text.startswith(NOTES[: NOTES.index("Line 3 of")]) and conflicts <= 2
