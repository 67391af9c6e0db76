"""RSS and Atom feeds (feedparser): each entry an :class:`~wikitui.core.inbox.item.InboxItem`.

A feed is fetched the way ``clip`` fetches a page (:func:`~wikitui.core.vault.formats.fetch.open_url`:
a total deadline however slowly the bytes come, a size cap, an error status reported as
one line). feedparser reads what the web serves, entities and relative links included:
it is told the feed's address, so a relative ``<link>`` or ``href`` becomes absolute. A
document in which it finds no feed at all is one clear :class:`FeedError`.
"""

from __future__ import annotations

import re
import time
from urllib.parse import urljoin

from wikitui.core.base.errors import WikituiError
from wikitui.core.inbox.item import InboxItem
from wikitui.core.inbox.pages import html_fragment_markdown
from wikitui.core.vault.formats.fetch import TIMEOUT, open_url, shown

#: Seconds one feed may take, all of it (connecting, redirects, headers, body).
FEED_TOTAL_S = 20.0
#: The largest feed read.
MAX_FEED_BYTES = 10 * 1024 * 1024
#: An entry whose own text is shorter than this many words is a summary: its page is fetched.
FULL_TEXT_WORDS = 150

_TAG = re.compile(r"<[^>]+>")


class FeedError(WikituiError):
    """A feed could not be fetched or read; the message is one line naming it."""

    exit_code = 3


def fetch_feed(url: str, *, total: float = FEED_TOTAL_S) -> tuple[str, bytes]:
    """The feed's address (after redirects) and its bytes.

    Raises:
        FeedError: network, the deadline passed, an error status, too large, not an http(s) address.
    """
    from wikitui.core.vault.formats.fetch import BadAddress, FetchError, TooLarge

    try:
        with open_url(url, timeout=min(TIMEOUT, total), total=total) as response:
            return response.url, response.read(MAX_FEED_BYTES)
    except (FetchError, BadAddress, TooLarge) as exc:
        raise FeedError(f"feed {_reason(str(exc))}") from None


def parse_feed(data: bytes, url: str) -> tuple[str, list[InboxItem]]:
    """The feed's kind (``rss`` or ``atom``) and its entries as items.

    Raises:
        FeedError: no feed in ``data`` (an HTML page, broken XML with no entries, nothing).
    """
    import feedparser

    parsed = feedparser.parse(data, response_headers={"content-location": url})
    version = str(parsed.get("version") or "")
    kind = "atom" if version.startswith("atom") else "rss"
    feed = parsed.get("feed") or {}
    feed_author = _text(feed.get("author") or "")
    items = [item for entry in parsed.get("entries") or []
             if (item := _entry_item(entry, url, kind, feed_author)) is not None]
    if not items and (parsed.get("bozo") or not version):
        why = _bozo(parsed) if version else "no RSS or Atom in it"
        raise FeedError(f"feed {shown(url)} is not a readable RSS or Atom feed ({why}); nothing was written")
    return kind, items


def _entry_item(entry, feed_url: str, kind: str, feed_author: str) -> InboxItem | None:
    link = str(entry.get("link") or "").strip()
    link = urljoin(feed_url, link) if link else ""
    if not link:
        ident = str(entry.get("id") or "").strip()
        link = ident if ident.startswith(("http://", "https://")) else ""
    html = ""
    for content in entry.get("content") or []:
        value = str(content.get("value") or "")
        if len(value) > len(html):
            html = value
    summary = str(entry.get("summary") or "")
    body = html_fragment_markdown(html or summary, base=link or feed_url)
    detail = str((entry.get("title_detail") or {}).get("type") or "")
    title = _text(str(entry.get("title") or ""), html=detail in ("text/html", "application/xhtml+xml"))
    if not (title or body or link):
        return None
    return InboxItem(
        title=title, url=link, kind=kind, origin=feed_url, author=_text(str(entry.get("author") or "")) or feed_author,
        date=_date(entry), body=body, fetch_page=bool(link) and len(body.split()) < FULL_TEXT_WORDS,
        tags=[str(t.get("term")) for t in entry.get("tags") or [] if t.get("term")],
    )


def _text(value: str, html: bool = False) -> str:
    """A title or a name as one line of text (feedparser decodes the entities; a title in HTML loses its tags)."""
    if html:
        import html as _html

        value = _html.unescape(_TAG.sub("", value))
    return " ".join(value.split())


def _date(entry) -> str:
    for key in ("published_parsed", "updated_parsed", "created_parsed"):
        value = entry.get(key)
        if value:
            try:
                return time.strftime("%Y-%m-%d", value)
            except (TypeError, ValueError):
                continue
    return ""


def _bozo(parsed) -> str:
    exc = parsed.get("bozo_exception")
    if exc is None:
        return "no entries"
    text = " ".join(str(exc).split())[:120]
    return text or type(exc).__name__


def _reason(text: str) -> str:
    return text.removesuffix("; nothing was written")
