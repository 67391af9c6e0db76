"""The article at an item's address, fetched the way ``wikitui clip`` fetches (a total deadline, a size cap)."""

from __future__ import annotations

from wikitui.core.vault.formats.clip import ARTICLE_TYPES, MAX_PAGE_BYTES
from wikitui.core.vault.formats.fetch import TIMEOUT, open_url
from wikitui.core.vault.formats.html import Article

#: Seconds one page may take, all of it (connecting, redirects, headers, body).
PAGE_TOTAL_S = 15.0


def fetch_article(url: str, *, total: float = PAGE_TOTAL_S) -> tuple[str, Article | None]:
    """The address the page came from (after redirects) and its article (None: not a page with text).

    Raises:
        fetch.FetchError, fetch.BadAddress, fetch.TooLarge: as ``clip`` (the caller keeps what it has).
    """
    from wikitui.core.vault.files import decode_text, is_binary
    from wikitui.core.vault.formats.html import extract_article

    with open_url(url, timeout=min(TIMEOUT, total), total=total) as page:
        kind = page.content_type
        if kind not in ARTICLE_TYPES and kind:
            return page.url, None
        data = page.read(MAX_PAGE_BYTES)
        if kind in ("text/plain", "text/markdown"):
            if is_binary(data):
                return page.url, None
            return page.url, Article("", decode_text(data)[0])
        return page.url, extract_article(data, url=page.url)


def html_fragment_markdown(html: str, base: str = "") -> str:
    """A feed entry's or a mail's HTML as markdown (trafilatura; all its text when no article is found)."""
    from wikitui.core.vault.formats.html import extract_article

    if not html.strip():
        return ""
    article = extract_article(f"<html><body><article>{html}</article></body></html>", url=base or None)
    return article.markdown if article is not None else ""
