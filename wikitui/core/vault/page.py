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
from typing import Any

from wikitui.core.vault.flat_yaml import NOT_ALLOWED, load_simple
from wikitui.core.vault.links import Link, extract_links, mask_body

_FM_OPEN = re.compile(r"\A---[ \t]*\r?\n")
# The closing line, found from the newline before it (a literal first: a fast scan).
_FM_CLOSE = re.compile(r"\n(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
# A heading: up to six ``#``, blanks, its text, and optional closing blanks and ``#``s.
# The text is the shortest run that leaves only blanks and ``#`` on the line: greedily,
# up to the line's last character that is neither (else its one first character).
# It starts with a literal newline so the scan skips ahead fast; _HEADING_AT reads a first line.
_HEADING = re.compile(r"\n(#{1,6})[ \t]+([^\n]*[^\n \t#]|[^\n])[ \t#]*$", re.MULTILINE)
_HEADING_AT = re.compile(r"(#{1,6})[ \t]+([^\n]*[^\n \t#]|[^\n])[ \t#]*$", re.MULTILINE)
_BLOCK_ID = re.compile(r"\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)
#: Links read from one page (DESIGN §8 "Bounded work"). The index of a 10,000-page wiki
#: has 10,000; a page built with 450,000 would hold ~100 MB of link objects.
MAX_LINKS = 20_000


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
        sources: Frontmatter ``sources`` (raw paths the page draws on), or its singular ``source``.
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
        links_cut: Whether the page has more than :data:`MAX_LINKS` links, of which only
            the first are read (``links`` holds those).
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
    links_cut: bool = False

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
    fm, body_start, body_line = _frontmatter_span(text)
    return fm, text[body_start:] if fm is not None else text, body_line


def _frontmatter_span(text: str) -> tuple[str | None, int, int]:
    """(frontmatter YAML or None, offset where the body starts, body's 1-based start line)."""
    if not text.startswith("---") or not _FM_OPEN.match(text):
        return None, 0, 1
    start = text.index("\n") + 1
    close = _FM_CLOSE.search(text, start - 1)
    if close is None:
        return None, 0, 1
    fm = text[start : close.start() + 1]
    end = text.find("\n", close.end())
    if end == -1:
        return fm, len(text), text.count("\n") + 2
    return fm, end + 1, text.count("\n", 0, end) + 2


class _YAML:
    """PyYAML and python-frontmatter, imported on first use.

    Most frontmatter is flat and read by :mod:`wikitui.core.vault.flat_yaml`; PyYAML and
    python-frontmatter cost ~25 ms of start-up, so a vault that never needs them
    never imports them.
    """

    _loaded = False
    #: yaml.YAMLError once loaded; until then an empty tuple, which no ``except`` matches. Typed Any: it is
    #: raised only after :meth:`load`, which the type checker cannot follow (and PyYAML has no hints).
    error: Any = ()
    #: python-frontmatter's YAMLHandler, once loaded.
    handler: Any = None
    #: PyYAML's CSafeLoader (else its SafeLoader), once loaded.
    loader: Any = None

    @classmethod
    def load(cls) -> None:
        if cls._loaded:
            return
        import yaml
        from frontmatter.default_handlers import YAMLHandler

        try:  # libyaml is ~10x faster than the pure-Python loader
            from yaml import CSafeLoader as loader
        except ImportError:  # pragma: no cover - depends on the PyYAML build
            from yaml import SafeLoader as loader
        cls.error, cls.handler, cls.loader = yaml.YAMLError, YAMLHandler(), loader
        cls._loaded = True


#: Why a block with anchors or aliases is refused (DESIGN §8 "Bounded work").
ALIASES_REFUSED = "YAML anchors and aliases (&name, *name) are not expanded in frontmatter"


def uses_yaml_aliases(fm: str) -> bool:
    """Whether a frontmatter block has YAML anchors (``&a``) or aliases (``*a``).

    They are refused wherever frontmatter is read: nine lines of aliases, each
    naming the one before nine times ("billion laughs"), stand for 9^9 values,
    and reading them as text took a minute and gigabytes. Found with libyaml's
    scanner (tokens only, linear), and only when ``&`` or ``*`` appears at all.
    A block that does not scan is left for the loader to report.
    """
    if "&" not in fm and "*" not in fm:
        return False
    _YAML.load()
    import yaml

    try:
        return any(isinstance(t, (yaml.AliasToken, yaml.AnchorToken)) for t in yaml.scan(fm, Loader=_YAML.loader))
    except (yaml.YAMLError, UnicodeError):  # libyaml cannot encode a lone surrogate: no scan either
        return False


def load_frontmatter(fm: str) -> dict:
    """Parse a frontmatter block: flat YAML directly, anything else with python-frontmatter's handler.

    Raises:
        yaml.YAMLError: The block does not parse, is not a mapping, or has anchors
            or aliases (see :func:`uses_yaml_aliases`).
    """
    data = load_simple(fm)  # never accepts an anchor or an alias: they start with & and *
    if data is None:
        _YAML.load()
        if NOT_ALLOWED.search(fm):
            raise _YAML.error("a control character or a lone surrogate, which YAML does not allow")
        if uses_yaml_aliases(fm):
            raise _YAML.error(ALIASES_REFUSED)
        try:
            data = _YAML.handler.load(fm, Loader=_YAML.loader)
        except (RecursionError, ValueError) as exc:  # not YAML errors, yet only a block that does not parse
            raise _YAML.error(f"{type(exc).__name__}: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        _YAML.load()
        raise _YAML.error("frontmatter is not a mapping of keys to values")
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
    fm, body_start, body_line = _frontmatter_span(text)
    meta: dict = {}
    error = None
    warnings: list[str] = []
    if fm is not None:
        try:
            meta = load_frontmatter(fm)
        except _YAML.error as exc:  # evaluated after the raise: PyYAML is loaded by then
            error = str(exc).strip().splitlines()[0] if str(exc).strip() else "YAML error"
            warnings.append(f"frontmatter does not parse: {error}")
            meta = {}
    # Only the body is read from here on: frontmatter can hold neither headings, nor
    # block ids, nor links, nor open code or a comment (see mask_body).
    masked = mask_body(text, body_start)
    headings = _headings(text, masked, body_start, body_line) if masked.find("#", body_start) != -1 else []
    block_ids = []
    if masked.find("^", body_start) != -1:
        block_ids = [
            m.group(1)
            for m in _BLOCK_ID.finditer(masked, body_start)
            if m.start() > 0 and masked[m.start() - 1] in " \t"
        ]
    links = extract_links(text, masked, body_start, limit=MAX_LINKS + 1)
    links_cut = len(links) > MAX_LINKS
    if links_cut:
        del links[MAX_LINKS:]
        warnings.append(f"more than {MAX_LINKS:,} links: only the first {MAX_LINKS:,} are read")
    title = _scalar(meta.get("title")) if meta else ""
    if not title and heading_titles:
        title = _heading_title(headings)
    return PageInfo(
        path,
        title or PurePosixPath(path).stem,
        _scalar(meta.get("type")) if meta else "",
        _scalar(meta.get("summary") or meta.get("description")) if meta else "",
        [t.lstrip("#") for t in _as_str_list(meta.get("tags"))] if meta else [],
        _as_str_list(meta.get("aliases") or meta.get("alias")) if meta else [],
        _as_str_list(meta.get("sources") or meta.get("source")) if meta else [],
        meta,
        fm is not None,
        error,
        body_line,
        headings,
        block_ids,
        links,
        mtime_ns,
        size,
        warnings,
        links_cut,
    )


def _headings(text: str, masked: str, body_start: int, body_line: int) -> list[Heading]:
    """ATX headings of the body, found in ``masked`` and read from ``text``."""
    headings: list[Heading] = []
    line, pos = body_line, body_start
    if body_start == 0:
        m = _HEADING_AT.match(masked)
        if m is not None:
            headings.append(Heading(len(m.group(1)), text[m.start(2) : m.end(2)].strip(), 1))
    count, append = masked.count, headings.append
    for m in _HEADING.finditer(masked, body_start - 1 if body_start else 0):
        start = m.start() + 1  # the heading line's first character
        line += count("\n", pos, start)
        pos = start
        a, b = m.span(2)
        append(Heading(m.end(1) - start, text[a:b].strip(), line))
    return headings
