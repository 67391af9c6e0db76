"""One thing the inbox may bring in, whatever it came from, and the keys it is known by."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from wikitui.core.base.errors import WikituiError

#: Query parameters that only say where a link was shared from (dropped when comparing addresses).
_TRACKING = re.compile(r"^(utm_[a-z]+|fbclid|gclid|mc_cid|mc_eid|ref_src)$", re.IGNORECASE)


class InboxError(WikituiError):
    """What was given is not something the inbox reads (a user error); nothing was written."""


@dataclass
class InboxItem:
    """An item of a feed or an export, before it is written.

    Attributes:
        title: Its title ("" when it has none: the writer makes one).
        url: Its address, or the identity of where it came from when it has none (``mid:`` for a mail,
            ``file://…#…`` for a chat day or a transcript); "" when even that is unknown.
        author: Who wrote it ("" when not said).
        date: When it was published or sent, ``YYYY-MM-DD`` or an ISO date-time ("" when not said).
        body: Its text as markdown ("" when only the page at ``url`` holds it).
        kind: What it came from (``rss``, ``atom``, ``bookmarks``, ``pocket``, ``mbox``, ``slack``...).
        origin: The feed's address or the export file it was read from.
        fetch_page: Whether the page at ``url`` should be fetched for its article (the export or the feed
            entry holds only a summary, a note or nothing).
        tags: Tags or folders the export gave it.
    """

    title: str
    url: str
    kind: str
    origin: str
    author: str = ""
    date: str = ""
    body: str = ""
    fetch_page: bool = False
    tags: list[str] = field(default_factory=list)


def url_key(url: str) -> str:
    """The form of ``url`` two addresses of the same item share: no fragment, no tracking parameters,
    the scheme and host in lower case, no trailing ``/``."""
    url = url.strip()
    if not url:
        return ""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.scheme.lower() not in ("http", "https"):
        return url  # mid:, file://…#day: the whole of it is the identity
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _TRACKING.match(k)])
    netloc = parts.netloc.lower()
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/") or "", query, ""))


def content_key(text: str) -> str:
    """A hash of ``text`` as a reader sees it: spacing and letter case do not count."""
    words = " ".join(text.casefold().split())
    return hashlib.sha256(words.encode("utf-8", "surrogatepass")).hexdigest()


#: A body shorter than this many words is hashed with its title (two different one-line chat days
#: saying "ok" are not the same item).
SHORT_WORDS = 50


def item_key(title: str, body: str) -> str:
    """The content hash the ledger knows an item's text by (see :data:`SHORT_WORDS`)."""
    if len(body.split()) < SHORT_WORDS:
        return content_key(f"{title}\n{body}")
    return content_key(body)
