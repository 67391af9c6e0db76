"""What changed since a day: the digest ``wikitui changes --since 7d`` prints (DESIGN §15).

It reads log.md (every changeset wikitui applied or undid: pages, model, id) and, in
a git vault, the commits since that day: wikitui's own give their entry its author,
and the others (a person's commits, pulled or made by hand) are listed as changes
of their own, with the pages and sources they touched.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field

from wikitui.core.vault.layout import Vault
from wikitui.core.vault.log_entries import read_log


@dataclass
class Change:
    """One change in the digest.

    Attributes:
        date: Its day.
        op: The log entry's operation (``ingest``, ``edit``, ``undo``...); ``commit`` for a git commit
            wikitui did not make.
        title: The log entry's title or the commit's subject.
        pages: The pages it touched (vault-relative).
        sources: The raw sources it added (a person's commit), or for an ingest the source's title.
        model: The model that proposed it.
        author: Who made or accepted it (git's author), when known.
        changeset: The changeset id.
        commit: The git commit.
    """

    date: _dt.date
    op: str
    title: str
    pages: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    model: str | None = None
    author: str | None = None
    changeset: str | None = None
    commit: str | None = None

    def as_dict(self) -> dict:
        """JSON-ready data."""
        return {"date": self.date.isoformat(), "op": self.op, "title": self.title, "pages": self.pages,
                "sources": self.sources, "model": self.model, "author": self.author,
                "changeset": self.changeset, "commit": self.commit}


@dataclass
class Digest:
    """The changes since a day, newest first, and what they add up to."""

    since: _dt.date
    changes: list[Change] = field(default_factory=list)

    @property
    def pages(self) -> list[str]:
        """Every page touched, sorted."""
        return sorted({p for c in self.changes for p in c.pages})

    @property
    def sources(self) -> list[str]:
        """The sources ingested or added, in the order they came."""
        return list(dict.fromkeys(s for c in reversed(self.changes) for s in c.sources))

    @property
    def authors(self) -> list[str]:
        """Who changed things: authors and models, sorted."""
        return sorted({w for c in self.changes for w in (c.author, c.model) if w})

    def as_dict(self) -> dict:
        """JSON-ready data."""
        return {"since": self.since.isoformat(), "changes": [c.as_dict() for c in self.changes],
                "pages": self.pages, "sources": self.sources, "authors": self.authors}


def changes_since(vault: Vault, since: _dt.date) -> Digest:
    """The digest of what changed from ``since`` (that day included) until now."""
    generated = {vault.index_path, vault.log_path}
    changes: list[Change] = []
    by_id: dict[str, list[Change]] = {}
    for entry in read_log(vault):
        if entry.date < since:
            continue
        change = Change(entry.date, entry.op, entry.title, [p for p in entry.pages if p not in generated],
                        [entry.title] if entry.op == "ingest" and entry.title else [], entry.model,
                        changeset=entry.changeset, author=entry.author)
        changes.append(change)
        if entry.changeset:
            by_id.setdefault(entry.changeset, []).append(change)
    for commit in _commits_since(vault, since):
        sha, day, author, subject, changeset, touched = commit
        mine = [c for c in by_id.get(changeset or "", []) if c.commit is None]
        if mine:  # wikitui's commit: its log entry learns who (unless the entry named them itself)
            mine[0].author, mine[0].commit = mine[0].author or author, sha
            continue
        pages = [p for _s, p in touched if vault.is_page_path(p) and p not in generated]
        added = [p for s, p in touched if s.startswith("A") and vault.is_raw(p)]
        if pages or added:
            changes.append(Change(day, "commit", subject, pages, added, author=author, commit=sha))
    return Digest(since, _newest_first(changes))


def _newest_first(changes: list[Change]) -> list[Change]:
    """Newest day first, and within a day the latest first (log.md appends, so file order is time order)."""
    days: dict[_dt.date, list[Change]] = {}
    for change in changes:
        days.setdefault(change.date, []).append(change)
    return [c for day in sorted(days, reverse=True) for c in reversed(days[day])]


def _commits_since(vault: Vault, since: _dt.date) -> list[tuple[str, _dt.date, str, str, str | None, list]]:
    """(sha, day, author, subject, changeset id, [(status, path)]) of each commit since, oldest first."""
    from wikitui.core.changes.git import GitError, is_git_vault, run_git
    from wikitui.core.changes.versions import LOG_FORMAT, changeset_of, local_time, unquote_path

    if not is_git_vault(vault):
        return []
    try:
        out = run_git(vault, "log", "--reverse", "--no-color", "--no-renames", f"--since={since.isoformat()} 00:00",
                      f"--format={LOG_FORMAT}", "--name-status").stdout
    except GitError:
        return []
    rows = []
    for chunk in out.split("\x1e")[1:]:
        parts = chunk.split("\x1f")
        if len(parts) < 6:
            continue
        sha, stamp, author, subject, body, tail = parts[:6]
        moment = local_time(stamp)
        if moment is None or moment.date() < since:
            continue
        fields = [line.split("\t") for line in tail.splitlines() if "\t" in line]
        touched = [(f[0], unquote_path(f[-1])) for f in fields]
        rows.append((sha, moment.date(), author, subject, changeset_of(subject, body), touched))
    return rows
