"""Bookmark files: a browser's bookmarks HTML (the Netscape format every browser and Raindrop export),
and the HTML exports of Pocket and Instapaper. Each link is an item whose page is fetched.

Read with the standard library's :class:`html.parser.HTMLParser`, which never raises on
bad markup: a folder (``<H3>``, or a Pocket/Instapaper section ``<h1>``) becomes a tag,
``ADD_DATE``/``time_added`` (seconds since 1970) the date, and a ``<DD>`` description
the item's text until the page is fetched.
"""

from __future__ import annotations

import datetime as _dt
from html.parser import HTMLParser

from wikitui.core.inbox.item import InboxItem


class _Links(HTMLParser):
    """Collects ``(href, text, attrs, folders, note)`` for every ``<a href>``."""

    def __init__(self, sections: bool) -> None:
        super().__init__(convert_charrefs=True)
        self._sections = sections
        self.links: list[dict] = []
        self.folders: list[str] = []
        self._pending_folder: str | None = None
        self._heading: list[str] | None = None
        self._section = ""
        self._anchor: dict | None = None
        self._note: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        tag = tag.lower()
        if tag in ("h3", "h1", "h2"):
            self._heading = []
            self._close_note()
        elif tag == "dl":
            self.folders.append(self._pending_folder or "")
            self._pending_folder = None
        elif tag == "a":
            self._close_note()
            values = {k.lower(): (v or "") for k, v in attrs}
            if values.get("href"):
                self._anchor = {"href": values["href"].strip(), "attrs": values, "text": []}
        elif tag == "dd" and self.links:
            self._note = []
        elif tag == "dt":
            self._close_note()

    def handle_endtag(self, tag: str) -> None:
        tag = tag.lower()
        if tag in ("h3", "h1", "h2") and self._heading is not None:
            name = " ".join("".join(self._heading).split())
            if tag == "h3":
                self._pending_folder = name
            else:
                self._section = name
            self._heading = None
        elif tag == "dl" and self.folders:
            self.folders.pop()
        elif tag == "a" and self._anchor is not None:
            anchor, self._anchor = self._anchor, None
            folders = [f for f in self.folders if f]
            if self._section and self._sections:
                folders = [self._section, *folders]
            self.links.append({"href": anchor["href"], "text": " ".join("".join(anchor["text"]).split()),
                               "attrs": anchor["attrs"], "folders": folders, "note": ""})

    def handle_data(self, data: str) -> None:
        if self._anchor is not None:
            self._anchor["text"].append(data)
        elif self._heading is not None:
            self._heading.append(data)
        elif self._note is not None:
            self._note.append(data)

    def _close_note(self) -> None:
        if self._note is not None and self.links:
            note = " ".join("".join(self._note).split())
            if note:
                self.links[-1]["note"] = note
        self._note = None

    def close(self) -> None:
        super().close()
        self._close_note()


def read_bookmarks(text: str, origin: str, kind: str = "bookmarks") -> list[InboxItem]:
    """Every http(s) link of a bookmarks HTML file (or a Pocket/Instapaper HTML export) as an item."""
    parser = _Links(sections=kind != "bookmarks")  # Pocket's "Unread"/"Read Archive"; a browser's "Bookmarks"
    parser.feed(text)
    parser.close()
    items = []
    for link in parser.links:
        href = link["href"]
        if not href.lower().startswith(("http://", "https://")):
            continue  # javascript: bookmarklets, place: queries, file: links
        attrs = link["attrs"]
        tags = [t.strip() for t in attrs.get("tags", "").split(",") if t.strip()]
        note = link["note"]
        items.append(InboxItem(
            title=link["text"], url=href, kind=kind, origin=origin,
            date=epoch_date(attrs.get("add_date") or attrs.get("time_added") or ""),
            body=f"> {note}\n" if note else "", fetch_page=True, tags=[*link["folders"], *tags],
        ))
    return items


def epoch_date(value: str) -> str:
    """``YYYY-MM-DD`` from seconds since 1970 (milli- or microseconds too, as some browsers write), else ""."""
    try:
        seconds = float(value.strip())
    except ValueError:
        return ""
    while seconds > 1e11:  # milliseconds, microseconds
        seconds /= 1000
    try:
        return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc).date().isoformat() if seconds > 0 else ""
    except (OverflowError, OSError, ValueError):
        return ""
