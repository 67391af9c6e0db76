"""Properties of compare before replace (:func:`~wikitui.core.changes.replace.replace_checked`, DESIGN §8).

Whatever the page held, whatever we write and whenever another writer saves (not at all, after our
read, or in the instant before the rename), the write ends with the file holding what it says it
holds, the other writer's bytes reach ``merge`` (never dropped), what the file held before our write
is reported, and no temp file is left beside the page. A merge that fails leaves the other
writer's bytes in the file.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.core.changes import exchange
from wikitui.core.changes.replace import replace_checked

PROPS = settings(max_examples=120, deadline=None)

lines = st.lists(st.sampled_from(["alpha\n", "beta\n", "gamma\n", "# Title\n", "\n", "délta ✓\n"]), max_size=6)
#: A file's bytes: whole lines (a half-written save is another test's matter), or None: no file.
contents = st.one_of(st.none(), lines.map(lambda ls: "".join(ls).encode()))
#: When the other writer saves: never, after we read the page, or between our last read and the rename.
moments = st.sampled_from(["never", "before", "at-rename"])


class Refused(Exception):
    """The test merge's refusal to combine two changes."""


class Merges:
    """A stand-in merge that records its calls: ours with their bytes kept above it (or a refusal)."""

    def __init__(self, *, refuse: bool = False) -> None:
        self.calls: list[tuple[bytes | None, bytes | None, bytes | None, bool]] = []
        self.refuse = refuse

    def __call__(self, base, theirs, ours, later=False):
        self.calls.append((base, theirs, ours, later))
        if self.refuse:
            raise Refused("the changes overlap")
        if ours is None:
            return None
        return (theirs or b"") + b"-- merged --\n" + ours


def on_disk(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


def put(path: Path, data: bytes | None) -> None:
    if data is None:
        path.unlink(missing_ok=True)
    else:
        path.write_bytes(data)


def run(base, ours, theirs, moment, merge, noted=None):
    """Write ``ours`` over a page that held ``base``, the other writer saving ``theirs`` at ``moment``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "page.md"
        put(path, base)
        if moment == "before":
            put(path, theirs)
        real_swap, hit = exchange._swap, []

        def save_first(tmp_file, target):
            if not hit:
                hit.append(1)
                put(target, theirs)
            return real_swap(tmp_file, target)

        exchange._swap = save_first if moment == "at-rename" else real_swap
        try:
            try:
                outcome = replace_checked(path, ours, base, merge, noted)
            finally:
                exchange._swap = real_swap
        except Refused:
            outcome = None
        saved = theirs != base and (moment == "before" or bool(hit))  # someone else's bytes were in the file
        return outcome, on_disk(path), sorted(p.name for p in Path(tmp).iterdir()), saved


@PROPS
@given(base=contents, ours=contents, theirs=contents, moment=moments)
def test_the_file_holds_what_the_write_reports_and_no_temp_file_stays(base, ours, theirs, moment):
    merge, found = Merges(), []
    outcome, disk, names, saved = run(base, ours, theirs, moment, merge, lambda seen, writing: found.append(seen))
    assert outcome is not None
    now, before = outcome
    assert disk == now
    assert names == ([] if now is None else ["page.md"])
    if not saved:
        assert outcome == (ours, base) and merge.calls == [] and found == []
    else:
        assert before == theirs  # what the file held before our write, for the journal's undo
        assert found[0] == theirs  # told before the write that follows
        if now != ours:  # their change is in: merged, or their appended lines kept at the end
            assert merge.calls or (ours is not None and theirs is not None and now == ours + theirs[len(base or b""):])


@PROPS
@given(base=contents, ours=contents, theirs=contents, moment=st.sampled_from(["before", "at-rename"]))
def test_a_save_that_does_not_combine_keeps_the_other_writers_bytes(base, ours, theirs, moment):
    merge = Merges(refuse=True)
    outcome, disk, names, saved = run(base, ours, theirs, moment, merge)
    if not saved:  # nothing foreign to combine: written as it is
        assert outcome == (ours, base) and disk == ours and merge.calls == []
        return
    if outcome is not None:  # their lines only appended at the end: kept in place, no merge needed
        assert moment == "at-rename" and merge.calls == []
        assert ours is not None and theirs is not None and disk == ours + theirs[len(base or b""):]
        return
    assert merge.calls and merge.calls[0][:3] == (base, theirs, ours)
    assert disk == theirs
    assert names == ([] if theirs is None else ["page.md"])


@pytest.mark.parametrize("moment", ["before", "at-rename"])
def test_their_save_is_merged_with_ours_once(moment):
    base, ours, theirs = b"alpha\nbeta\n", b"alpha\nBETA\n", b"ALPHA\nbeta\n"
    merge = Merges()
    outcome, disk, _names, saved = run(base, ours, theirs, moment, merge)
    assert saved
    assert disk == b"ALPHA\nbeta\n-- merged --\nalpha\nBETA\n"
    assert outcome == (disk, theirs)
    assert merge.calls == [(base, theirs, ours, False)]
