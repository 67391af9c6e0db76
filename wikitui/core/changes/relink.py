"""Rewriting links when a page moves, so that every link that reached it still does.

A link that names the page by file stem or path (``[[Old Stem]]``,
``[[folder/Old Stem|label]]``, ``[x](../folder/Old%20Stem.md#h)``) is rewritten to
the new stem or path; its label, anchor and embed mark stay. A link by title or
alias needs nothing: the title moves with the page. The moved page's own relative
markdown links are recomputed from its new folder.
"""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath
from urllib.parse import quote, unquote

from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.links import Link
from wikitui.core.vault.names import settle
from wikitui.core.vault.page import parse_page

_BOM = "\ufeff"


def _stem(path: str) -> str:
    return PurePosixPath(path).stem


def _rank(path: str) -> tuple[int, str]:
    return (len(path), path)


def _tail_matches(graph: LinkGraph, cand: str, base: str) -> bool:
    c = cand.lower()[:-3] if cand.lower().endswith(".md") else cand.lower()
    w = graph.vault.wiki_relative(cand).lower()
    w = w[:-3] if w.endswith(".md") else w
    return c == base or w == base or c.endswith("/" + base)


def resolves_after_move(
    target: str, graph: LinkGraph, old_path: str, new_path: str, from_path: str | None = None
) -> bool:
    """Whether a wikilink target that reaches ``old_path`` still reaches the page once it is at ``new_path``.

    Replays the resolution order (stem or path, then title, then aliases) over the
    vault as it will be, a tie settled as the graph settles it (exact path, the
    linking page's folder ``from_path``, the shortest path): a link by title or alias
    usually survives a move; a link by the old stem does not.
    """
    tl = target.strip().replace("\\", "/").lstrip("/").lower()
    base = tl[:-3] if tl.endswith(".md") else tl
    last = base.rsplit("/", 1)[-1]
    cands = [p for p in graph.pages if p != old_path and _stem(p).lower() == last]
    if _stem(new_path).lower() == last:
        cands.append(new_path)
    if "/" in base:
        cands = [c for c in cands if _tail_matches(graph, c, base)]
    if cands:
        return settle(graph.vault, cands, base, from_path) == new_path
    info = graph.pages.get(old_path)
    if info is None:
        return False
    # A title that fell back to the file stem changes with the file name.
    stem_title = not info.meta.get("title") and info.title == _stem(old_path)
    title = _stem(new_path) if stem_title else info.title
    for by_title in (True, False):
        if by_title:
            others = [p for p, i in graph.pages.items() if p != old_path and i.title.lower() == tl]
            mine = title.lower() == tl
        else:
            others = [p for p, i in graph.pages.items() if p != old_path and tl in (a.lower() for a in i.aliases)]
            mine = tl in (a.lower() for a in info.aliases)
        cands = others + ([new_path] if mine else [])
        if cands:
            return settle(graph.vault, cands, "", from_path) == new_path
    return False


def new_wikilink_target(
    target: str, graph: LinkGraph, old_path: str, new_path: str, from_path: str | None = None
) -> str | None:
    """The target a wikilink to ``old_path`` should carry once the page is at ``new_path``.

    None when the link keeps resolving as written (by title or alias, say). Else
    the bare new stem when that resolves to the moved page (from ``from_path``, the
    linking page as it will be), or the shortest path-qualified form that does; a
    written ``.md`` extension is kept.
    """
    if resolves_after_move(target, graph, old_path, new_path, from_path):
        return None
    t = target.strip().replace("\\", "/")
    tl = t.lower()
    has_ext = tl.endswith(".md")
    base = tl[:-3] if has_ext else tl
    new_stem = _stem(new_path)
    same_stem = [p for p in graph.pages if p != old_path and _stem(p).lower() == new_stem.lower()]
    cands = sorted([*same_stem, new_path], key=_rank)
    ext = t[-3:] if has_ext else ""
    if "/" not in base and settle(graph.vault, cands, new_stem.lower(), from_path) == new_path:
        return new_stem + ext
    no_ext = new_path[:-3] if new_path.lower().endswith(".md") else new_path
    wrel = graph.vault.wiki_relative(no_ext)
    tails = sorted((c for c in cands if _tail_matches(graph, c, wrel.lower())), key=_rank)
    if tails and settle(graph.vault, tails, wrel.lower(), from_path) == new_path:
        return wrel + ext
    return no_ext + ext


def _path_target(graph: LinkGraph, target: str, resolved: str) -> str:
    """A target naming ``resolved`` by its path (an exact path reaches it from any folder); ``.md`` kept as written."""
    has_ext = target.strip().lower().endswith(".md")
    stem_path = resolved[:-3] if resolved.lower().endswith(".md") and not has_ext else resolved
    return graph.vault.wiki_relative(stem_path)


def _replace_wiki_target(raw: str, new_target: str) -> str:
    """``raw`` (``[[...]]`` or ``![[...]]``) with its target replaced, all else kept."""
    prefix = "![[" if raw.startswith("![[") else "[["
    inner = raw[len(prefix) : -2]
    cut = inner.find("|")
    head = inner if cut < 0 else inner[:cut]
    hash_at = head.find("#")
    seg_end = hash_at if hash_at >= 0 else len(head)
    seg = head[:seg_end]
    core = seg.rstrip("\\")  # ``[[A\|b]]`` inside a table
    escapes = seg[len(core) :]
    lead = core[: len(core) - len(core.lstrip())]
    trail = core[len(core.rstrip()) :]
    return prefix + lead + new_target + trail + escapes + inner[seg_end:] + "]]"


def _url_span(raw: str) -> tuple[int, int, bool] | None:
    """Start and end of the URL inside ``[label](url "title")``, and whether it is in ``<...>``."""
    at = raw.rfind("](")
    if at < 0:
        return None
    i = at + 2
    while i < len(raw) and raw[i] in " \t":
        i += 1
    if raw.startswith("<", i):
        end = raw.find(">", i)
        return (i + 1, end, True) if end > 0 else None
    j = i
    while j < len(raw) and raw[j] not in " \t)":
        j += 1
    return i, j, False


def _replace_md_url(raw: str, new_path_part: str) -> str:
    span = _url_span(raw)
    if span is None:
        return raw
    start, end, angled = span
    url = raw[start:end]
    path_part, hash_sign, anchor = url.partition("#")
    if "%" in path_part:
        new = quote(new_path_part, safe="/")
    elif " " in new_path_part and not angled:
        return raw[:start] + "<" + new_path_part + hash_sign + anchor + ">" + raw[end:]
    else:
        new = new_path_part
    return raw[:start] + new + hash_sign + anchor + raw[end:]


def _md_style(link: Link, from_path: str, resolved: str) -> str:
    """How a markdown link reached its target: ``relative``, ``rooted`` or ``name``."""
    target = unquote(link.target)
    if posixpath.normpath(posixpath.join(posixpath.dirname(from_path), target)) == resolved:
        return "relative"
    if posixpath.normpath(target.lstrip("/")) == resolved:
        return "rooted"
    return "name"


def _relative(target_path: str, located_at: str) -> str:
    return posixpath.relpath(target_path, posixpath.dirname(located_at) or ".")


def rewrite_links_for_move(
    text: str,
    source_path: str,
    *,
    old_path: str,
    new_path: str,
    graph: LinkGraph,
    skip_from: int | None = None,
) -> tuple[str, int]:
    """Rewrite the links in ``text`` (the page at ``source_path``) for a move of ``old_path``.

    Args:
        text: The page's exact text (a BOM as ``\\ufeff``).
        source_path: Where the page is now (its links resolve from here).
        old_path: The moving page's current path.
        new_path: Where it goes.
        graph: The link graph of the vault before the move.
        skip_from: Offset (in the BOM-less text) from which links are left alone
            (the wikitui-generated part of index.md).

    Returns:
        The new text and the number of links rewritten.
    """
    bom = _BOM if text.startswith(_BOM) else ""
    body = text[len(bom) :]
    info = parse_page(source_path, body)
    moved_itself = source_path == old_path
    located_at = new_path if moved_itself else source_path
    count = 0
    for link in reversed(info.links):
        if link.kind == "url" or not link.target:
            continue
        if skip_from is not None and link.start >= skip_from:
            continue
        resolved = graph.resolve(link, source_path)
        if resolved is None:
            continue
        raw = body[link.start : link.end]
        new_raw = raw
        if link.kind == "wiki":
            if resolved != old_path:
                if moved_itself and graph.resolve_target(link.target, new_path) != resolved:
                    # A name two notes share, settled by the moving page's folder: from its new
                    # folder it would reach the other one, so it names its target by path.
                    new_raw = _replace_wiki_target(raw, _path_target(graph, link.target, resolved))
                    body = body[: link.start] + new_raw + body[link.end :]
                    count += 1
                continue
            target = new_wikilink_target(link.target, graph, old_path, new_path, located_at)
            if target is not None and target != link.target:
                new_raw = _replace_wiki_target(raw, target)
        else:
            if resolved != old_path and not moved_itself:
                continue
            style = _md_style(link, source_path, resolved)
            if resolved != old_path and style == "relative":
                joined = posixpath.normpath(posixpath.join(posixpath.dirname(new_path), unquote(link.target)))
                if joined == resolved:
                    continue  # still reaches its target from the new folder
            dest = new_path if resolved == old_path else resolved
            if style == "relative" or (style == "name" and resolved == old_path):
                new_raw = _replace_md_url(raw, _relative(dest, located_at))
            elif style == "rooted" and resolved == old_path:
                new_raw = _replace_md_url(raw, "/" + dest if unquote(link.target).startswith("/") else dest)
        if new_raw != raw:
            body = body[: link.start] + new_raw + body[link.end :]
            count += 1
    return bom + body, count
