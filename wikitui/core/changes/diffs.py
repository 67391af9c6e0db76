"""Hunks: computing them, applying a chosen subset, writing them as a patch, merging.

Texts here are whole files as ``str`` decoded from UTF-8 *without* losing anything:
a byte-order mark stays as a leading ``\\ufeff`` and CRLF line endings stay ``\\r\\n``,
so ``text.encode("utf-8")`` gives back the bytes on disk. Lines are split on ``\\n``
only and keep their endings; the last line of a file may lack one.

A :class:`Hunk`'s ``lines`` carry a one-character prefix (``" "``, ``"-"``, ``"+"``)
and the line's exact ending, so a hunk is self-sufficient: it can be applied, and
written into a patch that ``git apply`` accepts, without the new text beside it.
:attr:`Hunk.display_lines` gives the same lines cleaned for showing.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from wikitui.core.changes.hunk_groups import groups, groups_with_own
from wikitui.core.vault.evidence import Evidence, evidence_list

#: Lines of context around each change, as ``diff -u``.
CONTEXT = 3


@dataclass(slots=True)
class Hunk:
    """One reviewable piece of a file's change.

    Attributes:
        id: Unique in its changeset, ``f<file>h<n>`` (``f0h2``).
        file: Index of the file in the changeset.
        header: ``@@ -a,b +c,d @@`` for a text hunk; a phrase for the other kinds.
        lines: Prefixed lines with their exact endings (empty for non-text kinds).
        old_start: First old line, 1-based (the line before, when ``old_len`` is 0).
        old_len: Number of old lines the hunk covers.
        new_start: First new line, same convention.
        new_len: Number of new lines.
        added: Lines added.
        removed: Lines removed.
        kind: ``"text"`` (a unified-diff hunk), ``"rename"`` (a move's rename, one
            decision) or ``"file"`` (creating or deleting an empty file).
        review: A second reviewer's note (DESIGN §11), ``{"verdict": "ok"|"doubt"|"wrong",
            "note", "model"}``; None when no reviewer read it.
        reason: The person's reason for the agent, written in the review (``e``) while the
            hunk is still undecided: it waits here, in the pending file, until the hunk is
            decided and the reason goes to the agent ("" when none).
        evidence: The source lines its claims draw on (DESIGN §11 "Evidence"), as the agent gave
            them and as the check found them; empty when none was given.
    """

    id: str
    file: int
    header: str
    lines: list[str] = field(default_factory=list)
    old_start: int = 0
    old_len: int = 0
    new_start: int = 0
    new_len: int = 0
    added: int = 0
    removed: int = 0
    kind: str = "text"
    review: dict | None = None
    reason: str = ""
    evidence: list[Evidence] = field(default_factory=list)

    @property
    def display_lines(self) -> list[str]:
        """The prefixed lines without line endings or the file's byte-order mark, for showing.

        A byte that is not UTF-8 (kept in the text as a lone surrogate) shows as U+FFFD. Only
        the mark that starts line 1 is dropped: a U+FEFF anywhere else is hidden text, which
        the review shows and flags (DESIGN §8).
        """
        old, new = self.old_start, self.new_start
        out = []
        for ln in self.lines:
            line = ln.rstrip("\n").rstrip("\r")
            sign = line[:1]
            if line[1:2] == "\ufeff" and ((sign in " -" and old == 1) or (sign in " +" and new == 1)):
                line = sign + line[2:]
            old += sign in " -"
            new += sign in " +"
            out.append(_shown(line))
        return out

    def to_dict(self) -> dict:
        """A JSON-ready dict (``review`` only when a reviewer read the hunk, ``reason`` only when written,
        ``evidence`` only when given)."""
        data = asdict(self)
        if data["review"] is None:
            del data["review"]
        if not data["reason"]:
            del data["reason"]
        if self.evidence:
            data["evidence"] = [e.to_dict() for e in self.evidence]
        else:
            del data["evidence"]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "Hunk":
        """The inverse of :meth:`to_dict`."""
        review, reason = data.get("review"), data.get("reason")
        return cls(**{**data, "review": review if isinstance(review, dict) else None,
                      "reason": reason if isinstance(reason, str) else "",
                      "evidence": evidence_list(data.get("evidence"))})


_SURROGATE = re.compile("[\ud800-\udfff]")


def _shown(line: str) -> str:
    return _SURROGATE.sub("\ufffd", line)


class HunkMismatch(ValueError):
    """A hunk's old side does not match the text it is applied to."""


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only, keeping endings (``str.splitlines`` also splits on ``\\x0c`` and others)."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _range(start: int, length: int) -> tuple[int, str]:
    """Unified-diff range numbers, as difflib and git write them."""
    beginning = start + 1
    if length == 0:
        beginning -= 1
    text = f"{beginning}" if length == 1 else f"{beginning},{length}"
    return beginning, text


def compute_hunks(
    base_text: str, new_text: str, file_index: int, *, first: int = 0, context: int = CONTEXT,
    own_line: tuple[int, int] | None = None,
) -> list[Hunk]:
    """The text hunks turning ``base_text`` into ``new_text``.

    Args:
        base_text: The old text.
        new_text: The new text.
        file_index: The file's index in its changeset (goes into hunk ids).
        first: Number of the first hunk (a move's rename takes number 0).
        context: Lines of context.
        own_line: (old line, new line), 0-based: a one-line change that gets a hunk of
            its own, decided apart from its neighbours (the ``updated:`` date wikitui adds).
    """
    a, b = split_lines(base_text), split_lines(new_text)
    if a == b:
        return []
    grouped = None if own_line is None else groups_with_own(a, b, context, own_line)
    if grouped is None:
        grouped = groups(list(difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()), context)
    hunks: list[Hunk] = []
    for group in grouped:
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        old_start, old_txt = _range(i1, i2 - i1)
        new_start, new_txt = _range(j1, j2 - j1)
        lines: list[str] = []
        added = removed = 0
        for tag, ai1, ai2, bj1, bj2 in group:
            if tag == "equal":
                lines.extend(" " + ln for ln in a[ai1:ai2])
                continue
            if tag in ("replace", "delete"):
                lines.extend("-" + ln for ln in a[ai1:ai2])
                removed += ai2 - ai1
            if tag in ("replace", "insert"):
                lines.extend("+" + ln for ln in b[bj1:bj2])
                added += bj2 - bj1
        n = first + len(hunks)
        hunks.append(
            Hunk(
                id=f"f{file_index}h{n}",
                file=file_index,
                header=f"@@ -{old_txt} +{new_txt} @@",
                lines=lines,
                old_start=old_start,
                old_len=i2 - i1,
                new_start=new_start,
                new_len=j2 - j1,
                added=added,
                removed=removed,
            )
        )
    return hunks


def apply_hunks(base_text: str, hunks: list[Hunk], accepted_ids: set[str] | None) -> str:
    """Apply the accepted text hunks to ``base_text``; the others leave their lines as they were.

    Args:
        base_text: The text the hunks were computed against.
        hunks: A file's hunks (non-text kinds are ignored).
        accepted_ids: Ids of the hunks to apply (None: all).

    Raises:
        HunkMismatch: A hunk's old side does not match ``base_text``.
    """
    base = split_lines(base_text)
    out: list[str] = []
    pos = 0
    text_hunks = sorted((h for h in hunks if h.kind == "text"), key=lambda h: h.old_start)
    for h in text_hunks:
        if accepted_ids is not None and h.id not in accepted_ids:
            continue
        start = h.old_start if h.old_len == 0 else h.old_start - 1
        old_side = [ln[1:] for ln in h.lines if ln[:1] in (" ", "-")]
        if start < pos or base[start : start + h.old_len] != old_side:
            raise HunkMismatch(f"hunk {h.id} ({h.header}) does not match the text it was computed from")
        out.extend(base[pos:start])
        out.extend(ln[1:] for ln in h.lines if ln[:1] in (" ", "+"))
        pos = start + h.old_len
    out.extend(base[pos:])
    return "".join(out)


# ------------------------------------------------------------------ patches
def quote_path(path: str) -> str:
    """A path as git writes it in a patch header (C-quoted only when it must be)."""
    if not any(c in path for c in '"\\\n\t'):
        return path
    escaped = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def format_hunk(hunk: Hunk) -> str:
    """A text hunk as unified-diff text (``\\ No newline at end of file`` where needed)."""
    out = [hunk.header + "\n"]
    for ln in hunk.lines:
        if ln.endswith("\n"):
            out.append(ln)
        else:
            out.append(ln + "\n\\ No newline at end of file\n")
    return "".join(out)


def _side(prefix: str, path: str) -> str:
    return quote_path(f"{prefix}/{path}")


def format_file_patch(action: str, path: str, new_path: str | None, hunks: list[Hunk]) -> str:
    """One file's part of a git-style unified patch.

    Args:
        action: ``edit``, ``create``, ``delete`` or ``move``.
        path: The vault-relative path (the old one for a move).
        new_path: A move's destination.
        hunks: The file's hunks (a move's rename hunk and text hunks; non-text kinds write no lines).
    """
    dest = new_path if action == "move" and new_path else path
    out = [f"diff --git {_side('a', path)} {_side('b', dest)}\n"]
    text_hunks = [h for h in hunks if h.kind == "text"]
    old_name, new_name = _side("a", path), _side("b", dest)
    if action == "create":
        out.append("new file mode 100644\n")
        old_name = "/dev/null"
    elif action == "delete":
        out.append("deleted file mode 100644\n")
        new_name = "/dev/null"
    elif action == "move":
        if not text_hunks:
            out.append("similarity index 100%\n")
        out.append(f"rename from {quote_path(path)}\nrename to {quote_path(dest)}\n")
    if text_hunks:
        out.append(f"--- {old_name}\n+++ {new_name}\n")
        out.extend(format_hunk(h) for h in text_hunks)
    return "".join(out)


# -------------------------------------------------------------------- merge
@dataclass(slots=True)
class MergeResult:
    """The outcome of a three-way merge: the merged text, or the regions that conflict."""

    text: str
    conflicts: list[str]

    @property
    def clean(self) -> bool:
        """Whether the merge had no conflict."""
        return not self.conflicts


def merge_texts(
    base: str, ours: str, theirs: str, *, ours_label: str = "on disk", theirs_label: str = "proposed",
    insertions_in_order: bool = False,
) -> MergeResult:
    """Merge two descendants of ``base`` line by line with merge3.

    Args:
        base: The common ancestor (the text the proposal was made against).
        ours: The text on disk now (a person's edits).
        theirs: The text the change wants to write.
        insertions_in_order: Lines both sides insert at the same place are kept, the
            side of ``theirs`` first, instead of conflicting: for two saves of one
            person, the earlier already in ``theirs``, the later on disk.

    Returns:
        The merged text (conflicts marked git-style) and each conflicting region as text.
    """
    import merge3  # deferred: only a changed base needs it

    m = merge3.Merge3(split_lines(base), split_lines(ours), split_lines(theirs))
    out: list[str] = []
    conflicts: list[str] = []
    for group in m.merge_groups():
        if group[0] == "conflict":  # (compared in place, so the type checker narrows the tuple)
            a_lines, b_lines = group[2], group[3]
            if insertions_in_order and not group[1]:
                out.extend(_ended(b_lines) if a_lines else b_lines)
                out.extend(a_lines)
                continue
            region = [f"<<<<<<< {ours_label}\n", *_ended(a_lines), "=======\n", *_ended(b_lines), f">>>>>>> {theirs_label}\n"]
            conflicts.append("".join(region).replace("\r", ""))
            out.extend(region)
        else:
            out.extend(group[1])
    return MergeResult("".join(out), conflicts)


def _ended(lines: Sequence[str]) -> list[str]:
    return [ln if ln.endswith("\n") else ln + "\n" for ln in lines]
