"""``wikitui clip``: a web page or a document into raw/ (DESIGN §9).

This module is the ONE place in wikitui that adds files to raw/, and it only ever
adds: :func:`add_to_raw` writes a complete temporary file and then hard-links it
under a name that does not exist yet (``link`` fails rather than replace), so a
file already in raw/ is never modified, replaced or truncated, even by a clip
racing another. A name that is taken gets a number: ``slug.md``, ``slug-2.md``...

An address already in raw/ (a clip whose ``source_url`` is it) is not fetched again
silently: :class:`AlreadyClipped` names the file, and ``refresh=True`` adds a new
copy beside it named for the day (``slug-2026-12-02.md``); the old one stays.

A web page becomes ``raw/<slug>.md``: its article as markdown under frontmatter
with ``title``, ``source_url`` and ``clipped`` (the date). A document type that
wikitui converts (PDF, Office, CSV, JSON, images) fetched from the web, or a local
file, is saved as it is, under its own suffix.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shutil
import tempfile
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.files import is_binary
from wikitui.core.vault.formats.conversion import MAX_FILE_BYTES, clean_text, human_size
from wikitui.core.vault.formats.fetch import TIMEOUT, open_url, shown
from wikitui.core.vault.formats.kinds import KINDS

#: An HTML or text page larger than this is not an article (and is not read further).
MAX_PAGE_BYTES = 10 * 1024 * 1024
#: A document fetched from the web (a PDF...) may be this large.
MAX_DOCUMENT_BYTES = 100 * 1024 * 1024
#: Media types turned into an article.
ARTICLE_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "text/markdown")
#: Media types saved as the document they are, with the suffix they get.
DOCUMENT_TYPES = {
    "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "text/csv": ".csv", "text/tab-separated-values": ".tsv",
    "application/json": ".json", "application/x-ndjson": ".jsonl",
    "image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
}
#: Text files a local clip copies besides the converted kinds.
TEXT_SUFFIXES = (".md", ".markdown", ".txt")
_SLUG_MAX = 80


class ClipError(WikituiError):
    """What was given cannot be clipped (a user error); nothing was written."""


class AlreadyClipped(ClipError):
    """The address is already in raw/ (``path``); nothing was written. ``refresh=True`` adds a new copy."""

    def __init__(self, url: str, path: str) -> None:
        super().__init__(f"{shown(url)} is already in raw/ as {path}; `wikitui clip --refresh URL` adds a "
                         "fresh copy beside it; nothing was written")
        self.url = url
        self.path = path


@dataclass(slots=True)
class ClipResult:
    """What a clip added.

    Attributes:
        path: The new file, vault-relative (``raw/glacier-retreat.md``).
        title: The article's title ("" for a document).
        kind: ``article`` (a web page made markdown) or ``document`` (a file saved as it is).
        source: The address (after redirects) or the file it came from.
    """

    path: str
    title: str
    kind: str
    source: str


def slugify(text: str, fallback: str = "clip") -> str:
    """A file-name stem from any text: lower-case words joined by ``-`` (letters of any script kept)."""
    text = unicodedata.normalize("NFKC", clean_text(text)).lower()
    slug = re.sub(r"[\W_]+", "-", text).strip("-")
    if len(slug) > _SLUG_MAX:
        slug = slug[:_SLUG_MAX].rsplit("-", 1)[0] or slug[:_SLUG_MAX]
    return slug.strip("-") or fallback


# ------------------------------------------------------------ the raw/ writer
def add_to_raw(vault, stem: str, suffix: str, write: Callable[[BinaryIO], object], *, under: str = "") -> str:
    """Add a NEW file to raw/ (or to its folder ``under``, e.g. ``inbox``) and return its vault-relative path.

    The only write to raw/ in wikitui (the inbox adds its items through it too).

    ``write`` fills a temporary file (a dot-file in raw/, which wikitui never reads);
    once it is complete and synced it is hard-linked as ``stem + suffix``, or
    ``stem-2 + suffix``... at the first name that is free. ``os.link`` fails when the
    name exists, so no existing file is ever replaced. Where hard links are not
    supported, the name is created with ``O_EXCL`` (which fails the same way).
    """
    raw = vault.raw_dir / under if under else vault.raw_dir
    raw.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".wikitui-clip-", suffix=".tmp", dir=raw)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a source is as readable as any file the user makes
        for n in range(1, 10_000):
            name = f"{stem}{suffix}" if n == 1 else f"{stem}-{n}{suffix}"
            try:
                _link_new(tmp, raw / name)
            except FileExistsError:
                continue
            _sync_folder(raw)
            return vault.rel(raw / name)
        raise ClipError(f"no free name for {stem}{suffix} in raw/")
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _link_new(tmp: str, target: Path) -> None:
    """Make ``target`` hold ``tmp``'s bytes; FileExistsError when ``target`` exists (never replaced)."""
    try:
        os.link(tmp, target)
        return
    except FileExistsError:
        raise
    except OSError:
        pass  # no hard links here (some network and FAT file systems): create exclusively instead
    out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(out, "wb") as dst, open(tmp, "rb") as src:
            shutil.copyfileobj(src, dst)
            dst.flush()
            os.fsync(dst.fileno())
    except BaseException:
        os.unlink(target)  # ours: created exclusively a moment ago
        raise


def _sync_folder(folder: Path) -> None:
    try:
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


# ------------------------------------------------------------ web pages
def article_markdown(title: str, url: str, clipped: _dt.date, body: str, *, author: str = "",
                     published: str = "") -> str:
    """The text of a clipped page: YAML frontmatter (``title``, ``source_url``, ``clipped``...) and the article."""
    import yaml

    meta: dict[str, object] = {"title": title, "source_url": url, "clipped": clipped}
    if author:
        meta["author"] = author
    if published:
        meta["published"] = published
    head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=10_000, default_flow_style=False)
    body = clean_text(body).strip("\n")
    if title and not body.lstrip().startswith("#"):
        body = f"# {title}\n\n{body}"
    return f"---\n{head}---\n\n{body}\n"


def _same_address(a: str, b: str) -> bool:
    """Whether two addresses name the same page (a fragment and a trailing ``/`` aside)."""
    def norm(url: str) -> str:
        return url.strip().split("#", 1)[0].rstrip("/")

    return norm(a) == norm(b)


def clipped_sources(vault) -> Iterator[tuple[str, str]]:
    """``(source_url, file)`` for each markdown file in raw/ (vault-relative) whose frontmatter names its address.

    Only the frontmatter of raw/'s markdown files is read (a clip's is its first lines).
    """
    pattern = re.compile(r"^source_url:\s*['\"]?(.*?)['\"]?\s*$", re.MULTILINE)
    raw = vault.raw_dir
    if not raw.is_dir():
        return
    for path in sorted(raw.rglob("*.md")):
        if any(part.startswith(".") for part in path.relative_to(raw).parts):
            continue
        try:
            with open(path, "rb") as fh:
                head = fh.read(4096).decode("utf-8", "replace")
        except OSError:
            continue
        if not head.startswith("---"):
            continue
        end = head.find("\n---", 3)
        for found in pattern.findall(head[: end if end != -1 else len(head)]):
            yield found, vault.rel(path)


def find_clipped(vault, *urls: str) -> str | None:
    """The raw/ file (vault-relative) an earlier clip of any of ``urls`` made, by its ``source_url``; else None."""
    for found, rel in clipped_sources(vault):
        if any(_same_address(found, url) for url in urls):
            return rel
    return None


def _refreshed_stem(existing: str, today: _dt.date) -> str:
    """``slug-2026-12-02`` for a refresh of ``raw/slug.md`` (or of an earlier ``raw/slug-2026-11-01.md``)."""
    stem = re.sub(r"-\d{4}-\d{2}-\d{2}$", "", Path(existing).stem) or Path(existing).stem
    return f"{stem}-{today.isoformat()}"


def clip_url(vault, url: str, *, name: str | None = None, today: _dt.date | None = None,
             timeout: float | None = None, max_page_bytes: int = MAX_PAGE_BYTES,
             max_document_bytes: int = MAX_DOCUMENT_BYTES, refresh: bool = False) -> ClipResult:
    """Fetch ``url`` and add it to raw/: a web page as ``<slug>.md``, a document as itself.

    Args:
        vault: The vault (:class:`wikitui.core.vault.layout.Vault`).
        url: An http(s) address.
        name: The file-name stem to use (made safe); default: the page's title or the URL's file name.
        today: The ``clipped`` date (default: today).
        refresh: When the address is already in raw/, add a new copy beside it, named for ``today``
            (``slug-2026-12-02.md``), instead of refusing.
        timeout: Seconds for connecting and between reads (default :data:`fetch.TIMEOUT`); the whole
            fetch has the total deadline :data:`fetch.TOTAL_S` besides.
        max_page_bytes: The largest web page read.
        max_document_bytes: The largest document saved.

    Raises:
        AlreadyClipped: the address (or the one it redirects to) is in raw/ already and ``refresh`` is False.
        ClipError: a type wikitui does not take, a page with no text (exit status 2).
        fetch.FetchError: network, timeout, the total deadline passed, HTTP error status, too many
            redirects (exit status 3).
        fetch.TooLarge: over the cap (exit status 2). In every case nothing is written.
    """
    today = today or _dt.date.today()
    existing = find_clipped(vault, url)
    if existing is not None and not refresh:
        raise AlreadyClipped(url, existing)
    with open_url(url, timeout=timeout or TIMEOUT) as page:
        if existing is None and page.url != url:  # the address it redirects to may be in raw/
            existing = find_clipped(vault, page.url)
            if existing is not None and not refresh:
                raise AlreadyClipped(page.url, existing)
        if existing is not None and not name:
            name = _refreshed_stem(existing, today)
        kind = page.content_type
        if kind in ARTICLE_TYPES or (not kind and _suffix(page.filename) in (".html", ".htm")):
            data = page.read(max_page_bytes)
            return _save_article(vault, page.url, data, kind, name, today)
        suffix = DOCUMENT_TYPES.get(kind)
        if suffix is None and kind in ("application/octet-stream", "binary/octet-stream", ""):
            suffix = _suffix(page.filename) if _suffix(page.filename) in KINDS else None
        if suffix is None:
            raise ClipError(f"{shown(page.url)} is {kind or 'of no stated type'}: wikitui clips web pages and "
                            "documents it reads (PDF, DOCX, PPTX, XLSX, CSV, JSON, images); nothing was written")
        stem = slugify(name or Path(page.filename).stem or "", fallback="document")

        def write(fh: BinaryIO) -> None:
            for chunk in page.chunks(max_document_bytes):
                fh.write(chunk)

        return ClipResult(add_to_raw(vault, stem, suffix, write), "", "document", page.url)


def _suffix(filename: str) -> str:
    return os.path.splitext(filename)[1].lower()


def _save_article(vault, url: str, data: bytes, kind: str, name: str | None, today: _dt.date) -> ClipResult:
    from wikitui.core.vault.formats.html import extract_article

    if kind in ("text/plain", "text/markdown"):
        from wikitui.core.vault.files import decode_text

        if is_binary(data):
            raise ClipError(f"{shown(url)} says it is text but holds binary data; nothing was written")
        text = decode_text(data)[0]
        title, body, author, published = "", text, "", ""
    else:
        article = extract_article(data, url=url)
        if article is None:
            raise ClipError(f"{shown(url)} has no text to clip; nothing was written")
        title, body, author, published = article.title, article.markdown, article.author, article.date
    if not body.strip():
        raise ClipError(f"{shown(url)} has no text to clip; nothing was written")
    title = " ".join(clean_text(title).split())
    stem = slugify(name or title or _url_words(url), fallback="clip")
    text = article_markdown(title, url, today, body, author=author, published=published)
    rel = add_to_raw(vault, stem, ".md", lambda fh: fh.write(text.encode("utf-8")))
    return ClipResult(rel, title, "article", url)


def _url_words(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    tail = parts.path.rstrip("/").rsplit("/", 1)[-1]
    return os.path.splitext(tail)[0] or parts.hostname or ""


# ------------------------------------------------------------ local files
def clip_file(vault, source: Path | str, *, name: str | None = None) -> ClipResult:
    """Copy a local document into raw/ under a name that is free (the original is not touched).

    Raises:
        ClipError: not a file, a type wikitui does not read, already in raw/, or too large.
    """
    src = Path(source).expanduser()
    if not src.is_file():
        raise ClipError(f"no such file: {src} (a web address starts with http:// or https://)")
    real = src.resolve()
    raw = vault.raw_dir.resolve()
    if real.is_relative_to(raw):
        raise ClipError(f"{src} is already in raw/")
    suffix = src.suffix.lower()
    if suffix not in KINDS and suffix not in TEXT_SUFFIXES:
        with open(real, "rb") as fh:
            head = fh.read(8192)
        if is_binary(head) or not suffix:
            raise ClipError(f"{src.name} is not a document wikitui reads (PDF, HTML, DOCX, PPTX, XLSX, CSV, "
                            "JSON, images, text); nothing was written")
    size = real.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ClipError(f"{src.name} is too large ({human_size(size)}; the limit is {human_size(MAX_FILE_BYTES)})")
    stem = slugify(name) if name else _file_stem(src.stem)

    def write(fh: BinaryIO) -> None:
        with open(real, "rb") as original:
            shutil.copyfileobj(original, fh, 1024 * 1024)

    return ClipResult(add_to_raw(vault, stem, suffix, write), "", "document", str(real))


def _file_stem(stem: str) -> str:
    """A file's own stem kept as it is, less what no file name should hold (separators, controls, dots at the ends)."""
    stem = re.sub(r'[\x00-\x1f\x7f/\\:*?"<>|]+', " ", clean_text(stem))
    stem = " ".join(stem.split()).strip(". ")[:120]
    return stem or "document"
