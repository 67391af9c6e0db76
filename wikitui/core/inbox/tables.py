"""The CSV exports of read-later apps, told apart by their header rows.

| export | its header holds | one item per |
| :- | :- | :- |
| Pocket (2024 on) | ``title, url, time_added, tags, status`` | link (page fetched) |
| Instapaper | ``URL, Title, Selection, Folder, Timestamp`` | link (page fetched) |
| Raindrop.io | ``id, title, note, excerpt, url, folder, tags, created`` | link (page fetched) |
| Readwise Reader | ``Title, URL, ID, Document tags, Saved date`` | document (page fetched) |
| Readwise highlights | ``Highlight, Book Title, Book Author, … Highlighted at`` | book: its highlights |
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from urllib.parse import quote

from wikitui.core.inbox.bookmarks import epoch_date
from wikitui.core.inbox.item import InboxError, InboxItem

#: (kind, columns its header must hold), the most specific first.
KINDS: tuple[tuple[str, frozenset[str]], ...] = (
    ("readwise", frozenset({"highlight", "book title"})),
    ("raindrop", frozenset({"id", "title", "url", "excerpt", "created"})),
    ("instapaper", frozenset({"url", "title", "selection", "folder", "timestamp"})),
    ("readwise-reader", frozenset({"title", "url", "saved date"})),
    ("pocket", frozenset({"title", "url", "time_added"})),
)


def header_kind(text: str) -> str | None:
    """Which export a CSV text is, from its first row; None when it is none of them."""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    try:
        row = next(csv.reader([first]), [])
    except csv.Error:
        return None
    names = {c.strip().casefold() for c in row}
    for kind, needed in KINDS:
        if needed <= names:
            return kind
    return None


def read_table(text: str, origin: Path, kind: str) -> list[InboxItem]:
    """The items of a CSV export of ``kind`` (see :func:`header_kind`).

    Raises:
        InboxError: the CSV cannot be read (a field past the limit, a NUL byte).
    """
    try:
        rows = [{(k or "").strip().casefold(): (v if isinstance(v, str) else "") for k, v in row.items()}
                for row in csv.DictReader(io.StringIO(text.lstrip("\ufeff")))]
    except csv.Error as exc:
        raise InboxError(f"{origin.name} is not readable CSV ({exc}); nothing was written") from None
    if kind == "readwise":
        return _books(rows, origin)
    items = []
    for row in rows:
        url = row.get("url", "").strip()
        if not url.lower().startswith(("http://", "https://")):
            continue
        items.append(_link_item(row, url, kind, str(origin)))
    return items


def _link_item(row: dict[str, str], url: str, kind: str, origin: str) -> InboxItem:
    quote_text = row.get("selection") or row.get("excerpt") or ""
    note = row.get("note", "")
    highlights = row.get("highlights", "")
    parts = [f"> {' '.join(quote_text.split())}" if quote_text.strip() else "", note.strip(), highlights.strip()]
    if kind == "pocket":
        tags, date = row.get("tags", "").split("|"), epoch_date(row.get("time_added", ""))
    elif kind == "instapaper":
        tags, date = [row.get("folder", ""), *row.get("tags", "").strip("[]").split(",")], \
            epoch_date(row.get("timestamp", ""))
    elif kind == "raindrop":
        tags, date = [row.get("folder", ""), *row.get("tags", "").split(",")], row.get("created", "")[:10]
    else:  # readwise-reader
        tags, date = row.get("document tags", "").strip("[]").split(","), row.get("saved date", "")[:10]
    return InboxItem(title=row.get("title", ""), url=url, kind=kind, origin=origin, date=date,
                     body="\n\n".join(p for p in parts if p), fetch_page=True,
                     tags=[t.strip().strip("'\"") for t in tags if t.strip().strip("'\"")])


def _books(rows: list[dict[str, str]], origin: Path) -> list[InboxItem]:
    """Readwise's highlights export: one item per book (or article), its highlights in order."""
    books: dict[tuple[str, str], list[dict[str, str]]] = {}
    for row in rows:
        if row.get("highlight", "").strip():
            books.setdefault((row.get("book title", "").strip(), row.get("book author", "").strip()), []).append(row)
    items = []
    for (title, author), marks in books.items():
        lines = []
        for mark in marks:
            lines.append("> " + "\n> ".join(mark["highlight"].strip().splitlines()))
            where = " ".join(x for x in (mark.get("location type", ""), mark.get("location", "")) if x.strip())
            if where:
                lines.append(f"({where.strip()})")
            if mark.get("note", "").strip():
                lines.append(f"Note: {mark['note'].strip()}")
            lines.append("")
        dates = sorted(m.get("highlighted at", "")[:10] for m in marks if m.get("highlighted at", "").strip())
        items.append(InboxItem(
            title=title, url=f"{origin.resolve().as_uri()}#{quote(title or 'untitled')}", kind="readwise",
            origin=str(origin), author=author, date=dates[-1] if dates else "", body="\n".join(lines),
            tags=sorted({t.strip() for m in marks for t in m.get("tags", "").split(",") if t.strip()}),
        ))
    return items
