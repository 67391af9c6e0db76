"""Reverting a logged changeset, as a changeset to review (DESIGN §15, issue 27.4).

``r`` on a log.md entry proposes the inverse of that changeset against each page as
it is *now*: the text the changeset wrote is the base, the page now is one side,
the text before the changeset the other, merged three-way (merge3, as ``/undo``
merges). Later changesets that touched the lines it changed are named. Per page:

- **clean**: the proposal's file goes from the page now to the merged text;
- **conflict**: a later change edited the same lines. The proposal's file is the
  inverse as recorded (from the text the changeset wrote back to the text before),
  so the review marks it "conflict" on sight and its apply stops with the
  conflicting regions, writing nothing; the user rejects that hunk or edits by hand.

Nothing is written here but the pending changeset (op ``edit``); the apply writes
the pages, its own log.md entry and, in a git vault, its own commit. The page's
``updated:`` date is not part of the inverse: the revert is an edit of today.
"""

from __future__ import annotations

import datetime as _dt
import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wikitui.core.changes.diffs import merge_texts, split_lines
from wikitui.core.changes.logged import LoggedChange, LoggedFile, logged_change
from wikitui.core.changes.model import Changeset, FileChange, make_file_change, new_changeset_id, sha256_bytes
from wikitui.core.changes.updated import bump_updated
from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.files import encode_exact
from wikitui.core.vault.frontmatter_edit import FrontmatterEditError, frontmatter_value, set_frontmatter_keys
from wikitui.core.vault.layout import Vault

if TYPE_CHECKING:
    from wikitui.core.changes.pending import PendingStore
    from wikitui.core.changes.versions import Version


class NothingToRevert(WikituiError):
    """Every page the changeset wrote already holds what it held before."""

    exit_code = 1


@dataclass(slots=True)
class RevertFile:
    """What reverting does to one page.

    Attributes:
        path: The page.
        state: ``clean`` (merged with what came since), ``conflict`` (a later change edited
            the same lines) or ``same`` (already as before the changeset: nothing to do).
        target: What a clean revert leaves in the page (None: the page removed).
        conflicts: A conflict's regions, git-style (``<<<<<<< now`` … ``>>>>>>> before <id>``).
        same_lines: The later changes that touched the lines the changeset changed, named for people.
        why: One line for a conflict.
    """

    path: str
    state: str
    target: str | None = None
    conflicts: list[str] = field(default_factory=list)
    same_lines: list[str] = field(default_factory=list)
    why: str = ""


@dataclass(slots=True)
class RevertPlan:
    """The revert of one logged changeset, file by file.

    Attributes:
        change: What the changeset wrote, and what came since.
        files: Per page, what the revert does.
    """

    change: LoggedChange
    files: list[RevertFile]

    @property
    def conflicted(self) -> list[RevertFile]:
        """The pages whose revert conflicts with a later change."""
        return [f for f in self.files if f.state == "conflict"]

    @property
    def named(self) -> list[str]:
        """Every later change that touched the same lines, once each, in order."""
        return list(dict.fromkeys(n for f in self.files for n in f.same_lines))


# ------------------------------------------------------------------ naming later changes
def version_name(version: Version) -> str:
    """A later change for people: ``cs-… (edit | Title, 2026-11-08 12:00)``, or a commit's subject and author."""
    if version.changeset:
        what = f"{version.op} | {version.title}" if version.op else version.title
        return f"{version.changeset} ({what}, {version.when})"
    return f"{version.title or 'a change'} ({version.who}, {version.when})"


def _regions(old: str, new: str) -> list[tuple[int, int]]:
    """The line ranges of ``new`` that differ from ``old`` (an empty range: lines removed there)."""
    ops = difflib.SequenceMatcher(None, split_lines(old), split_lines(new), autojunk=False).get_opcodes()
    return [(j1, j2) for tag, _i1, _i2, j1, j2 in ops if tag != "equal"]


def _touches(a: int, b: int, i1: int, i2: int) -> bool:
    """Whether a changed range [i1, i2) meets or borders the range [a, b): merge3 sees changes that border as one."""
    return i1 <= b and a <= i2


def _map(ops: Sequence[tuple[str, int, int, int, int]], pos: int, *, end: bool) -> int:
    """A line position in the old text of ``ops``, in the new text (a changed block maps to its whole new block)."""
    for tag, i1, i2, j1, j2 in ops:
        inside = (i1 < pos <= i2) if end else (i1 <= pos < i2)
        if inside:
            return j1 + (pos - i1) if tag == "equal" else (j2 if end else j1)
    return ops[-1][4] if ops else 0


def later_on_same_lines(before: str, after: str, later: list[tuple[str, Version]]) -> list[Version]:
    """The later versions whose change met the lines the changeset (``before`` → ``after``) changed.

    Args:
        before: The text before the changeset.
        after: The text it wrote.
        later: (text, version) of each version since, oldest first.
    """
    regions = _regions(before, after)
    prev = after
    met: list[Version] = []
    for text, version in later:
        ops = difflib.SequenceMatcher(None, split_lines(prev), split_lines(text), autojunk=False).get_opcodes()
        changed = [(i1, i2) for tag, i1, i2, _j1, _j2 in ops if tag != "equal"]
        if any(_touches(a, b, i1, i2) for a, b in regions for i1, i2 in changed):
            met.append(version)
        regions = [(_map(ops, a, end=False), _map(ops, b, end=True) if b > a else _map(ops, a, end=False))
                   for a, b in regions]
        prev = text
    return met


# ------------------------------------------------------------------ the plan
def _without_date(before: str, after: str) -> str:
    """``before`` with the ``updated:`` value ``after`` has: the revert leaves the date line alone."""
    new_date = frontmatter_value(after, "updated")
    if new_date is None or frontmatter_value(before, "updated") == new_date:
        return before
    try:
        return set_frontmatter_keys(before, {"updated": new_date})
    except (FrontmatterEditError, ValueError):
        return before


def _plan_file(f: LoggedFile, changeset: str) -> RevertFile:
    later = [(v.text or "", v) for v in f.later]
    if f.before is not None and f.after is not None:
        before = _without_date(f.before, f.after)
        named = [version_name(v) for v in later_on_same_lines(before, f.after, later)]
        if f.current is None:
            return RevertFile(f.path, "conflict", same_lines=named, why="deleted since the changeset; nothing to revert into")
        merged = merge_texts(f.after, f.current, before, ours_label="now", theirs_label=f"before {changeset}")
        if not merged.clean:
            return RevertFile(f.path, "conflict", conflicts=merged.conflicts, same_lines=named,
                              why="edited since on the lines the changeset changed")
        return RevertFile(f.path, "same" if merged.text == f.current else "clean", merged.text, same_lines=named)
    if f.before is None:  # the changeset created the page: its revert deletes it
        if f.current is None:
            return RevertFile(f.path, "same")
        if f.current == f.after:
            return RevertFile(f.path, "clean", None)
        named = [version_name(v) for v in f.later]
        return RevertFile(f.path, "conflict", same_lines=named, why="edited since the changeset created it")
    # The changeset deleted the page: its revert brings it back.
    if f.current is None:
        return RevertFile(f.path, "clean", f.before)
    if f.current == f.before:
        return RevertFile(f.path, "same", f.before)
    return RevertFile(f.path, "conflict", same_lines=[version_name(v) for v in f.later],
                      why="created again since the changeset deleted it")


def plan_revert(vault: Vault, number: int) -> RevertPlan:
    """What reverting log.md's entry ``number`` (0: the oldest) does to each page, as things are now; reads only.

    Raises:
        NotLogged: The entry has no changeset the history holds.
    """
    change = logged_change(vault, number)
    return RevertPlan(change, [_plan_file(f, change.entry.changeset or "?") for f in change.files])


def _file_change(i: int, f: LoggedFile, r: RevertFile, reason: str) -> FileChange | None:
    if r.state == "same":
        return None
    if r.state == "clean":
        if r.target is None:
            return make_file_change(i, f.path, "delete", _hash(f.current), f.current or "", "", reason=reason)
        if f.current is None:
            return make_file_change(i, f.path, "create", None, "", r.target, reason=reason)
        text, own = bump_updated(f.current, r.target)
        return make_file_change(i, f.path, "edit", _hash(f.current), f.current, text, reason=reason, own_line=own)
    # A conflict: the inverse as recorded, against the text the changeset wrote; the review meets the conflict.
    if f.after is None:
        return make_file_change(i, f.path, "create", None, "", f.before or "", reason=reason)
    if f.before is None:
        return make_file_change(i, f.path, "delete", _hash(f.after), f.after, "", reason=reason)
    return make_file_change(i, f.path, "edit", _hash(f.after), f.after, _without_date(f.before, f.after),
                            reason=reason)


def _hash(text: str | None) -> str | None:
    return None if text is None else sha256_bytes(encode_exact(text))


def _reason(changeset: str, r: RevertFile) -> str:
    reason = f"revert {changeset}"
    if r.state == "conflict":
        reason += f"; conflict: {r.why}"
    if r.same_lines:
        reason += ("; re-merged with later " if r.state == "clean" else "; later changes on the same lines: ") + \
            ", ".join(r.same_lines)
    return reason


def propose_revert(vault: Vault, store: PendingStore, number: int) -> tuple[Changeset, RevertPlan]:
    """Propose reverting log.md's entry ``number`` (0: the oldest): a pending changeset to review.

    Returns:
        The changeset saved in ``store`` and the plan it was made from (what merged, what conflicts, whom it names).

    Raises:
        NotLogged: The entry has no changeset the history holds.
        NothingToRevert: Every page already holds what it held before the changeset.
    """
    plan = plan_revert(vault, number)
    entry = plan.change.entry
    changeset_id = entry.changeset or "?"
    files: list[FileChange] = []
    for f, r in zip(plan.change.files, plan.files):
        vault.writable_path(f.path)  # a hostile log.md names nothing outside the wiki
        fc = _file_change(len(files), f, r, _reason(changeset_id, r))
        if fc is not None:
            files.append(fc)
    if not files:
        raise NothingToRevert(f"{changeset_id} is already reverted: its pages hold what they held before it")
    changeset = Changeset(id=new_changeset_id(), op="edit", title=f"revert {changeset_id} ({entry.op} | {entry.title})",
                          created=_dt.datetime.now().isoformat(timespec="seconds"), files=files)
    store.save(changeset)
    return changeset, plan
