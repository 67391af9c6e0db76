"""The read tools: ``search``, ``read``, ``list_pages`` and ``links`` (DESIGN §4); they never write.

Each is a function of the turn's tool box (``box``) registered with
:func:`~wikitui.core.agent.tools.registry.tool`; its parameters and docstring are
the schema the model sees. Results are compact text that cites vault-relative paths.
"""

from __future__ import annotations

from typing import Any, Literal

from wikitui.core.agent.numbered import numbered
from wikitui.core.agent.reading import describe_binary, overlaid, resolve_readable
from wikitui.core.agent.sources import WithPictures  # (read_source, which needs more, is imported where used)
from wikitui.core.agent.tools.registry import Arg, tool
from wikitui.core.base.errors import UnknownPage
from wikitui.core.vault.files import decode_text, is_binary
from wikitui.core.vault.formats.kinds import needs_conversion
from wikitui.core.base.words import plural

#: Files larger than this are not read at all.
MAX_READ_BYTES = 32 * 1024 * 1024


def _describe_search(arg: Arg, args: dict[str, Any]) -> str:
    scope = f" in {arg('scope')}" if arg("scope") and arg("scope") != "all" else ""
    return f'searched "{arg("query")}"{scope}'


def _describe_read(arg: Arg, args: dict[str, Any]) -> str:
    offset = args.get("offset")
    more = f" from line {int(offset) + 1}" if isinstance(offset, int) and offset > 0 else ""
    return f"read {arg('path')}{more}"


def _describe_list_pages(arg: Arg, args: dict[str, Any]) -> str:
    bits = [b for b in (arg("folder"), f"type {arg('type')}" if arg("type") else "") if b]
    return "listed pages" + (" in " + ", ".join(bits) if bits else "")


@tool("read", _describe_search)
def search(box, query: str, scope: Literal["all", "wiki", "raw"] = "all", limit: int = 10) -> str:
    """Full-text search over the wiki's pages and the raw sources. Use a few keywords, not a sentence.

    Supports "exact phrases", prefix*, fuzzy~, tag:x, type:concept.

    Args:
        query: Keywords to look for.
        scope: "wiki" (pages), "raw" (sources) or "all".
        limit: Most hits to return (1-50).
    """
    index = box.index()
    limit = max(1, min(limit, 50))
    extra = min(box.overlay.size(), 50) if box.overlay is not None else 0  # room for stale hits dropped below
    hits = index.search(query, scope=scope, limit=limit + extra)
    notes = [f"Note: {note}" for note in getattr(hits, "notes", ())]  # e.g. a fuzzy distance capped at 2
    if box.overlay is not None:
        hits = _with_overlay(box.overlay, hits, query, scope, limit)
    if not hits:
        return "\n".join([f'0 hits for "{query}" (scope {scope}). Try fewer or other words, a prefix*, '
                          "a fuzzy~ match, or list_pages.", *notes])
    lines = [f'{len(hits)} hit{"s" if len(hits) != 1 else ""} for "{query}" (scope {scope}):', *notes]
    for i, hit in enumerate(hits, 1):
        where = f", line {hit.line}" if hit.line else ""
        lines.append(f"{i}. {hit.path} — {hit.title} ({hit.kind}{where}, score {hit.score:.1f})")
        snippet = " ".join(hit.snippet.split())
        if snippet:
            lines.append(f"   {snippet[:300]}")
    return "\n".join(lines)


def _with_overlay(overlay, hits, query: str, scope: str, limit: int) -> list:
    """The index's hits with the batch's proposed pages: theirs first (leaving the disk's half the room when
    it has as many), the disk's stale hits on proposed or deleted pages dropped."""
    disk = [h for h in hits if not overlay.knows(h.path)]
    mine = overlay.search(query, max(limit - len(disk), (limit + 1) // 2)) if scope != "raw" else []
    return (mine + disk)[:limit]


@tool("read", _describe_read)
def read(box, path: str, offset: int = 0, limit: int = 400) -> str | WithPictures:
    """Read a page or a raw source with numbered lines. Long files come in parts.

    PDFs, web pages, Word/PowerPoint/Excel, CSV and JSON come as converted text (a PDF with a [page N] line
    before each page); a picture as the picture itself when you can see images, else a description.

    Args:
        path: A vault-relative path (wiki/..., raw/...), a path inside the wiki folder, or a page's title or alias.
        offset: Lines to skip (0 starts at the top; use the offset a previous read suggested).
        limit: Lines to return (at most 400).
    """
    if box.overlay is not None:
        proposed = overlaid(box.vault, box.graph, box.overlay, path)
        if proposed is not None:
            return _read_proposed(box, proposed, offset, limit)
    rel, absolute = resolve_readable(box.vault, box.graph, path)
    if needs_conversion(rel):  # PDFs, web pages, documents, tables, images: their converted text
        from wikitui.core.agent.sources import read_source

        return read_source(box, rel, offset, limit)
    size = absolute.stat().st_size
    if size > MAX_READ_BYTES:
        return f"{rel}: {size:,} bytes, too large to read; search it instead (search with scope raw)"
    data = absolute.read_bytes()
    if is_binary(data):
        return describe_binary(box.vault, box.graph, rel, data)
    text, ok = decode_text(data)
    return _numbered_page(box, rel, text, ok, offset, limit)


def _read_proposed(box, rel: str, offset: int, limit: int) -> str:
    """``read`` of a page an earlier changeset of the batch proposes (or deletes)."""
    text = box.overlay.read(rel)
    by = box.overlay.proposed_by(rel)
    if text is None:
        raise UnknownPage(f"{rel} is deleted (or moved away) by changeset {by}, proposed earlier in this batch")
    return _numbered_page(box, rel, text, True, offset, limit, proposed=by)


def _numbered_page(box, rel: str, text: str, ok: bool, offset: int, limit: int, proposed: str | None = None) -> str:
    head = rel
    info = box.graph.pages.get(rel)
    if info is not None:
        kind = f", {info.type}" if info.type else ""
        head += f' (page "{info.title}"{kind})'
    elif box.vault.is_raw(rel):
        head += " (raw source, read-only)"
    notes = [f"[as proposed by changeset {proposed}, earlier in this batch; not applied yet]"] if proposed else []
    if not ok:
        notes.append("[not valid UTF-8: undecodable bytes shown as \ufffd]")
    if info is not None and info.warnings:
        notes.append("[page warnings: " + "; ".join(info.warnings) + "]")
    return numbered(head, text, offset, limit, box.max_result_chars - 400, notes=notes)


@tool("read", _describe_list_pages)
def list_pages(box, folder: str = "", type: str = "") -> str:  # noqa: A002 - the contract's name
    """List pages with their titles and summaries, optionally in one folder and/or of one type.

    Args:
        folder: A folder, e.g. "wiki/concepts" or "concepts" ("" for all).
        type: A frontmatter type such as "entity", "concept", "source" ("" for all).
    """
    prefix = folder.strip().strip("/").replace("\\", "/")
    if prefix and box.vault.wiki_prefix and not prefix.startswith(box.vault.wiki_prefix + "/") \
            and prefix != box.vault.wiki_prefix:
        prefix = box.vault.join_wiki(prefix)
    want = type.strip().lower()
    rows = []
    for path in sorted(box.graph.pages):
        if prefix and not (path.startswith(prefix + "/") or path == prefix):
            continue
        info = box.graph.pages[path]
        if want and info.type.lower() != want:
            continue
        kind = f" [{info.type}]" if info.type else ""
        summary = f": {info.summary[:140]}" if info.summary else ""
        rows.append(f"{path} — {info.title}{kind}{summary}")
    where = f" in {prefix}/" if prefix else ""
    of_type = f" of type {want}" if want else ""
    if not rows:
        types = sorted({i.type for i in box.graph.pages.values() if i.type})
        return f"0 pages{where}{of_type}. Types in this wiki: {', '.join(types) or 'none'}."
    shown = rows[:300]
    more = [f"[{len(rows) - len(shown)} more; narrow with folder= or type=]"] if len(rows) > len(shown) else []
    return "\n".join([f"{plural(len(rows), 'page')}{where}{of_type}:", *shown, *more])


@tool("read", lambda arg, args: f"looked at the links of {arg('path')}")
def links(box, path: str) -> str:
    """A page's outgoing links, backlinks (with the line of context) and unresolved links.

    Args:
        path: The page's path, title or alias.
    """
    rel = box.graph.find_page(path)
    if rel is None:
        rel, _ = resolve_readable(box.vault, box.graph, path)
    info = box.graph.pages.get(rel)
    lines = [f'{rel} ("{info.title}")' if info else rel]
    if info is not None:
        out = box.graph.outgoing(rel)
        graph_links = [(lk, t) for lk, t in out if lk.kind != "url"]
        lines.append(f"Outgoing ({len(graph_links)}):")
        for link, target in graph_links[:150]:
            lines.append(f"- line {link.line}: [[{link.target}{'#' + link.anchor if link.anchor else ''}]] → "
                         f"{target or 'UNRESOLVED'}")
    back = box.graph.backlinks(rel)
    lines.append(f"Backlinks ({len(back)}):")
    for b in back[:150]:
        lines.append(f"- {b.source}:{b.link.line}: {b.link.context[:160]}")
    if info is not None:
        unresolved = [lk for lk, t in box.graph.outgoing(rel) if t is None and lk.kind != "url"]
        lines.append(f"Unresolved ({len(unresolved)}): " + (", ".join(sorted({f"[[{lk.target}]]" for lk in unresolved})) or "none"))
    return "\n".join(lines)
