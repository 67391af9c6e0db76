"""Reading log.md back: its entries as records (DESIGN §2, §15 "History").

:mod:`wikitui.core.vault.log_md` writes the entries; this module reads them, for
a page's history and the ``wikitui changes`` digest. An entry starts
``## [YYYY-MM-DD] op | Title``; its ``- key: value`` lines give the pages (as
wikilinks), the model and the changeset id. Anything else in the file (the
user's notes, an older agent's free-form entries) is skipped, never an error.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field

from wikitui.core.vault.files import decode_text, read_bytes
from wikitui.core.vault.layout import Vault

_HEADING = re.compile(r"^## \[(\d{4}-\d{2}-\d{2})\]\s+(\S+)\s*(?:\|\s*(.*))?$")
_FIELD = re.compile(r"^- ([a-z]+): ?(.*)$")
_WIKILINK = re.compile(r"\[\[([^\]|#]+)")


@dataclass
class LogEntry:
    """One log.md entry.

    Attributes:
        date: The entry's day.
        op: The operation (``ingest``, ``query``, ``lint``, ``edit``, ``undo``...).
        title: What it was about.
        heading: The entry's heading line, as written.
        pages: The vault-relative paths it names (``.md`` added back).
        model: The model that proposed the change (None when not logged).
        author: Who made or accepted it (None when not logged).
        changeset: The changeset id (for an undo: the changeset undone).
        fields: Every ``- key: value`` line, by key.
    """

    date: _dt.date
    op: str
    title: str
    heading: str
    pages: list[str] = field(default_factory=list)
    model: str | None = None
    changeset: str | None = None
    author: str | None = None
    fields: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict:
        """The entry as JSON-ready data."""
        return {"date": self.date.isoformat(), "op": self.op, "title": self.title, "pages": self.pages,
                "model": self.model, "changeset": self.changeset, "author": self.author}


def _page_path(target: str) -> str:
    target = target.strip()
    return target if target.lower().endswith(".md") else target + ".md"


def parse_log(text: str) -> list[LogEntry]:
    """The entries of a log.md text, in file order (oldest first, as wikitui appends them)."""
    entries: list[LogEntry] = []
    current: LogEntry | None = None
    for line in text.splitlines():
        m = _HEADING.match(line.rstrip())
        if m:
            try:
                day = _dt.date.fromisoformat(m.group(1))
            except ValueError:
                current = None
                continue
            current = LogEntry(day, m.group(2), (m.group(3) or "").strip(), line.rstrip())
            entries.append(current)
            continue
        if line.startswith("#"):
            current = None
            continue
        f = _FIELD.match(line.strip()) if current is not None else None
        if f is None or current is None:
            continue
        key, value = f.group(1), f.group(2).strip()
        current.fields.setdefault(key, value)
        if key == "pages":
            current.pages = [_page_path(t) for t in _WIKILINK.findall(value)]
        elif key == "model":
            current.model = value or None
        elif key == "author":
            current.author = value or None
        elif key == "changeset":
            current.changeset = value or None
    return entries


def read_log(vault: Vault) -> list[LogEntry]:
    """The entries of the vault's log.md (none when it is missing or unreadable)."""
    try:
        text, _ok = decode_text(read_bytes(vault.root / vault.log_path))
    except OSError:
        return []
    return parse_log(text)
