"""Turning a vault file into a search document, and its searchable text back for snippets.

Pages contribute their frontmatter fields and the body after the frontmatter; raw
sources contribute their text; PDFs, web pages, documents, tables and images their
converted text (:mod:`~wikitui.core.search.converted`). Other binary raw sources are
indexed by file name only, so the index lists every file and an incremental update
never retries them. Huge files are read up to :data:`MAX_BYTES`.

No Whoosh import here: this is plain file handling. The page parser (and YAML)
is imported only when a page is indexed, so a search that re-indexes nothing
never loads it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING


from wikitui.core.vault.files import decode_text, is_binary, read_bytes
from wikitui.core.vault.formats.kinds import needs_conversion

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.vault.formats.isolated import Converter
    from wikitui.core.vault.page import PageInfo

#: Only this much of a file is indexed (and searched for snippets).
MAX_BYTES = 2 * 1024 * 1024
_HTML_SUFFIXES = (".html", ".htm", ".xhtml")
_HTML_DROP = re.compile(r"<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"<[^>]*>|&[a-zA-Z]+;|&#\d+;")
_MD_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


@dataclass(slots=True)
class SearchText:
    """The searchable text of a file: its body and the 1-based line the body starts on.

    ``partial``: only the file's first bytes were read (see :func:`search_text`'s ``head``).
    """

    text: str
    first_line: int = 1
    partial: bool = False


def digest(data: bytes) -> bytes:
    """A digest of the bytes a document is made from (what a re-index would read)."""
    from hashlib import blake2b

    return blake2b(data, digest_size=16).digest()


def file_digest(path: Path | str) -> bytes | None:
    """The :func:`digest` of a file's indexed bytes (None when it does not read)."""
    try:
        return digest(read_head(path))
    except OSError:
        return None


def read_head(path: Path | str, limit: int = MAX_BYTES) -> bytes:
    """The first ``limit`` bytes of a file (:data:`MAX_BYTES` at most)."""
    return read_bytes(path, min(limit, MAX_BYTES))


def _blank(match: re.Match) -> str:
    # Keep newlines so line numbers of the text still match the file.
    return re.sub(r"[^\n]", " ", match.group())


def blank_html(text: str) -> str:
    """HTML with scripts, styles, tags and entities replaced by spaces (lines preserved)."""
    return _HTML_TAG.sub(_blank, _HTML_DROP.sub(_blank, text))


def raw_text(rel: str, data: bytes) -> str | None:
    """The searchable text of a raw source, or None when it is binary."""
    if is_binary(data):
        return None
    text, _ok = decode_text(data)
    if rel.lower().endswith(_HTML_SUFFIXES):
        text = blank_html(text)
    return text


def search_text(root: Path | str, rel: str, kind: str, body_line: int = 1, head: int | None = None) -> SearchText | None:
    """The text a hit's snippet is cut from (None when unreadable or binary).

    Args:
        root: The vault folder (a string is joined faster: a search reads ten of these).
        rel: The file's vault-relative path.
        kind: "page" or "raw".
        body_line: For a page, the line its body starts on (after the frontmatter),
            as recorded when it was indexed.
        head: Read only about this many bytes, up to the last whole line in them
            (``partial`` is then set when there may be more). Decoding is most of
            the cost of a long page, and its snippet is nearly always near the top.
    """
    limit = min(head, MAX_BYTES) if head else MAX_BYTES
    try:
        data = read_head(os.path.join(root, rel), limit)
    except OSError:
        return None
    partial = head is not None and len(data) >= limit and limit < MAX_BYTES
    if partial:
        cut = data.rfind(b"\n") + 1  # a newline byte never falls inside a UTF-8 character
        data = data[:cut] if cut else data
    if kind == "raw":
        if needs_conversion(rel):  # a PDF, web page, document...: the converted text, when cached
            from wikitui.core.search.converted import cached_text

            text = cached_text(root, rel)
            return None if text is None else SearchText(text[:MAX_BYTES], 1, False)
        text = raw_text(rel, data)
        return None if text is None else SearchText(text, 1, partial)
    text, _ok = decode_text(data)
    start = 0
    for _ in range(body_line - 1):
        nl = text.find("\n", start)
        if nl == -1:
            if partial:  # a frontmatter longer than the head
                return search_text(root, rel, kind, body_line)
            return SearchText(text)  # the file shrank since it was indexed
        start = nl + 1
    return SearchText(text[start:], body_line, partial)


def page_document(root: Path, rel: str, mtime_ns: int, size: int, info: PageInfo | None = None) -> dict:
    """The document of one page.

    Args:
        root: The vault folder.
        rel: The page's vault-relative path.
        mtime_ns: Its modification time (stored to detect changes).
        size: Its size in bytes.
        info: The page as the link graph parsed it; parsed here when absent or
            when the file no longer has the size the graph saw.
    """
    from wikitui.core.vault.page import parse_page, split_frontmatter
    from wikitui.core.vault.tags import inline_tags, tag_names

    try:
        data = read_head(root / rel)
    except OSError:
        data = b""
    text, _ok = decode_text(data)
    if info is None or (len(data) != info.size and len(data) < MAX_BYTES):
        # No graph, or the file changed since the graph parsed it: parse what is on disk.
        info = parse_page(rel, text, mtime_ns=mtime_ns, size=size)
    body, body_line = text, 1
    if info.has_frontmatter:
        _fm, body, body_line = split_frontmatter(text)
    # ``tag:`` finds frontmatter tags and inline ``#tags`` alike, without case, a nested tag by its parents too.
    tags = tag_names(info.tags + inline_tags(body))
    return {
        "path": rel,
        "kind": "page",
        "title": info.title,
        "aliases": "\n".join(info.aliases),
        "tags": ",".join(tags),
        "type": info.type,
        "summary": info.summary,
        "headings": "\n".join(h.text for h in info.headings),
        "body": body,
        "body_line": body_line,
        "mtime": mtime_ns,
        "size": size,
        "digest": digest(data),
    }


def raw_document(root: Path, rel: str, mtime_ns: int, size: int, *, isolate: bool | Converter = False) -> dict:
    """The document of one raw source (title: its first heading, else its file name).

    ``isolate``: a source that needs converting and is not in the cache is converted in
    a child process with a time limit: a one-off child (True) or this ``Converter``'s
    (:mod:`~wikitui.core.vault.formats.isolated`).
    """
    name = PurePosixPath(rel).name
    try:
        data = read_head(root / rel)
    except OSError:
        data = b""
    title, headings = name, ""
    text: str | None  # None: a binary raw file, not converted
    if needs_conversion(rel):  # converted text (cached); a file that cannot be converted: its reason
        from wikitui.core.search.converted import converted_text

        text, own_title = converted_text(root, rel, isolate=isolate)
        text = text[:MAX_BYTES]
        title = own_title or name
        headings = "\n".join(m.group(1).strip() for m in _MD_HEADING.finditer(text))
    else:
        text = raw_text(rel, data)
    if text and rel.lower().endswith((".md", ".markdown")):
        found = [m.group(1).strip() for m in _MD_HEADING.finditer(text)]
        if found:
            title, headings = found[0], "\n".join(found)
    return {
        "path": rel,
        "kind": "raw",
        "title": title,
        "headings": headings,
        "body": text or "",
        "mtime": mtime_ns,
        "size": size,
        "digest": digest(data),
    }
