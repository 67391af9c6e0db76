"""Citations checked (DESIGN §11): every ``[[link]]`` and raw path in an answer or a proposal is resolved.

An answer cites pages as ``[[Page]]`` and sources by path (``raw/x.md``, or
``raw/x.pdf#page=3``, whose page must exist). :func:`check_citations` resolves each with
the link graph's resolution (and the converters' ``resolve_citation`` for a page of a
source); :func:`proposal_unresolved` does the same for the links a changeset adds,
counting the pages it creates as existing; :func:`hunk_unresolved` says which hunks add
such a link, for the review's marks. The turn returns the unresolved ones to the model
once (:func:`feedback`); what is still unresolved is listed under the answer and in
``ask --json``.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wikitui.core.vault.formats.citations import parse_citation, resolve_citation
from wikitui.core.vault.links import Link, extract_links
from wikitui.core.vault.page import parse_page

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.changes.model import Changeset
    from wikitui.core.vault.graph import LinkGraph

_PAGE_ANCHOR = re.compile(r"^(?:page|slide)=?\d{1,9}$", re.IGNORECASE)
_TRAILING = ".,:;!?'\"*_"


@dataclass(slots=True, frozen=True)
class Cited:
    """One citation.

    Attributes:
        target: As written: ``Page``, ``Page#Heading``, ``raw/x.md``, ``raw/x.pdf#page=3``.
        path: The vault-relative file it reaches, or None when it is unresolved.
    """

    target: str
    path: str | None

    def to_dict(self) -> dict:
        """The JSON form: ``{"target", "path"}``."""
        return {"target": self.target, "path": self.path}


class _Names:
    """Pages a changeset creates, by the names a link may use (stem, title, aliases), and those it removes."""

    def __init__(self, pages: dict[str, str], gone: set[str] | frozenset = frozenset()) -> None:
        #: Paths the changeset deletes or moves away from: a link that reaches one will break.
        self.gone = set(gone)
        self.by_name: dict[str, str] = {}
        for path, text in pages.items():
            info = parse_page(path, text.lstrip("\ufeff"))
            stem = posixpath.splitext(posixpath.basename(path))[0]
            # A file that is not a page (a chart's picture) is reached by its name with its suffix.
            whole = () if path.endswith(".md") else (path, posixpath.basename(path))
            for name in (stem, posixpath.splitext(path)[0], info.title, *info.aliases, *whole):
                if name:
                    self.by_name.setdefault(name.strip().casefold(), path)

    def resolve(self, target: str) -> str | None:
        t = target.strip().casefold()
        t = t[:-3] if t.endswith(".md") else t
        return self.by_name.get(t) or self.by_name.get(t.rsplit("/", 1)[-1])


def _raw_pattern(prefix: str) -> re.Pattern:
    return re.compile(rf"(?<![\w/.\-]){re.escape(prefix)}/[^\s\[\]()`'\"<>|,;]+")


def _file(graph: "LinkGraph", path: str) -> str | None:
    if path in graph.raw_files or path in graph.other_files or path in graph.pages:
        return path
    low = path.casefold()
    for files in (graph.raw_files, graph.other_files):
        for cand in files:
            if cand.casefold() == low:
                return cand
    return None


def _page_ok(graph: "LinkGraph", path: str, anchor: str) -> bool:
    """Whether a source's ``#page=N`` exists (any other anchor, and any page's heading, is fine)."""
    if not anchor or not _PAGE_ANCHOR.match(anchor) or path in graph.pages:
        return True
    try:
        return resolve_citation(graph.vault, f"{path}#{anchor}").problem is None
    except Exception:  # noqa: BLE001 - a source that cannot be read cannot back the citation
        return False


def _link_target(link: Link) -> str:
    return link.target + (f"#{link.anchor}" if link.anchor else "")


def _resolve_link(graph: "LinkGraph", link: Link, from_path: str, names: _Names | None) -> str | None:
    path = graph.resolve(link, from_path)
    if path is not None and names is not None and path in names.gone:
        path = None  # the page goes with this changeset: only a page it creates can take the name
    if path is None and names is not None and link.kind == "wiki":
        path = names.resolve(link.target)
    if path is not None and not _page_ok(graph, path, link.anchor):
        return None
    return path


def _citations(text: str, graph: "LinkGraph", from_path: str, names: _Names | None) -> list[tuple[Cited, int]]:
    """Every citation of ``text`` with its 1-based line, in reading order (duplicates kept)."""
    out: list[tuple[int, Cited, int]] = []
    spans = []
    for link in extract_links(text):
        spans.append((link.start, link.end))
        if link.kind == "url" or not link.target:
            continue
        out.append((link.start, Cited(_link_target(link), _resolve_link(graph, link, from_path, names)), link.line))
    prefix = graph.vault.raw_prefix
    if prefix and prefix + "/" in text:
        for m in _raw_pattern(prefix).finditer(text):
            if any(a <= m.start() < b for a, b in spans):
                continue
            ref = m.group(0).rstrip(_TRAILING)
            if ref.endswith("/"):
                continue  # a folder named, not a source cited
            path, page = parse_citation(ref)
            hit = _file(graph, path)
            if hit is not None and page is not None and not _page_ok(graph, hit, ref.partition("#")[2]):
                hit = None
            out.append((m.start(), Cited(ref, hit), text.count("\n", 0, m.start()) + 1))
    out.sort(key=lambda item: item[0])
    return [(cited, line) for _at, cited, line in out]


def check_citations(text: str, graph: "LinkGraph", *, from_path: str = "", builder=None) -> list[Cited]:
    """The citations of an answer, each once, in reading order, resolved or not.

    Args:
        text: The answer's markdown.
        graph: The vault's link graph.
        from_path: Where relative markdown links resolve from ("" : the vault's root).
        builder: The turn's changeset builder: pages it proposes to create count as existing.
    """
    names = _Names({path: "" if binary else new for path, _b, new, created, binary in _drafts(builder) if created},
                   builder.gone()) if builder else None
    seen: set[str] = set()
    out: list[Cited] = []
    for cited, _line in _citations(text, graph, from_path, names):
        if cited.target not in seen:
            seen.add(cited.target)
            out.append(cited)
    return out


def unresolved(citations: list[Cited]) -> list[str]:
    """The targets of the citations that resolve to nothing."""
    return [c.target for c in citations if c.path is None]


def _created(changeset: "Changeset") -> _Names:
    return _Names({f.final_path: "" if f.binary else f.new_text for f in changeset.files
                   if f.action in ("create", "move")},
                  {f.path for f in changeset.files if f.action in ("delete", "move")})


def _new_unresolved(graph: "LinkGraph", path: str, base: str, new: str, names: _Names) -> list[tuple[str, int]]:
    """(target, line) of the unresolved citations ``new`` has beyond those ``base`` had already."""
    before: dict[str, int] = {}
    for cited, _line in _citations(base, graph, path, names) if base else []:
        if cited.path is None:
            before[cited.target] = before.get(cited.target, 0) + 1
    out = []
    for cited, line in _citations(new, graph, path, names):
        if cited.path is None:
            if before.get(cited.target, 0) > 0:
                before[cited.target] -= 1  # it was there already: not this changeset's doing
            else:
                out.append((cited.target, line))
    return out


def proposal_unresolved(changeset: "Changeset | None", graph: "LinkGraph") -> list[tuple[str, str]]:
    """(path, target) of each unresolved citation a changeset adds (pages it creates count as existing)."""
    if changeset is None:
        return []
    drafts = [(f.final_path, f.base_text, f.new_text, f.action in ("create", "move"), f.binary)
              for f in changeset.files if f.action != "delete" and f.new_text]
    return _drafts_unresolved(drafts, graph, {f.path for f in changeset.files if f.action in ("delete", "move")})


def builder_unresolved(builder, graph: "LinkGraph") -> list[tuple[str, str]]:
    """:func:`proposal_unresolved` for a turn's proposals so far, without building the changeset.

    Building one proposes each edited page's ``updated:`` date through a YAML round trip
    (milliseconds a page); the check needs only each page's text before and after.
    """
    return _drafts_unresolved(_drafts(builder), graph, builder.gone())


def _drafts(builder) -> list[tuple[str, str, str, bool, bool]]:
    """(final path, text before, text after, created or moved, binary) of each file a builder proposes to write."""
    return [tuple(d) for d in builder.drafts() if d.after]


def _drafts_unresolved(drafts: list[tuple[str, str, str, bool, bool]], graph: "LinkGraph",
                       gone: set[str]) -> list[tuple[str, str]]:
    """(path, target) for drafts ``(final path, text before, text after, created or moved, binary)``; ``gone``:
    removed paths. A binary file (a chart's picture) is a name links may reach, never text searched for links:
    its bytes, decoded exactly, hold lone surrogates and whatever looks like a link by chance."""
    names = _Names({path: "" if binary else new for path, _base, new, created, binary in drafts if created}, gone)
    out: list[tuple[str, str]] = []
    for path, base, new, _created_here, binary in drafts:
        if binary:
            continue
        out.extend((path, t) for t, _line in _new_unresolved(graph, path, base, new, names))
    return out


def hunk_unresolved(changeset: "Changeset", graph: "LinkGraph") -> dict[str, list[str]]:
    """{hunk id: the unresolved targets it adds}: the hunks the review marks."""
    names = _created(changeset)
    out: dict[str, list[str]] = {}
    for f in changeset.files:
        if f.action == "delete" or not f.new_text or f.binary:  # a picture's bytes are not text to scan
            continue
        for target, line in _new_unresolved(graph, f.final_path, f.base_text, f.new_text, names):
            for hunk in f.hunks:
                if hunk.kind == "text" and _adds_line(hunk, line):
                    out.setdefault(hunk.id, []).append(target)
                    break
    return out


def _adds_line(hunk, line: int) -> bool:
    """Whether ``hunk`` adds new line ``line`` (1-based)."""
    n = hunk.new_start if hunk.new_len else hunk.new_start + 1
    for raw in hunk.lines:
        if raw.startswith("+"):
            if n == line:
                return True
            n += 1
        elif raw.startswith(" "):
            n += 1
    return False


def feedback(answer_missing: list[str], proposal_missing: list[tuple[str, str]],
             quotes: list[tuple[str, str]] | None = None) -> str:
    """The one message that returns unresolved citations, and evidence its sources do not hold
    (``quotes``: (page, what is wrong)), to the model before the turn ends."""
    parts = []
    if answer_missing:
        parts.append("your answer cites " + ", ".join(_shown(t) for t in answer_missing))
    if proposal_missing:
        parts.append("your proposals add " + ", ".join(f"{_shown(t)} (in {p})" for p, t in proposal_missing))
    text = ""
    if parts:
        verb = "resolves" if len(answer_missing) + len(proposal_missing) == 1 else "resolve"
        text = ("[wikitui: citations checked: " + "; ".join(parts) + f", which {verb} to nothing. Cite pages that "
                "exist (search or list_pages to find them) and raw paths that exist, fix the proposals with "
                "propose_edit, or drop what you cannot back; then give your answer again in full.]")
    if quotes:
        listed = "; ".join(f"{why} (evidence for {page})" for page, why in quotes)
        text += ("\n" if text else "") + (
            "[wikitui: evidence checked: " + listed + ". Copy each quote exactly from a read of the source (or "
            "give the line range read shows), then send the corrected evidence: propose_edit with the edit's new "
            "text as both old and new and the fixed evidence, or propose_page again; drop a claim you cannot back. "
            "Then give your answer again in full.]")
    return text


def _shown(target: str) -> str:
    return target if "/" in target and not target.endswith("]]") and "." in target.rsplit("/", 1)[-1] \
        else f"[[{target}]]"
