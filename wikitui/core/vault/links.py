"""Finding links in markdown text, with Obsidian's syntax.

Forms: ``[[Target]]``, ``[[Target|label]]``, ``[[Target#Heading]]``,
``[[Target#^block]]``, ``[[#Heading]]``, ``[[folder/Target]]``, ``![[embed]]`` and
ordinary markdown links ``[label](relative/path.md)`` (and external URLs, which are
links for the reader but not part of the graph), and bare ``https://`` URLs, which
Obsidian shows as links too. Links inside frontmatter, code fences, inline code and
comments (``%% %%``, ``<!-- -->``) are text, not links.
Resolution of a target to a file lives in :mod:`wikitui.core.vault.graph`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import unquote

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.MULTILINE)
# Patterns start with a literal so the regex engine can skip ahead quickly (a leading
# optional or lookbehind made link extraction ~10x slower on a real vault).
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)")
_COMMENTS = re.compile(r"%%.*?(?:%%|\Z)|<!--.*?(?:-->|\Z)", re.DOTALL)
#: ``[[...]]``; group 1 is the inside. An embed has ``!`` just before the match.
# (Greedy: the inside cannot hold "]", so it ends where the lazy form would, with less backtracking.)
WIKILINK = re.compile(r"\[\[([^\[\]\n]+)\]\]")
_MDLINK = re.compile(
    r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
    r"\(\s*(<[^>\n]+>|(?:[^()\s]|\([^()\s]*\))+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?\s*\)"
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: A bare URL runs to a space, a quote, a bracket or a control character (its trailing
#: punctuation is trimmed); U+FFFD too, which the page pane shows for a control character.
BARE_URL = re.compile(r"https?://[^\s<>\[\]`\"'\x00-\x1f\x7f\ufffd]+")
_URL_TRAILING = ".,:;!?*_~"
#: Characters of a line kept as a link's or a mention's context (a 5 MB line is not printed whole).
CONTEXT_CHARS = 200


@dataclass(slots=True)
class Link:
    """One link occurrence in a page.

    Attributes:
        target: The target as written, without anchor or label ("" for ``[[#Heading]]``).
        anchor: The heading or ``^block`` after ``#`` ("" when none).
        label: The display text (alias after ``|``, or the markdown link text).
        kind: ``"wiki"``, ``"md"`` (relative markdown link) or ``"url"`` (external).
        embed: Whether it is an embed (``![[...]]`` or ``![](...)``).
        line: 1-based line number in the file.
        start: Offset of the link's first character in the file text.
        end: Offset just past the link.
        context: The stripped line the link stands on (for backlinks), cut to :data:`CONTEXT_CHARS`.
    """

    target: str
    anchor: str
    label: str
    kind: str
    embed: bool
    line: int
    start: int
    end: int
    context: str

    @property
    def text(self) -> str:
        """What a reader sees: the label, else the target and anchor."""
        if self.label:
            return self.label
        if self.target and self.anchor:
            return f"{self.target} > {self.anchor}"
        return self.target or self.anchor


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """Replace every character of ``spans`` (sorted, non-overlapping) by a space, keeping newlines."""
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for a, b in spans:
        if a < pos:
            a = pos
        if b <= a:
            continue
        out.append(text[pos:a])
        seg = text[a:b]
        if "\n" in seg:
            out.append("\n".join(" " * len(part) for part in seg.split("\n")))
        else:
            out.append(" " * (b - a))
        pos = b
    out.append(text[pos:])
    return "".join(out)


def cut_context(line: str) -> str:
    """A line as context for a link or a mention: stripped, and cut to :data:`CONTEXT_CHARS` (DESIGN §8)."""
    line = line.strip()
    return line if len(line) <= CONTEXT_CHARS else line[: CONTEXT_CHARS - 1] + "…"


def _fence_spans(text: str, pos: int = 0) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    while True:
        m = _FENCE.search(text, pos)
        if m is None:
            return spans
        marker = m.group(1)
        closer = re.compile(
            r"^[ \t]{0,3}" + re.escape(marker[0]) + "{" + str(len(marker)) + r",}[ \t]*$", re.MULTILINE
        )
        eol = text.find("\n", m.end())
        if eol == -1:
            spans.append((m.start(), len(text)))
            return spans
        c = closer.search(text, eol + 1)
        end = len(text) if c is None else c.end()
        spans.append((m.start(), end))
        pos = end


def mask_text(text: str, frontmatter_end: int = 0) -> str:
    """Return ``text`` with frontmatter, code and comments blanked out.

    The result has the same length and the same newlines as ``text``, so offsets
    and line numbers found in it hold in the original.

    Args:
        text: A page's full text.
        frontmatter_end: Number of leading lines that are frontmatter (0 for none).
    """
    if not frontmatter_end:
        return mask_body(text)
    idx = -1
    for _ in range(frontmatter_end):
        idx = text.find("\n", idx + 1)
        if idx == -1:
            idx = len(text)
            break
    return _blank(mask_body(text, min(idx + 1, len(text))), [(0, idx)])


def mask_body(text: str, start: int = 0) -> str:
    """Blank code and comments from offset ``start`` on; what lies before ``start`` is left as it is.

    The parser's form of :func:`mask_text`: with ``start`` the offset where a page's body
    begins, ``mask_body(text, start)[start:]`` equals ``mask_text(text, lines)[start:]``
    (frontmatter cannot open code or a comment). A page without code or comments, the
    common case, comes back as ``text`` itself, uncopied. ``start`` must be 0 or follow
    a newline.
    """
    # One-character searches first: they run at memchr speed, several times faster
    # than searching for "```" or "<!--", and most pages have none of these characters.
    masked = text
    tick = text.find("`", start) != -1
    if (tick and text.find("```", start) != -1) or (text.find("~", start) != -1 and text.find("~~~", start) != -1):
        masked = _blank(masked, _fence_spans(masked, start))
        tick = masked.find("`", start) != -1
    if tick:
        masked = _blank(masked, [m.span() for m in _INLINE_CODE.finditer(masked, start)])
    if (masked.find("%", start) != -1 and masked.find("%%", start) != -1) or (
        masked.find("<", start) != -1 and masked.find("<!--", start) != -1
    ):
        masked = _blank(masked, [m.span() for m in _COMMENTS.finditer(masked, start)])
    return masked


def split_wikilink(inner: str) -> tuple[str, str, str]:
    """Split the inside of ``[[...]]`` into (target, anchor, label)."""
    target, _, label = inner.partition("|")
    target = target.rstrip("\\")  # ``[[A\|b]]`` inside a table
    target, _, anchor = target.partition("#")
    return target.strip(), anchor.strip(), label.strip()


def is_external(url: str) -> bool:
    """Whether a markdown link target is an external URL (has a scheme)."""
    return bool(_SCHEME.match(url))


def extract_links(text: str, masked: str | None = None, start: int = 0, limit: int | None = None) -> list[Link]:
    """All links of ``text`` in reading order.

    Args:
        text: The full text of a file.
        masked: ``mask_text(text, ...)`` when the caller already has it (or
            ``mask_body(text, start)``).
        start: Offset to look from (the body's start: links before it are not read).
            Must be 0 or follow a newline.
        limit: At most this many links, the first in reading order (None: all). A page
            built with 450,000 links costs ~220 bytes of objects per link; a bound keeps
            memory a few times the page's size (DESIGN §8 "Bounded work").
    """
    if masked is None:
        masked = mask_text(text)
    has_url = masked.find("://", start) != -1
    if masked.find("[", start) == -1 and not has_url:
        return []
    has_md = masked.find("(", start) != -1 and masked.find("](", start) != -1
    found: list[tuple[int, int, str, str, str, str, bool]] = []
    wiki_spans: list[tuple[int, int]] = []
    for m in WIKILINK.finditer(masked, start):
        a, b = m.span()
        inner = text[a + 2 : b - 2]
        if "|" in inner or "#" in inner or "\\" in inner:
            target, anchor, label = split_wikilink(inner)
            if not target and not anchor:
                continue
        else:  # the common [[Target]]: what split_wikilink returns, without its three splits
            target, anchor, label = inner.strip(), "", ""
            if not target:
                continue
        if has_md:
            wiki_spans.append((a, b))
        if a > 0 and text[a - 1] == "!":
            found.append((a - 1, b, target, anchor, label, "wiki", True))
        else:
            found.append((a, b, target, anchor, label, "wiki", False))
        if limit is not None and len(found) >= limit:  # the first `limit` of each kind, merged, cut below
            break
    if has_md:
        md_masked = _blank(masked, wiki_spans) if wiki_spans else masked
        n_wiki = len(found)
        for m in _MDLINK.finditer(md_masked, start):
            url = text[m.start(2) : m.end(2)]
            if url.startswith("<") and url.endswith(">"):
                url = url[1:-1]
            label = text[m.start(1) : m.end(1)].strip()
            embed = m.start() > 0 and text[m.start() - 1] == "!"
            first = m.start() - 1 if embed else m.start()
            if is_external(url):
                found.append((first, m.end(), url, "", label, "url", embed))
                if limit is not None and len(found) - n_wiki >= limit:
                    break
                continue
            path, _, anchor = url.partition("#")
            found.append((first, m.end(), unquote(path), unquote(anchor), label, "md", embed))
            if limit is not None and len(found) - n_wiki >= limit:
                break
        if n_wiki and len(found) > n_wiki:  # two ordered runs: merge them into reading order
            found.sort(key=lambda f: f[0])
    # Only when some "://" lies outside the links found so far (most pages' are all in markdown links).
    if has_url and masked.count("://", start) > sum(masked.count("://", f[0], f[1]) for f in found):
        n_found = len(found)
        urls = bare_urls(text, masked, start, [f[:2] for f in found], limit)
        found.extend((a, b, url, "", "", "url", False) for a, b, url in urls)
        if n_found and len(found) > n_found:
            found.sort(key=lambda f: f[0])
    if not found:
        return []
    if limit is not None and len(found) > limit:
        del found[limit:]
    links: list[Link] = []
    append = links.append
    count, rfind, find = text.count, text.rfind, text.find
    line, pos = 1, 0
    line_end = -1  # end of the line the previous link stood on
    context = ""
    for first, end, target, anchor, label, kind, embed in found:
        if first > line_end:  # a new line: links on one line share its context (one long line stays linear)
            line += count("\n", pos, first)
            pos = first
            line_end = find("\n", first)
            if line_end == -1:
                line_end = len(text)
            context = cut_context(text[rfind("\n", 0, first) + 1 : line_end])
        append(Link(target, anchor, label, kind, embed, line, first, end, context))
    return links


def bare_url_at(text: str, at: int) -> str | None:
    """The bare ``http(s)://`` URL starting at offset ``at`` of ``text``, as Obsidian links it, or None.

    A URL starts after a non-alphanumeric character (or the line's start), not in an
    HTML attribute (``href=``), and runs to a space, quote or bracket; trailing
    ``.,:;!?*_~`` and an unbalanced ``)`` are not part of it.
    """
    if at > 0 and (text[at - 1].isalnum() or text[at - 1] == "=" or text[at - 2 : at] in ('="', "='")):
        return None
    m = BARE_URL.match(text, at)
    if m is None:
        return None
    url = m.group()
    end, unbalanced = len(url), url.count(")") - url.count("(")  # counted once: trimming stays linear
    while url[end - 1] in _URL_TRAILING or (url[end - 1] == ")" and unbalanced > 0):
        unbalanced -= url[end - 1] == ")"
        end -= 1
    url = url[:end]
    return url if any(ch.isalnum() for ch in url[url.index("://") + 3 :]) else None


def bare_urls(
    text: str,
    masked: str,
    start: int = 0,
    taken: Sequence[tuple[int, int]] = (),
    limit: int | None = None,
) -> list[tuple[int, int, str]]:
    """``(start, end, url)`` of each bare URL (:func:`bare_url_at`) from offset ``start`` on.

    URLs in code and comments (blank in ``masked``) and inside ``taken`` spans (the
    other links, sorted by start) are skipped; at most ``limit`` are returned (None: all).
    """
    out: list[tuple[int, int, str]] = []
    starts = [a for a, _ in taken]
    for m in BARE_URL.finditer(masked, start):
        a = m.start()
        url = bare_url_at(masked, a)
        if url is None:
            continue
        b = a + len(url)
        k = bisect_right(starts, a) - 1  # the last link starting at or before a
        if (k >= 0 and taken[k][1] > a) or (k + 1 < len(starts) and starts[k + 1] < b):
            continue
        out.append((a, b, text[a:b]))
        if limit is not None and len(out) >= limit:
            break
    return out
