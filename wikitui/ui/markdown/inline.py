"""Inline markdown-it tokens turned into styled runs: one small handler per token kind.

A paragraph's ``inline`` token holds children (text, emphasis opening and closing,
links, images, ``[[wikilinks]]``, breaks, inline HTML). :func:`inline_runs` walks them
with an :class:`InlineWalk` holding what is open (emphasis, the link being walked
through) and hands each child to the handler of its kind in :data:`HANDLERS`; a kind
without a handler (an HTML tag other than ``<br>``, say) shows nothing. Each link
found asks the :class:`~wikitui.ui.markdown.links.LinkMatcher` for its tab-stop index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import unquote

from markdown_it.token import Token

from wikitui.core.vault.links import is_external, split_wikilink
from wikitui.core.vault.tags import tag_spans
from wikitui.ui.markdown.line import Seg

#: ``take(kind, key, embed, last_line)``: the tab-stop index of a link found, or None
#: (:meth:`wikitui.ui.markdown.links.LinkMatcher.take`).
Take = Callable[[str, object, bool, int], "int | None"]

#: An HTML line break, ``<br>``, ``<br/>`` or ``<BR />``.
BR_TAG = re.compile(r"<br\s*/?>", re.IGNORECASE)
#: An embed's "label" that is an image size (``![[a.png|300]]``, ``|300x200``), not a label.
_SIZE = re.compile(r"^\d+(x\d+)?$")


class ObsidianComments:
    """Whether the text walked so far is inside an Obsidian ``%% comment %%``.

    A comment may span paragraphs and blocks, so one instance follows a whole chunk.
    """

    __slots__ = ("inside",)

    def __init__(self) -> None:
        self.inside = False

    def strip(self, content: str) -> str:
        """Drop the parts of ``content`` inside comments, noting where a comment opens or closes."""
        parts = content.split("%%")
        kept = []
        for i, part in enumerate(parts):
            if i:
                self.inside = not self.inside
            if not self.inside:
                kept.append(part)
        return "".join(kept)


@dataclass(slots=True)
class InlineWalk:
    """The state of one walk over an inline token's children.

    Attributes:
        take: Gives a link found its tab-stop index (:data:`Take`).
        comments: Whether the walk is inside an Obsidian comment.
        last_line: Last file line of the block: links are matched on lines up to it.
        breaks: Whether a soft line break is drawn as a line break (markdown-it's ``breaks``).
        runs: The runs so far.
        styles: Roles in force: the block's, then ``em``/``strong``/``s`` as they were opened.
        link: Tab-stop index of the markdown link being walked through, or None.
        link_role: How that link looks when it is no tab stop (``link-external``,
            ``link-plain``), else "".
        link_from: Index in :attr:`runs` where that link's text starts.
        href: That link's target as written.
        roles: The roles of text at this point of the walk (kept by :meth:`restyle`).
        cell: Whether the text is a table cell's: an embed stays inside the cell as its ``⧉ label``.
    """

    take: Take
    comments: ObsidianComments
    last_line: int
    breaks: bool
    runs: list[Seg] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    link: int | None = None
    link_role: str = ""
    link_from: int = 0
    href: str = ""
    roles: str = ""
    cell: bool = False

    def __post_init__(self) -> None:
        self.restyle()

    def restyle(self) -> None:
        """Compute :attr:`roles` again after :attr:`styles` or :attr:`link_role` changed."""
        if self.link_role:
            self.roles = " ".join(self.styles + [self.link_role])
        else:
            self.roles = " ".join(self.styles)

    def embed(self, shown: str, index: int | None, role: str) -> None:
        """Add an embed (``⧉ label``): it stands on a line of its own (in a table cell, in the cell's text)."""
        runs = self.runs
        if self.cell:
            runs.append((shown, role, index))
            return
        if runs and not runs[-1][0].endswith("\n"):
            runs.append(("\n", "", None))
        runs.append((shown, role, index))
        runs.append(("\n", "", None))


def _text(walk: InlineWalk, tok: Token) -> None:
    """Plain text, less what lies inside ``%% comments %%``; tabs become spaces."""
    content = tok.content
    if "%%" in content or walk.comments.inside:
        content = walk.comments.strip(content)
    if not content:
        return
    content = content.replace("\t", " ")
    spans = tag_spans(content) if "#" in content and walk.link is None and not walk.link_role else ()
    at = 0
    for a, b, _name in spans:  # inline ``#tags`` look like tags (a link's text is the link's)
        if a > at:
            walk.runs.append((content[at:a], walk.roles, None))
        walk.runs.append((content[a:b], f"{walk.roles} tag".strip(), None))
        at = b
    if at < len(content):
        walk.runs.append((content[at:], walk.roles, walk.link))


def _softbreak(walk: InlineWalk, tok: Token) -> None:
    """A single newline: a line break, as in Obsidian (``breaks``), else a space."""
    walk.runs.append(("\n" if walk.breaks else " ", walk.roles, walk.link))


def _hardbreak(walk: InlineWalk, tok: Token) -> None:
    """A backslash or two spaces at the end of a line: a line break."""
    walk.runs.append(("\n", walk.roles, walk.link))


def _html_inline(walk: InlineWalk, tok: Token) -> None:
    """Inline HTML: a ``<br>`` is a line break; other tags are not shown."""
    if BR_TAG.match(tok.content):
        walk.runs.append(("\n", walk.roles, walk.link))


def _code_inline(walk: InlineWalk, tok: Token) -> None:
    """A code span, with the ``code`` role on top of the roles in force."""
    walk.runs.append((tok.content, f"{walk.roles} code".strip(), walk.link))


def _math_inline(walk: InlineWalk, tok: Token) -> None:
    """``$…$`` or ``$$…$$`` inside a paragraph: the TeX as written (no markdown escape applied), ``math`` role."""
    walk.runs.append((tok.content.replace("\t", " "), f"{walk.roles} math".strip(), walk.link))


def _footnote_ref(walk: InlineWalk, tok: Token) -> None:
    """``[^label]``: the footnote's number, as Obsidian numbers them in the order they are first cited."""
    walk.runs.append((f"[{int(tok.meta.get('id', 0)) + 1}]", f"{walk.roles} footnote".strip(), walk.link))


def _open_style(walk: InlineWalk, tok: Token) -> None:
    """``em_open``, ``strong_open``, ``s_open``, ``mark_open``: the role (``em``...) applies from here."""
    walk.styles.append(tok.type[: -len("_open")])
    walk.restyle()


def _close_style(walk: InlineWalk, tok: Token) -> None:
    """``em_close``, ``strong_close``, ``s_close``, ``mark_close``: the role opened last of that name ends."""
    name = tok.type[: -len("_close")]
    styles = walk.styles
    for i in range(len(styles) - 1, -1, -1):
        if styles[i] == name:
            del styles[i]
            break
    walk.restyle()


def _link_open(walk: InlineWalk, tok: Token) -> None:
    """A markdown link (or a bare URL) starts: its text belongs to the link's tab stop.

    A link the core does not count as a tab stop is still painted as a link.
    """
    href = str(tok.attrs.get("href", ""))
    walk.href = href
    walk.link = walk.take("md", unquote(href), False, walk.last_line)
    if walk.link is not None:
        walk.link_role = ""
    else:
        walk.link_role = "link-external" if is_external(href) else "link-plain"
    walk.link_from = len(walk.runs)
    walk.restyle()


def _link_close(walk: InlineWalk, tok: Token) -> None:
    """A markdown link ends; a link with no visible text shows its target instead."""
    if not any(r[0].strip() for r in walk.runs[walk.link_from :]):
        walk.runs.append((walk.href, walk.roles, walk.link))
    walk.link, walk.link_role = None, ""
    walk.restyle()


def _image(walk: InlineWalk, tok: Token) -> None:
    """``![alt](src)``: an embed line ``⧉ alt``; inside a link, ``[![alt](img)](target)`` is one link."""
    src = str(tok.attrs.get("src", ""))
    index = walk.take("md", unquote(src), True, walk.last_line)
    if index is None and walk.link is not None:
        index = walk.link
    label = tok.content or src.rsplit("/", 1)[-1]
    alt, bar, size = label.rpartition("|")
    if bar and _SIZE.match(size.strip()):  # ``![alt|100](x.png)``: a size, not part of the alt text
        label = alt.strip() or src.rsplit("/", 1)[-1]
    walk.embed(f"⧉ {label}", index, "link-external" if index is None else "")


def _wikilink(walk: InlineWalk, tok: Token) -> None:
    """``[[target#anchor|label]]`` shows its label (or ``target > anchor``); ``![[...]]`` is an embed line."""
    target, anchor, label = split_wikilink(tok.content)
    embed = bool(tok.meta.get("embed"))
    index = walk.take("wiki", (target, anchor), embed, walk.last_line)
    role = "" if index is not None else "link-plain"
    named = f"{target} > {anchor}" if target and anchor else target or anchor
    if embed:
        shown = label if label and not _SIZE.match(label) else ""
        walk.embed(f"⧉ {shown or named}", index, role)
    else:
        walk.runs.append((label or named, " ".join(walk.styles + [role]).strip(), index))


#: The handler of each inline token kind; other kinds show nothing.
HANDLERS: dict[str, Callable[[InlineWalk, Token], None]] = {
    "text": _text,
    "softbreak": _softbreak,
    "hardbreak": _hardbreak,
    "html_inline": _html_inline,
    "code_inline": _code_inline,
    "em_open": _open_style,
    "strong_open": _open_style,
    "s_open": _open_style,
    "mark_open": _open_style,
    "em_close": _close_style,
    "strong_close": _close_style,
    "s_close": _close_style,
    "mark_close": _close_style,
    "math_inline": _math_inline,
    "math_inline_double": _math_inline,
    "footnote_ref": _footnote_ref,
    "link_open": _link_open,
    "link_close": _link_close,
    "image": _image,
    "wikilink": _wikilink,
}


def inline_runs(
    tok: Token, roles: str, last_line: int, take: Take, comments: ObsidianComments, breaks: bool, cell: bool = False
) -> list[Seg]:
    """The runs of an inline token; links get their tab-stop index.

    Args:
        tok: markdown-it's ``inline`` token.
        roles: Roles of the whole block (``heading-2``, ``quote``...), first in each run's roles.
        last_line: Last file line of the block.
        take: Gives a link found its tab-stop index.
        comments: Whether the text is inside an Obsidian comment (updated as comments open and close).
        breaks: Whether a single newline is a line break.
        cell: Whether the text is a table cell's (embeds stay in it).
    """
    walk = InlineWalk(take, comments, last_line, breaks, styles=[roles] if roles else [], cell=cell)
    handlers = HANDLERS
    for child in tok.children or ():
        if comments.inside and child.type != "text":
            continue  # inside a comment only text is looked at, for the comment's end
        handler = handlers.get(child.type)
        if handler is not None:
            handler(walk, child)
    return walk.runs
