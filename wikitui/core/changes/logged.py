"""What a log.md entry's changeset wrote, read back from the page's history (DESIGN §15, issue 27.4).

log.md names, per entry, the pages a changeset touched and its id; the page's
versions (:mod:`wikitui.core.changes.versions`: git, or wikitui's own records)
hold the text before and after it, and every version since. :func:`logged_change`
puts those together for one entry: the changeset's diff to show, and what a revert
(:mod:`wikitui.core.changes.revert`) merges with. :func:`log_rows` lists the entries
for the log view, newest first, each with who made it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wikitui.core.changes.versions import Version, page_versions
from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.log_entries import LogEntry, read_log


class NotLogged(WikituiError):
    """The entry records no changeset whose texts the history still holds."""

    exit_code = 2


@dataclass(frozen=True, slots=True)
class LogRow:
    """One log.md entry as a row of the log view.

    Attributes:
        number: The entry's position in log.md (0: the oldest); what :func:`logged_change` takes.
        entry: The parsed entry.
        author: Who committed it (git's author of the changeset's commit); None when unknown.
    """

    number: int
    entry: LogEntry
    author: str | None = None

    @property
    def who(self) -> str:
        """The author and/or the model, for the row (``—`` when neither is known)."""
        bits = [b for b in (self.author, self.entry.model) if b]
        return " · ".join(bits) if bits else "—"


@dataclass(slots=True)
class LoggedFile:
    """One page a logged changeset wrote.

    Attributes:
        path: The page's path now (where a revert writes).
        before: Its text before the changeset (None: the changeset created it).
        after: The text the changeset wrote (None: it deleted the page).
        later: The versions made since, oldest first (the file on disk last, when it differs).
        current: The text on disk now (None: no file).
    """

    path: str
    before: str | None
    after: str | None
    later: list[Version] = field(default_factory=list)
    current: str | None = None


@dataclass(slots=True)
class LoggedChange:
    """A log entry's changeset, as its pages' history holds it.

    Attributes:
        entry: The log entry.
        files: Each page it wrote whose before and after texts are known.
        missing: Pages the entry names whose history holds no version by that changeset.
    """

    entry: LogEntry
    files: list[LoggedFile]
    missing: list[str] = field(default_factory=list)


def log_rows(vault: Vault) -> list[LogRow]:
    """log.md's entries, newest first, each with the author of its commit when the vault is a git repository."""
    entries = read_log(vault)
    authors = _commit_authors(vault)
    rows = [LogRow(i, e, authors.get(e.changeset or "")) for i, e in enumerate(entries)]
    return rows[::-1]


def _commit_authors(vault: Vault) -> dict[str, str]:
    """Changeset id → the author of its (first) commit, in one ``git log``; empty without git."""
    from wikitui.core.changes.git import GitError, is_git_vault, run_git
    from wikitui.core.changes.versions import changeset_of

    if not is_git_vault(vault):
        return {}
    try:
        out = run_git(vault, "log", "--no-color", "--format=%x1e%an%x1f%s%x1f%b", "--grep=changeset: ").stdout
    except GitError:
        return {}
    found: dict[str, str] = {}
    for chunk in out.split("\x1e")[1:]:
        parts = chunk.split("\x1f")
        if len(parts) >= 3:
            cs = changeset_of(parts[1], parts[2])
            if cs and parts[0]:
                found[cs] = parts[0]  # git lists newest first: the first commit of an id wins
    return found


def logged_change(vault: Vault, number: int) -> LoggedChange:
    """The changeset of log.md's entry ``number`` (0: the oldest): each page's text before, after and since.

    The nth entry of a changeset id is matched with the nth version that id made
    (a changeset applied in parts logs one entry per part). The log and the index are
    wikitui's own and never part of it.

    Raises:
        NotLogged: No such entry, the entry carries no changeset id, it is an undo, or the
            history holds none of its pages' versions (records pruned, commits gone).
    """
    entries = read_log(vault)
    if not 0 <= number < len(entries):
        raise NotLogged(f"log.md has no entry {number}")
    entry = entries[number]
    if not entry.changeset:
        raise NotLogged(f"the entry {entry.heading!r} names no changeset: nothing to show or revert")
    if entry.op == "undo":
        raise NotLogged(f"the entry {entry.heading!r} is an undo; revert the changeset it undid from its own entry")
    nth = sum(1 for e in entries[:number] if e.changeset == entry.changeset and e.op != "undo")
    files: list[LoggedFile] = []
    missing: list[str] = []
    for path in dict.fromkeys(entry.pages):
        if path in (vault.log_path, vault.index_path) or not vault.is_page_path(path):
            continue
        found = _page_change(vault, path, entry.changeset, nth)
        if found is None:
            missing.append(path)
        else:
            files.append(found)
    if not files:
        raise NotLogged(f"the history holds no version written by {entry.changeset} "
                        f"({', '.join(missing) or 'no pages named'}): nothing to show or revert")
    return LoggedChange(entry, files, missing)


def _page_change(vault: Vault, path: str, changeset: str, nth: int) -> LoggedFile | None:
    from wikitui.core.changes.transaction import text_of

    versions = page_versions(vault, path)  # newest first
    made = [i for i, v in enumerate(versions) if v.changeset == changeset and v.op != "undo"]
    if not made:
        return None
    oldest_first = made[::-1]
    k = oldest_first[min(nth, len(oldest_first) - 1)]
    before = versions[k + 1].text if k + 1 < len(versions) else None
    later = versions[:k][::-1]
    current_path = later[-1].path if later else versions[k].path
    return LoggedFile(current_path, before, versions[k].text, later, text_of(vault, current_path))


def change_diff(change: LoggedChange):
    """The logged change as a :class:`~wikitui.core.changes.model.Changeset` to show (never saved or applied)."""
    from wikitui.core.changes.model import Changeset, make_file_change

    files = []
    for i, f in enumerate(change.files):
        action = "create" if f.before is None else "delete" if f.after is None else "edit"
        files.append(make_file_change(i, f.path, action, None, f.before or "", f.after or "",
                                      reason=f"{change.entry.op} | {change.entry.title}"))
    entry = change.entry
    return Changeset(id=entry.changeset or "?", op=entry.op, title=entry.title, created=entry.date.isoformat(),
                     model=entry.model, files=files)
