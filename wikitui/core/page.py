"""Parsing one markdown page: frontmatter, title, headings, block ids and links.

Parsing is tolerant by design: a UTF-8 byte-order mark, CRLF line endings, no
frontmatter, or YAML that does not parse all still give a :class:`PageInfo`; the
broken case carries a warning instead of raising.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import yaml
from frontmatter.default_handlers import YAMLHandler

from wikitui.core.fastyaml import load_simple
from wikitui.core.links import Link, extract_links, mask_text

try:  # libyaml is ~10x faster than the pure-Python loader
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on the PyYAML build
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

_FM_HANDLER = YAMLHandler()
_FM_OPEN = re.compile(r"\A---[ \t]*\r?\n")
_FM_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
# Both start with a literal (matched against "\n" + text) so scanning a page is fast.
_HEADING = re.compile(r"\n#(#{0,5})[ \t]+([^\n]+?)[ \t#]*$", re.MULTILINE)
_BLOCK_ID = re.compile(r"\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)


@dataclass(slots=True)
class Heading:
    """A markdown heading: level 1-6, its text, and its 1-based line."""

    level: int
    text: str
    line: int


@dataclass(slots=True)
class PageInfo:
    """Everything wikitui knows about one page without keeping its whole text.

    Attributes:
        path: Vault-relative path with ``/`` separators (``wiki/concepts/BERT.md``).
        title: Frontmatter ``title``, else the first heading when it is the page's one
            level-1 heading (the document's title; wiki folders only), else the file stem.
        type: Frontmatter ``type`` ("" when absent).
        summary: Frontmatter ``summary`` ("" when absent).
        tags: Frontmatter ``tags``.
        aliases: Frontmatter ``aliases``.
        sources: Frontmatter ``sources`` (raw paths the page draws on).
        meta: The whole parsed frontmatter mapping.
        has_frontmatter: Whether the file begins with a frontmatter block.
        frontmatter_error: The YAML error message when the block does not parse.
        body_line: 1-based line where the body starts (after the frontmatter).
        headings: Headings in order.
        block_ids: ``^block`` ids defined on the page.
        links: Links in reading order (code, comments and frontmatter excluded).
        mtime_ns: File modification time when parsed.
        size: File size in bytes when parsed.
        warnings: Human-readable problems found while parsing.
    """

    path: str
    title: str
    type: str = ""
    summary: str = ""
    tags: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    has_frontmatter: bool = False
    frontmatter_error: str | None = None
    body_line: int = 1
    headings: list[Heading] = field(default_factory=list)
    block_ids: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    mtime_ns: int = 0
    size: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def stem(self) -> str:
        """The file name without ``.md``."""
        return PurePosixPath(self.path).stem

    @property
    def names(self) -> list[str]:
        """Title and aliases: the names a link or a mention may use."""
        return [self.title, *self.aliases]


def _as_str_list(value: object) -> list[str]:
    """Frontmatter lists arrive as a list, a comma string, a scalar or nothing."""
    if value is None:
        return []
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")] if "," in value else [value.strip()]
        return [p for p in parts if p]
    if isinstance(value, (list, tuple, set)):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def _scalar(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value).strip()


def _heading_title(headings: list[Heading]) -> str:
    """The first heading as a title, when it is the document's title.

    A page's first heading names it only when it is the page's single level-1 heading:
    real Obsidian vaults open many notes with section headings such as ``# Types`` or
    ``# Examples`` (several per note), which would make poor and duplicate titles;
    there the file stem, as Obsidian shows it, is the better name.
    """
    if not headings or headings[0].level != 1:
        return ""
    if sum(1 for h in headings if h.level == 1) != 1:
        return ""
    return headings[0].text


def split_frontmatter(text: str) -> tuple[str | None, str, int]:
    """Split ``text`` into (frontmatter YAML or None, body, body's 1-based start line).

    Uses python-frontmatter's YAML delimiters; the text must already be BOM-free.
    """
    if not _FM_OPEN.match(text):
        return None, text, 1
    start = text.index("\n") + 1
    close = _FM_CLOSE.search(text, start)
    if close is None:
        return None, text, 1
    fm = text[start : close.start()]
    end = text.find("\n", close.end())
    body = "" if end == -1 else text[end + 1 :]
    body_line = text.count("\n", 0, end if end != -1 else len(text)) + 2
    return fm, body, body_line


def load_frontmatter(fm: str) -> dict:
    """Parse a frontmatter block: flat YAML directly, anything else with python-frontmatter's handler."""
    data = load_simple(fm)
    if data is None:
        data = _FM_HANDLER.load(fm, Loader=_Loader)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise yaml.YAMLError("frontmatter is not a mapping of keys to values")
    return data


def parse_page(
    path: str, text: str, *, mtime_ns: int = 0, size: int = 0, heading_titles: bool = True
) -> PageInfo:
    """Parse a page's text (BOM already removed) into a :class:`PageInfo`.

    Args:
        path: The page's vault-relative path.
        text: The page's full text.
        mtime_ns: Modification time recorded for cache validation.
        size: Size recorded for cache validation.
        heading_titles: Whether a page without a frontmatter title takes its title from
            its heading. True for a wiki folder (LLM wikis title pages with one ``# H1``);
            False for an Obsidian vault read as a wiki, whose notes are named by their
            files as Obsidian shows them (there ``# Examples`` is a section, not a name).
    """
    info = PageInfo(path=path, title="", mtime_ns=mtime_ns, size=size)
    fm, _body, body_line = split_frontmatter(text)
    meta: dict = {}
    if fm is not None:
        info.has_frontmatter = True
        info.body_line = body_line
        try:
            meta = load_frontmatter(fm)
        except yaml.YAMLError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else "YAML error"
            info.frontmatter_error = first
            info.warnings.append(f"frontmatter does not parse: {first}")
            meta = {}
    info.meta = meta
    masked = mask_text(text, frontmatter_end=(body_line - 1) if fm is not None else 0)
    if "#" in masked:
        scan = "\n" + masked
        line, pos = 1, 0
        for m in _HEADING.finditer(scan):
            start = m.start()  # offset of the heading's line in ``masked``
            line += masked.count("\n", pos, start)
            pos = start
            info.headings.append(Heading(len(m.group(1)) + 1, text[m.start(2) - 1 : m.end(2) - 1].strip(), line))
    if "^" in masked:
        info.block_ids = [
            m.group(1) for m in _BLOCK_ID.finditer(masked) if m.start() > 0 and masked[m.start() - 1] in " \t"
        ]
    info.links = extract_links(text, masked)
    title = _scalar(meta.get("title")) or (_heading_title(info.headings) if heading_titles else "")
    info.title = title or PurePosixPath(path).stem
    info.type = _scalar(meta.get("type"))
    info.summary = _scalar(meta.get("summary") or meta.get("description"))
    info.tags = [t.lstrip("#") for t in _as_str_list(meta.get("tags"))]
    info.aliases = _as_str_list(meta.get("aliases") or meta.get("alias"))
    info.sources = _as_str_list(meta.get("sources"))
    return info
