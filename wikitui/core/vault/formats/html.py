"""HTML reduced to its article, as markdown, through trafilatura.

Menus, cookie banners, scripts, styles, related-story boxes and footers are left
out; headings, paragraphs, lists, tables and links are kept. A page in which
trafilatura finds no article (a form, a bare list) falls back to all of its visible
text, with a note saying so. Used both for an ``.html`` file in raw/ and by ``clip``.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

from wikitui.core.vault.formats.conversion import MAX_HTML_BYTES, Conversion, failed, finish, human_size

# Relative targets of markdown links and images, made absolute when the page's URL is known.
_MD_LINK = re.compile(r"(\]\()([^)\s]+)(\))")


@dataclass(slots=True)
class Article:
    """What a web page holds: its title, byline and article text as markdown.

    Attributes:
        title: The page's title ("" when none was found).
        markdown: The article as markdown (headings, lists, tables, links).
        author: The byline when the page states one, else "".
        date: The publication date (``YYYY-MM-DD``) when the page states one, else "".
        whole_page: True when no article was found and ``markdown`` is all the page's text.
    """

    title: str
    markdown: str
    author: str = ""
    date: str = ""
    whole_page: bool = False


def extract_article(data: bytes | str, url: str | None = None) -> Article | None:
    """The article of an HTML page, or None when the page has no text at all.

    Args:
        data: The page's HTML (bytes: trafilatura finds the encoding itself).
        url: Where the page came from; relative links are made absolute against it.
    """
    import trafilatura
    from trafilatura.metadata import extract_metadata
    from trafilatura.utils import load_html

    for name in ("trafilatura", "htmldate", "courlan", "justext"):
        logging.getLogger(name).setLevel(logging.ERROR)  # they warn on stderr about odd pages
    if not data or not data.strip():
        return None
    tree = load_html(data)
    if tree is None:
        return None
    try:
        meta = extract_metadata(tree, default_url=url)
    except Exception:  # noqa: BLE001 - metadata is a nicety; the text is what matters
        meta = None
    text = trafilatura.extract(
        data, url=url, output_format="markdown", include_links=True, include_tables=True,
        include_formatting=True, include_comments=False, with_metadata=False,
    )
    whole = False
    if not text or not text.strip():
        text = trafilatura.html2txt(data) or ""
        whole = True
    if not text.strip():
        return None
    if url:
        text = _MD_LINK.sub(lambda m: m.group(1) + urljoin(url, m.group(2)) + m.group(3), text)
    title = (getattr(meta, "title", None) or "").strip()
    author = (getattr(meta, "author", None) or "").strip()
    date = (getattr(meta, "date", None) or "").strip()
    return Article(" ".join(title.split()), text.strip(), author, date, whole)


def convert_html(path: Path) -> Conversion:
    """Convert the HTML file at ``path``: its article, at most :data:`MAX_HTML_BYTES` of it read."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            data = fh.read(MAX_HTML_BYTES)
    except OSError as exc:
        return failed("html", f"{path.name} could not be read: {exc.strerror or exc}", cacheable=False)
    notes = []
    if size > len(data):
        notes.append(f"only the first {human_size(len(data))} of {human_size(size)} were read")
    try:
        article = extract_article(data)
    except Exception as exc:  # noqa: BLE001 - a parser failure is "no readable text", never a traceback
        return failed("html", f"{path.name} could not be read as HTML ({type(exc).__name__})")
    if article is None:
        return failed("html", f"{path.name} has no text")
    if article.whole_page:
        notes.append("no article found in the page: this is all of its text")
    body = article.markdown
    if article.title and not body.lstrip().startswith("#"):
        body = f"# {article.title}\n\n{body}"
    return finish("html", body, notes=notes, title=article.title or None)
