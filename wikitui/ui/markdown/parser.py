"""The markdown parser of the page pane and the chat: CommonMark plus Obsidian's syntax.

markdown-it-py with tables and strikethrough, and inline rules for ``[[wikilinks]]``
(and ``![[embeds]]``) and bare ``https://`` URLs, which Obsidian links. A single
newline is a line break (Obsidian's "strict line breaks" off). Math (``$…$``, ``$$…$$``)
and footnotes (``[^1]``, ``[^1]: …``, ``^[inline]``) come from ``mdit-py-plugins``
(dollarmath, footnote): math is kept verbatim, no markdown escape applied inside it;
``==highlight==`` is a small inline rule here (the plugins have no ``mark``).

Work stays bounded: markdown-it looks for the end of a link label from every ``[``
to the end of the paragraph, so a paragraph of unclosed brackets took time
quadratic in its length (100 KB of ``[`` took a minute). A paragraph with many
unclosed brackets is parsed without markdown links and images
(:func:`_bounded_inline`); its links are still the core's tab stops, marked in the text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline

from wikitui.core.vault.links import bare_url_at, split_wikilink

__all__ = ["MAX_NESTING", "markdown_parser"]

#: Characters markdown-it may scan for link labels, per character of a paragraph (plus
#: a little slack for short ones), before markdown links are left out of its parse:
#: each unclosed ``[`` costs a scan to the paragraph's end.
LABEL_SCANS_PER_CHAR = 4
LABEL_SCAN_SLACK = 64

#: Nesting markdown-it parses; deeper, it drops the rest of the text (the page shows it as text then).
MAX_NESTING = 200
#: ``[[inner]]`` with an optional ``!``: the core's wikilink syntax, anchored at a position.
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
#: ``==text==``: no space just inside the marks, no ``=`` run of three.
_MARK = re.compile(r"==(?=[^\s=])(?:[^=\n]|=(?!=))*?(?<=[^\s=])==(?!=)")


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """markdown-it inline rule: ``[[...]]`` and ``![[...]]`` as one ``wikilink`` token.

    Parsing them before links and emphasis keeps ``*`` or ``_`` inside a target from
    turning into emphasis, and ``[[a]](b)`` from becoming a markdown link.
    """
    src, pos = state.src, state.pos
    if src[pos] == "!":
        if not src.startswith("![[", pos):
            return False
    elif not src.startswith("[[", pos):
        return False
    m = _WIKILINK.match(src, pos)
    if m is None:
        return False
    target, anchor, _label = split_wikilink(m.group(2))
    if not target and not anchor:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.content = m.group(2)
        token.meta = {"embed": m.group(1) == "!"}
    state.pos = m.end()
    return True


def _bare_url_rule(state: StateInline, silent: bool) -> bool:
    """markdown-it inline rule: a bare ``https://`` URL as a link, as Obsidian shows it.

    It fires at the ``:`` of ``://`` (``:`` stops markdown-it's text rule) with the
    scheme still in the pending text, as markdown-it's own linkify rule does, and takes
    exactly the URL the core's :func:`~wikitui.core.vault.links.bare_url_at` finds, so the
    links rendered are the core's tab stops.
    """
    pos = state.pos
    if state.linkLevel > 0 or not state.src.startswith("://", pos):
        return False
    pending = state.pending
    scheme = "https" if pending.endswith("https") else "http" if pending.endswith("http") else ""
    if not scheme:
        return False
    start = pos - len(scheme)
    url = bare_url_at(state.src, start)
    if url is None or start + len(url) > state.posMax:
        return False
    if not silent:
        state.pending = pending[: -len(scheme)]
        token = state.push("link_open", "a", 1)
        token.attrs = {"href": url}
        token.markup, token.info = "linkify", "auto"
        state.push("text", "", 0).content = url
        token = state.push("link_close", "a", -1)
        token.markup, token.info = "linkify", "auto"
    state.pos = start + len(url)
    return True


def _mark_rule(state: StateInline, silent: bool) -> bool:
    """markdown-it inline rule: ``==text==`` as ``mark_open``, the text's own inline tokens, ``mark_close``.

    As Obsidian: the text may not start or end with a space, and may hold emphasis,
    links and code; the closing ``==`` is the first one after the text.
    """
    src, pos = state.src, state.pos
    if not src.startswith("==", pos) or src.startswith("===", pos):
        return False
    m = _MARK.match(src, pos, state.posMax)
    if m is None:
        return False
    if not silent:
        end = state.posMax
        state.push("mark_open", "mark", 1).markup = "=="
        state.pos, state.posMax = pos + 2, m.end() - 2
        state.md.inline.tokenize(state)
        state.push("mark_close", "mark", -1).markup = "=="
        state.posMax = end
    state.pos = m.end()
    return True


def _footnotes_seen(state: StateCore) -> None:
    """After a piece's inline parse: remember the number each footnote got (``env["footnote_numbers"]``)."""
    refs = state.env.get("footnotes", {}).get("refs", {})
    state.env.setdefault("footnote_numbers", {}).update((k, v) for k, v in refs.items() if v >= 0)


def _footnotes_kept(state: StateCore) -> None:
    """After a piece's block parse: a definition parsed now keeps the number earlier pieces' references gave it.

    The footnote plugin resets a label's number when it meets its definition, which is
    right for a whole page parsed at once (definitions are read before any reference) but
    not for a page parsed in chunks, where the references may be in an earlier chunk.
    """
    known = state.env.get("footnote_numbers")
    refs = state.env.get("footnotes", {}).get("refs")
    if known and refs:
        for label, number in refs.items():
            if number < 0 and label in known:
                refs[label] = known[label]


def label_scan_cost(src: str) -> int:
    """About how many characters markdown-it scans looking for the link labels of ``src``.

    Each ``[`` that no ``]`` closes makes it scan to the end of the paragraph. Brackets
    are matched as a stack, escapes aside; code spans are not looked at: the estimate
    only decides how a pathological paragraph is parsed.
    """
    n = len(src)
    if src.count("[") * n <= LABEL_SCAN_SLACK or "[" not in src:  # every ordinary paragraph stops here
        return 0
    open_at: list[int] = []  # positions of the brackets still open
    escaped = False
    for pos, ch in enumerate(src):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "[":
            open_at.append(pos)
        elif ch == "]" and open_at:
            open_at.pop()
    return sum(n - pos for pos in open_at)


def _bounded(src: str) -> bool:
    return label_scan_cost(src) <= LABEL_SCANS_PER_CHAR * len(src) + LABEL_SCAN_SLACK


def _bounded_inline(state: StateCore) -> None:
    """markdown-it's core ``inline`` rule, with link-free parsing for pathological paragraphs."""
    md = state.md
    for token in state.tokens:
        if token.type == "inline":
            if token.children is None:
                token.children = []
            parser = md if _bounded(token.content) else _linkless_parser()
            parser.inline.parse(token.content, parser, state.env, token.children)


def _new_parser() -> MarkdownIt:
    # CommonMark's preset stops parsing at 20 levels of nesting and silently drops the
    # rest of the page; outliners nest lists deeper than that.
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from mdit_py_plugins.footnote import footnote_plugin

    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING, "breaks": True}).enable("table").enable("strikethrough")
    # ``$5 and $6`` is money, not math (digits next to the dollars); ``$$…$$`` inside a paragraph is math too.
    dollarmath_plugin(md, allow_labels=False, allow_digits=False, double_inline=True)
    # Definitions stay where they are written (a page is parsed in chunks, a definition may come
    # in a later one); a reference is one even when its definition is yet to be parsed.
    footnote_plugin(md, inline=False, move_to_end=False, always_match_refs=True)
    md.core.ruler.after("block", "footnotes_kept", _footnotes_kept)
    md.core.ruler.after("inline", "footnotes_seen", _footnotes_seen)
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.inline.ruler.before("emphasis", "mark", _mark_rule)
    md.inline.ruler.before("text", "bare_url", _bare_url_rule)
    return md


@lru_cache(maxsize=1)
def _linkless_parser() -> MarkdownIt:
    """The parser without markdown links and images, for paragraphs of unclosed brackets."""
    return _new_parser().disable(["link", "image"])


@lru_cache(maxsize=1)
def markdown_parser() -> MarkdownIt:
    """The shared parser: CommonMark plus tables, strikethrough, wikilinks and bare URLs.

    As in Obsidian (its "strict line breaks" off), a single newline inside a paragraph
    is a line break: ``breaks`` is set, and the block builder honours it.
    """
    md = _new_parser()
    md.core.ruler.at("inline", _bounded_inline)
    return md
