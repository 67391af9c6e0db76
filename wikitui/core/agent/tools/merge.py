"""The ``propose_merge`` tool (DESIGN §11): two pages about one thing become one, in one changeset.

The merged page keeps ``into_path``'s text and gains ``from_path``'s body under a
heading naming it; ``from_path``'s title and aliases join its ``aliases`` (and its
``sources`` and ``tags`` are added); every link that reached ``from_path`` is rewritten to
reach the merged page, keeping what the reader sees (``[[Cheshire Kitty]]`` becomes
``[[Cheshire Cat|Cheshire Kitty]]``); ``from_path`` is deleted. Everything is computed
before anything is recorded, so a refused merge records nothing. Lexical near-duplicates
come from lint's ``near-duplicate`` check; the model finds the semantic ones.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import quote

from wikitui.core.agent.tools.propose import Claim
from wikitui.core.agent.tools.registry import tool
from wikitui.core.changes.model import ProposalError
from wikitui.core.vault.files import read_text
from wikitui.core.vault.frontmatter_edit import FrontmatterEditError, set_frontmatter_keys
from wikitui.core.vault.page import parse_page
from wikitui.core.vault.text_facts import body_of
from wikitui.core.base.words import plural

_BOM = "\ufeff"
_INDEX_MARKER = "<!-- wikitui:index -->"


def _page_path(box, name: str, what: str) -> str:
    hit = box.graph.find_page(name) if isinstance(name, str) and name.strip() else None
    if hit is None:
        raise ProposalError(f"{what} {name!r} is not a page of the wiki; give its path (see list_pages)")
    if hit in (box.vault.index_path, box.vault.log_path):
        raise ProposalError(f"{hit} cannot be merged: wikitui keeps it")
    return hit


def _current_text(box, path: str) -> str:
    proposed = box.builder.proposed_text(path)
    return proposed if proposed is not None else read_text(box.vault.root / path)


def _wiki_target(box, from_path: str, into_path: str, source: str) -> str:
    """The shortest wikilink target that reaches ``into_path`` from the page ``source`` once ``from_path`` is gone."""
    graph = box.graph
    info = graph.pages[into_path]
    stem = posixpath.splitext(posixpath.basename(into_path))[0]
    for cand in (info.title, stem):
        if cand and graph.resolve_target(cand, source) == into_path:
            return cand
    return posixpath.splitext(box.vault.wiki_relative(into_path))[0]


def relink(box, text: str, source: str, from_path: str, into_path: str) -> tuple[str, int]:
    """``text`` (the page at ``source``) with every link that reaches ``from_path`` pointed at ``into_path``.

    Returns:
        The new text and the number of links rewritten.
    """
    bom = _BOM if text.startswith(_BOM) else ""
    body = text[len(bom):]
    skip = None
    if source == box.vault.index_path and _INDEX_MARKER in body:
        skip = body.index(_INDEX_MARKER)  # wikitui regenerates the catalog below the marker
    target = _wiki_target(box, from_path, into_path, source)
    count = 0
    for link in reversed(parse_page(source, body).links):
        if link.kind == "url" or not link.target or (skip is not None and link.start >= skip):
            continue
        if box.graph.resolve(link, source) != from_path:
            continue
        if link.kind == "wiki":
            head = target + (f"#{link.anchor}" if link.anchor else "")
            label = link.label or link.target  # what the reader saw stays
            new = ("![[" if link.embed else "[[") + head + (f"|{label}" if label != head else "") + "]]"
        else:
            url = quote(posixpath.relpath(into_path, posixpath.dirname(source) or "."))
            new = ("!" if link.embed else "") + f"[{link.label}]({url}" + (f"#{link.anchor}" if link.anchor else "") + ")"
        body = body[:link.start] + new + body[link.end:]
        count += 1
    return bom + body, count


def rebase_md_links(box, text: str, source: str, new_folder: str) -> str:
    """``text`` (the page at ``source``) with its relative markdown links rewritten to work from ``new_folder``."""
    old_folder = posixpath.dirname(source)
    if old_folder == new_folder:
        return text
    bom = _BOM if text.startswith(_BOM) else ""
    body = text[len(bom):]
    for link in reversed(parse_page(source, body).links):
        if link.kind != "md" or not link.target or link.target.startswith("/"):
            continue
        resolved = box.graph.resolve(link, source)
        if resolved is None:
            continue
        url = quote(posixpath.relpath(resolved, new_folder or "."))
        new = ("!" if link.embed else "") + f"[{link.label}]({url}" + (f"#{link.anchor}" if link.anchor else "") + ")"
        body = body[:link.start] + new + body[link.end:]
    return bom + body


def _merged_list(*values) -> list[str]:
    out: list[str] = []
    for value in values:
        items = value if isinstance(value, list) else ([value] if value else [])
        for item in items:
            s = str(item).strip()
            if s and s.casefold() not in {o.casefold() for o in out}:
                out.append(s)
    return out


def _joined(box, from_path: str, into_path: str, from_text: str, into_text: str) -> str:
    """The merged page: into's text, from's body under a heading, names and sources carried over."""
    src = box.graph.pages[from_path]
    dst = box.graph.pages[into_path]
    body = body_of(from_text.lstrip(_BOM), src.body_line).strip("\n")
    body = re.sub(r"\A#\s+" + re.escape(src.title) + r"[ \t]*\n+", "", body)  # its title heading: the new one says it
    merged = into_text.rstrip("\n") + f"\n\n## {src.title}\n\n" + body + "\n"
    aliases = [a for a in _merged_list(dst.aliases, src.title, src.aliases) if a.casefold() != dst.title.casefold()]
    updates: dict = {"aliases": aliases}
    sources = _merged_list(dst.meta.get("sources"), src.meta.get("sources"))
    if sources:
        updates["sources"] = sources
    tags = _merged_list(dst.meta.get("tags"), src.meta.get("tags"))
    if tags:
        updates["tags"] = tags
    try:
        return set_frontmatter_keys(merged, updates)
    except FrontmatterEditError as exc:
        raise ProposalError(f"{into_path}: its frontmatter cannot be edited ({exc}); fix it first") from None


@tool("propose", lambda arg, args: f"proposed merging {arg('from_path')} into {arg('into_path')}")
def propose_merge(box, from_path: str, into_path: str, reason: str, evidence: list[Claim] | None = None) -> str:
    """Propose merging two pages about the same thing: from_path's text joins into_path, then from_path is deleted.

    from_path's title becomes an alias of into_path, and every link to from_path is rewritten
    to reach into_path, all in this turn's changeset. Search first: merge only true duplicates.

    Args:
        from_path: The page that goes away.
        into_path: The page that stays and receives the text.
        reason: One line saying why, shown to the user.
    """
    src = _page_path(box, from_path, "from_path")
    dst = _page_path(box, into_path, "into_path")
    if src == dst:
        raise ProposalError(f"{src}: from_path and into_path are the same page")
    from_text, _ = relink(box, _current_text(box, src), src, src, dst)
    from_text = rebase_md_links(box, from_text, src, posixpath.dirname(dst))  # its text moves to dst's folder
    into_text, own = relink(box, _current_text(box, dst), dst, src, dst)
    merged = _joined(box, src, dst, from_text, into_text)
    rewrites: dict[str, str] = {}
    total = own
    sources = {b.source for b in box.graph.backlinks(src)}
    sources |= {d.path for d in box.builder.drafts() if d.path.endswith(".md")}  # pages this turn wrote: new links
    for source in sorted(sources - {src, dst, box.vault.log_path}):
        text, n = relink(box, _current_text(box, source), source, src, dst)
        if n:
            rewrites[source] = text
            total += n
    box.builder.new_page(dst, merged, reason, carried=from_text,  # from's text is not the model's
                         evidence=[dict(e) for e in evidence] if evidence else None)
    for source, text in rewrites.items():
        box.builder.new_page(source, text, f"links to {src} now point to {dst}")
    box.builder.delete(src, reason)
    return (f"recorded merge of {src} into {dst} (its title is now an alias); "
            f"{plural(total, 'link')} in {plural(len(rewrites) + (1 if own else 0), 'page')} rewritten; {src} deleted")
