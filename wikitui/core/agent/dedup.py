"""Dedup as it goes (DESIGN §11, §13): a new page named like an existing one comes back as a suggestion.

Before ``propose_page`` creates a page (a path that exists neither on disk, nor in a
batch's earlier proposals, nor earlier in this turn), the wiki as the turn sees it
(the overlay's graph in a batch) and this turn's new pages are searched for a page
with the same title or alias, or a near-equal one as lint's ``near-duplicate`` check
defines it (:func:`~wikitui.core.vault.duplicates.same_subject`). A match is an error
result naming the page, so "Transformers" is not created beside "Transformer"; the
same call a second time goes through (the model insists).
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from wikitui.core.changes.model import ProposalError
from wikitui.core.vault.duplicates import FoldedNames, same_subject
from wikitui.core.vault.page import parse_page

#: Matches named in one suggestion.
SHOWN = 3


def check_new_page(box, path: str, content: str) -> None:
    """Refuse, once per path, a new page whose subject an existing page seems to hold.

    Raises:
        ProposalError: naming the existing page(s) and what to do.
    """
    if box.builder is None or not isinstance(content, str):
        return
    try:
        rel, exists = box.builder.exists(path)
    except ProposalError:
        return  # propose_page itself says why the path is refused
    if exists or rel in box.warned or not rel.lower().endswith(".md"):
        return
    headings = bool(box.vault.wiki_prefix)
    names = list(parse_page(rel, content.lstrip("\ufeff"), heading_titles=headings).names)
    special = {box.vault.index_path, box.vault.log_path, rel}
    pages = _folded_names(box.graph).of(box.graph.pages)
    folded = {p: entries for p, entries in pages.items() if p not in special}
    others: dict[str, list[str]] = {}
    for draft in box.builder.drafts():  # new pages proposed earlier in this turn
        if draft.created and not draft.binary and draft.path != rel and draft.path.lower().endswith(".md"):
            others[draft.path] = list(parse_page(draft.path, draft.after, heading_titles=headings).names)
    matches = same_subject(names, others, folded)
    if not matches:
        return
    box.warned.add(rel)
    named = ", ".join(f"{page} (title '{_title(box, page, name)}')" for page, name in matches[:SHOWN])
    verb = "looks like" if len(matches) == 1 else "look like"
    raise ProposalError(f"{named} {verb} the same subject; propose_edit it instead, or call propose_page again "
                        f"with the same path to create {rel} anyway")


#: Each graph's pages' folded names, kept while the graph lives (a turn proposes many pages against one).
_FOLDED: WeakKeyDictionary = WeakKeyDictionary()


def _folded_names(graph) -> FoldedNames:
    names = _FOLDED.get(graph)
    if names is None:
        names = _FOLDED[graph] = FoldedNames()
    return names


def _title(box, page: str, name: str) -> str:
    info = box.graph.pages.get(page)
    return info.title if info is not None else name
