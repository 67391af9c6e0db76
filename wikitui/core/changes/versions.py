"""A page's versions, newest first: from git when the vault is a repository, else from wikitui's records (DESIGN §15).

In a git vault the versions are the commits that touched the page (``git log
--follow``, renames followed): each with its author (a person's own commit shows the
person), the changeset id wikitui's commit messages carry, and, through that id,
the log.md entry and the model. Without git, the versions come from the records
``/undo`` keeps in ``.wikitui/history/`` (:mod:`wikitui.core.changes.undo`): each
apply's text written and text replaced, each undo's text put back; ``history_keep``
in the config says how many of them are kept (200 by default). The oldest text a
record replaced is the earliest version known (its date unknown). When the file on
disk differs from the newest version (edits not committed, or not made through
wikitui), that text is listed first as the current version.

:func:`version_at` answers ``wikitui show PAGE --at DATE``; :func:`propose_restore`
turns a version back into a pending changeset, reviewed like any agent proposal.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wikitui.core.base.errors import UnknownPage, WikituiError
from wikitui.core.vault.files import decode_exact
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.log_entries import LogEntry, read_log

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.changes.model import Changeset
    from wikitui.core.changes.pending import PendingStore

_CHANGESET = re.compile(r"(?:^|\n)(?:undo of )?changeset: ((?:cs|mcp)-[0-9A-Za-z-]+)")
_SUBJECT = re.compile(r"^wikitui: (\w+) \| (.*)$")
#: ``git log`` fields: a record separator, then hash, author date, author, subject and body, each ended by a unit one.
LOG_FORMAT = "%x1e%H%x1f%aI%x1f%an%x1f%s%x1f%b%x1f"
_YOUR_EDITS = re.compile(r"^wikitui: your edits before ((?:cs|mcp)-[0-9A-Za-z-]+)$")


class PageNotThen(WikituiError):
    """The page did not exist on the day asked for (or nothing recorded says it did)."""

    exit_code = 2


@dataclass
class Version:
    """One version of a page.

    Attributes:
        path: The page's path in this version (it may have moved since).
        date: When it was made (local time); None for the earliest text known, of unknown date.
        text: The page's text then; None when this version deleted it.
        source: ``git`` (a commit), ``records`` (wikitui's apply/undo records) or ``disk``
            (the file as it is now, not committed or not recorded).
        author: Who made it (git's author); None when unknown.
        model: The model that proposed it (an agent's change).
        changeset: The changeset id that made it (for an undo: the changeset undone).
        op: The operation (``ingest``, ``edit``, ``undo``...); None for a person's change.
        title: The log entry's title or the commit's subject.
        log_entry: The log.md entry's heading line (None when the log has none for it).
        commit: The git commit's hash.
    """

    path: str
    date: _dt.datetime | None
    text: str | None
    source: str
    author: str | None = None
    model: str | None = None
    changeset: str | None = None
    op: str | None = None
    title: str = ""
    log_entry: str | None = None
    commit: str | None = None

    @property
    def when(self) -> str:
        """The date for people: ``2026-11-02 14:05``, or ``before <date>`` for the earliest known text."""
        return self.date.strftime("%Y-%m-%d %H:%M") if self.date is not None else "earlier (date unknown)"

    @property
    def day(self) -> str:
        """The day, ``2026-11-02`` (``earlier`` when unknown): what "restore version of <date>" names."""
        return self.date.date().isoformat() if self.date is not None else "earlier"

    @property
    def who(self) -> str:
        """The author and/or the model, for a list (``on disk`` for the current file, else ``unknown``)."""
        if self.source == "disk":
            return "on disk"
        bits = [b for b in (self.author, self.model) if b]
        return " · ".join(bits) if bits else "unknown"

    def as_dict(self, *, text: bool = False) -> dict:
        """JSON-ready data (``text`` included on request)."""
        data = {"path": self.path, "date": self.date.isoformat(timespec="seconds") if self.date else None,
                "source": self.source, "author": self.author,
                "model": self.model, "changeset": self.changeset, "op": self.op, "title": self.title,
                "log_entry": self.log_entry, "commit": self.commit, "deleted": self.text is None}
        if text:
            data["text"] = self.text
        return data


# ------------------------------------------------------------------ resolving
def history_path(vault: Vault, graph: LinkGraph, name: str) -> str:
    """The page ``name`` means: a path, title or alias of a page now, or the path of one since deleted.

    Raises:
        UnknownPage: No page has that name and no history knows that path.
    """
    found = graph.find_page(name)
    if found is not None:
        return found
    rel = str(name).strip().replace("\\", "/").strip("/")
    if rel and not rel.lower().endswith(".md"):
        rel += ".md"
    for candidate in dict.fromkeys([rel, vault.join_wiki(rel)]):
        if candidate and vault.is_page_path(candidate) and _has_history(vault, candidate):
            return candidate
    raise UnknownPage(f"no page named {name!r} (give a path, a title or an alias)")


def _has_history(vault: Vault, rel: str) -> bool:
    from wikitui.core.changes.git import GitError, is_git_vault, run_git
    from wikitui.core.changes.undo import list_records

    if is_git_vault(vault):
        try:
            return bool(run_git(vault, "--literal-pathspecs", "log", "-1", "--format=%H", "--", rel).stdout.strip())
        except GitError:
            pass
    return any(item.get("path") == rel for _rel, rec in list_records(vault) for item in rec["files"])


# ------------------------------------------------------------------ versions
def page_versions(vault: Vault, path: str) -> list[Version]:
    """Every version of the page at ``path`` known, newest first (see the module's docstring).

    Args:
        vault: The vault.
        path: The page's vault-relative path (:func:`history_path` resolves a name).
    """
    from wikitui.core.changes.git import GitError, is_git_vault

    use_git = is_git_vault(vault)
    versions: list[Version] | None = None
    if use_git:
        try:
            versions = _git_versions(vault, path)
        except GitError:
            versions = None
    if versions is None:
        versions = _record_versions(vault, path)
    _attach_log(versions, read_log(vault))
    versions.reverse()
    current = _current_version(vault, path, versions, use_git)
    return ([current] if current is not None else []) + versions


def changeset_of(subject: str, body: str) -> str | None:
    """The changeset id a commit message of wikitui's carries (None for any other commit)."""
    if not _SUBJECT.match(subject):
        return None
    found = _CHANGESET.search(body)
    return found.group(1) if found else None


def local_time(stamp: str) -> _dt.datetime | None:
    """An ISO timestamp as a naive local time (git's carry an offset; records are local already)."""
    try:
        moment = _dt.datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return None
    return moment.astimezone().replace(tzinfo=None) if moment.tzinfo is not None else moment


def _git_versions(vault: Vault, path: str) -> list[Version]:
    """The commits touching ``path`` (following renames), oldest first, each with the page's text then."""
    from wikitui.core.changes.git import run_git

    out = run_git(vault, "--literal-pathspecs", "log", "--follow", "--no-color", f"--format={LOG_FORMAT}",
                  "--name-status", "--", path).stdout
    found: list[tuple[Version, str | None]] = []
    for chunk in out.split("\x1e")[1:]:
        parts = chunk.split("\x1f")
        if len(parts) < 6:
            continue
        sha, stamp, author, subject, body, tail = parts[:6]
        status: list[str] = next((line.split("\t") for line in tail.splitlines() if "\t" in line), [])
        at = unquote_path(status[-1]) if status else path
        deleted = bool(status) and status[0].startswith("D")
        version = Version(at, local_time(stamp), None, "git", author=author or None, commit=sha, title=subject)
        _read_message(version, subject, body)
        found.append((version, None if deleted else f"{sha}:{at}"))
    texts = _blobs(vault, [spec for _v, spec in found if spec])
    for version, spec in found:
        version.text = texts.get(spec) if spec else None
    return [v for v, _spec in reversed(found)]


_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote_path(text: str) -> str:
    """A path as git prints it in ``--name-status`` (C-quoted when it holds odd characters), as it is."""
    if not (len(text) >= 2 and text[0] == text[-1] == '"'):
        return text
    out = bytearray()
    body, i = text[1:-1], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            octal = body[i + 1:i + 4]
            if len(octal) == 3 and all(c in "01234567" for c in octal):  # one byte of a UTF-8 character
                out.append(int(octal, 8))
                i += 4
                continue
            out.append(_C_ESCAPES.get(nxt, ord(nxt)) if nxt.isascii() else 92)
            i += 2
            continue
        out += ch.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _read_message(version: Version, subject: str, body: str) -> None:
    """The op, title and changeset id of a commit wikitui made (a person's commit keeps its subject)."""
    mine = _YOUR_EDITS.match(subject)
    if mine:
        version.title = f"your edits, committed before {mine.group(1)}"
        return
    m = _SUBJECT.match(subject)
    cs = _CHANGESET.search(body)
    if m and cs:
        version.op, version.title, version.changeset = m.group(1), m.group(2), cs.group(1)


def _blobs(vault: Vault, specs: list[str]) -> dict[str, str]:
    """``sha:path`` to the file's text there, read in one ``git cat-file --batch``.

    A path holding a line break cannot be a line of the batch: such a file is read by itself.
    """
    from wikitui.core.changes.git import GitError, run_git

    texts: dict[str, str] = {}
    for spec in [s for s in specs if "\n" in s or "\r" in s]:
        try:
            texts[spec] = decode_exact(run_git(vault, "show", spec).stdout.encode("utf-8", "surrogateescape"))
        except GitError:
            pass
    specs = [s for s in specs if s not in texts and "\n" not in s and "\r" not in s]
    if not specs:
        return texts
    raw = run_git(vault, "cat-file", "--batch", input=("\n".join(specs) + "\n").encode("utf-8", "surrogateescape"))
    data = raw.stdout.encode("utf-8", "surrogateescape")
    pos = 0
    for spec in specs:
        end = data.find(b"\n", pos)
        if end < 0:
            break
        header = data[pos:end].split()
        pos = end + 1
        if len(header) != 3 or header[1] != b"blob":
            continue  # "missing", or not a file
        size = int(header[2])
        texts[spec] = decode_exact(data[pos:pos + size])
        pos += size + 1
    return texts


def _record_versions(vault: Vault, path: str) -> list[Version]:
    """The versions wikitui's apply/undo records hold, oldest first (the earliest text known first of all)."""
    from wikitui.core.changes.undo import file_texts, list_records

    events: list[tuple[_dt.datetime, int, Version]] = []
    earliest: Version | None = None
    for seq, (_rel, rec) in enumerate(list_records(vault)):
        for item in rec["files"]:
            if item.get("path") != path:
                continue
            old, new = file_texts(item)
            cs, title, model = str(rec.get("changeset") or "") or None, str(rec.get("title") or ""), rec.get("model")
            applied = local_time(str(rec.get("applied_at") or ""))
            if earliest is None and not events and old is not None:  # the text before the first record known
                earliest = Version(path, None, old, "records", title="before wikitui's records")
            if applied is not None:
                events.append((applied, 2 * seq, Version(path, applied, new, "records", model=model, changeset=cs,
                                                         op=str(rec.get("op") or "edit"), title=title,
                                                         commit=rec.get("commit"))))
            undone = local_time(str(rec.get("undone_at") or "")) if rec.get("undone") else None
            if undone is not None:
                events.append((undone, 2 * seq + 1, Version(path, undone, old, "records", changeset=cs, op="undo",
                                                            title=title)))
    events.sort(key=lambda e: (e[0], e[1]))
    return ([earliest] if earliest is not None else []) + [v for _d, _s, v in events]


def _attach_log(versions: list[Version], entries: list[LogEntry]) -> None:
    """Give each version (oldest first) the log entry of its changeset: the nth apply of an id, the nth entry."""
    queues: dict[tuple[str, bool], deque[LogEntry]] = {}
    for entry in entries:
        if entry.changeset:
            queues.setdefault((entry.changeset, entry.op == "undo"), deque()).append(entry)
    for version in versions:
        if not version.changeset:
            continue
        queue = queues.get((version.changeset, version.op == "undo"))
        if queue:
            entry = queue.popleft()
            version.log_entry = entry.heading
            version.model = version.model or entry.model
            version.author = version.author or entry.author
            version.title = version.title or entry.title


def _current_version(vault: Vault, path: str, versions: list[Version], use_git: bool) -> Version | None:
    """The file as it is now, when it differs from the newest version (None when it does not)."""
    from wikitui.core.changes.transaction import text_of

    text = text_of(vault, path)
    newest = versions[0].text if versions else None
    if text is None or text == newest:
        return None
    try:
        mtime = _dt.datetime.fromtimestamp((vault.root / path).stat().st_mtime).replace(microsecond=0)
    except OSError:
        mtime = None
    title = "uncommitted edits" if use_git else ("edits not recorded by wikitui" if versions else "as it is now")
    return Version(path, mtime, text, "disk", title=title)


# ------------------------------------------------------------------ reading them
def version_at(versions: list[Version], day: _dt.date) -> Version | None:
    """The version the page had at the end of ``day`` (None when it did not exist then, as far as is known).

    Args:
        versions: A page's versions, newest first (:func:`page_versions`).
        day: The day.
    """
    for version in versions:
        if version.date is None or version.date.date() <= day:
            return version if version.text is not None else None
    return None


def text_at(vault: Vault, graph: LinkGraph, name: str, day: _dt.date) -> tuple[str, Version]:
    """The page ``name``'s text at the end of ``day``, and the version it comes from.

    Raises:
        UnknownPage: No page or history has that name.
        PageNotThen: The page did not exist that day.
    """
    path = history_path(vault, graph, name)
    versions = page_versions(vault, path)
    version = version_at(versions, day)
    if version is None or version.text is None:
        if version is None and versions and versions[-1].source == "disk":  # nothing says when it began
            raise PageNotThen(f"no version of {path} is known from {day.isoformat()}: its history starts with "
                              f"the file as it is now ({versions[-1].when})")
        raise PageNotThen(f"{path} did not exist on {day.isoformat()}")
    return version.text, version


def propose_restore(vault: Vault, graph: LinkGraph, store: PendingStore, path: str, version: Version) -> Changeset:
    """Propose the page back as it was in ``version``: a pending changeset (op ``edit``) to review.

    Raises:
        WikituiError: The version is a deletion, or the page already holds that text.
    """
    from wikitui.core.changes.builder import ChangesetBuilder

    if version.text is None:
        raise WikituiError(f"that version of {path} is its deletion; pick a version with text to restore")
    builder = ChangesetBuilder(vault, graph)
    reason = f"restore version of {version.day}"
    builder.new_page(path, version.text, reason)
    changeset = builder.build("edit", f"{reason} ({path})")
    if changeset is None:
        raise WikituiError(f"{path} already holds the version of {version.day}; nothing to restore")
    store.save(changeset)
    return changeset
