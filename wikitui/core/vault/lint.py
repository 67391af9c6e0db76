"""Deterministic wiki checks (DESIGN §6): the first half of ``/lint`` and ``wikitui lint``.

Each check has a stable name and meaning, part of the ``lint --json`` contract:

- ``broken-link``: one problem per link occurrence whose target resolves to nothing
  (embeds of missing files included; external URLs are not checked).
- ``too-many-links``: a page with more links than wikitui reads (``page.MAX_LINKS``):
  links past that are not in backlinks, the graph or ``broken-link``.
- ``orphan``: a page no other page links to, links from index.md and log.md not counting.
- ``not-in-index``: a page index.md does not link (only when there is an index.md).
- ``missing-frontmatter``: no frontmatter, or no ``title`` / ``type`` / ``summary``.
- ``invalid-frontmatter``: frontmatter YAML that does not parse.
- ``duplicate-title``: two pages sharing a title or an alias, case-insensitively.
- ``uningested-source``: a file in raw/ (raw/assets/ aside) that no page lists in ``sources``.
- ``stale``: a page whose listed source changed by content since wikitui first saw it listed,
  last wrote the page, or the user marked it reviewed (a source its recorded claims cover aside).
- ``stale-claim``: a claim whose evidence lines changed since it was applied: its quote moved to
  other lines, or vanished from the source (DESIGN §11 "Evidence").
- ``contradiction``: a ``> [!contradiction]`` callout (DESIGN §11), the claim as message.
- ``near-duplicate``: two pages with near-equal names or mostly the same text (DESIGN §11).

log.md is history and is not checked at all; index.md is checked for its links only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.lint_text import text_problems
from wikitui.core.vault.page import MAX_LINKS
from wikitui.core.vault.problem import Problem
from wikitui.core.vault.staleness import SourceRecords, page_sources, resolver_for_graph

__all__ = ["CHECKS", "REQUIRED_FIELDS", "LintReport", "Problem", "run_lint"]

#: Every check, in report order.
CHECKS = (
    "broken-link",
    "too-many-links",
    "orphan",
    "not-in-index",
    "missing-frontmatter",
    "invalid-frontmatter",
    "duplicate-title",
    "uningested-source",
    "stale",
    "stale-claim",
    "contradiction",
    "near-duplicate",
)
#: Frontmatter fields every page should have.
REQUIRED_FIELDS = ("title", "type", "summary")


@dataclass(slots=True)
class LintReport:
    """The result of :func:`run_lint`: problems in a deterministic order, and a count per check."""

    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The JSON form of ``wikitui lint --json``."""
        return {"problems": [p.to_dict() for p in self.problems], "counts": dict(self.counts)}

    @property
    def ok(self) -> bool:
        """Whether no problem was found."""
        return not self.problems


def _link_text(target: str, anchor: str, embed: bool) -> str:
    inner = target + (f"#{anchor}" if anchor else "")
    return ("!" if embed else "") + f"[[{inner}]]"


def _broken_links(vault: Vault, graph: LinkGraph) -> list[Problem]:
    out = []
    for path, link in graph.unresolved():
        if path == vault.log_path:
            continue
        target = link.target + (f"#{link.anchor}" if link.anchor else "")
        shown = _link_text(link.target, link.anchor, link.embed) if link.kind == "wiki" else f"({link.target})"
        what = "embedded file" if link.embed else "link"
        out.append(Problem("broken-link", path, link.line, target, f"{what} {shown} resolves to nothing"))
    return out


def _too_many_links(vault: Vault, graph: LinkGraph) -> list[Problem]:
    return [
        Problem("too-many-links", path, None, None, f"more than {MAX_LINKS:,} links: links past them are not read")
        for path, info in graph.pages.items()
        if info.links_cut
    ]


def _content_pages(vault: Vault, graph: LinkGraph) -> list[str]:
    """Pages the page-level checks look at: all but index.md and log.md."""
    special = {vault.index_path, vault.log_path}
    return [p for p in graph.pages if p not in special]


def _orphans(vault: Vault, graph: LinkGraph) -> list[Problem]:
    return [Problem("orphan", p, None, None, "no other page links here") for p in graph.orphans()]


def _not_in_index(vault: Vault, graph: LinkGraph) -> list[Problem]:
    index = vault.index_path
    if index not in graph.pages:
        return []
    listed = {target for _link, target in graph.outgoing(index) if target is not None}
    return [
        Problem("not-in-index", p, None, None, f"{index} does not link this page")
        for p in _content_pages(vault, graph)
        if p not in listed
    ]


def _frontmatter(vault: Vault, graph: LinkGraph) -> list[Problem]:
    out = []
    for p in _content_pages(vault, graph):
        info = graph.pages[p]
        if info.frontmatter_error is not None:
            message = f"frontmatter does not parse: {info.frontmatter_error}"
            out.append(Problem("invalid-frontmatter", p, 1, None, message))
            continue
        if not info.has_frontmatter:
            out.append(Problem("missing-frontmatter", p, 1, None, "no frontmatter (title, type, summary)"))
            continue
        meta = info.meta
        # page.py reads ``description`` as the summary, as many Obsidian vaults write it.
        present = {
            "title": meta.get("title"),
            "type": meta.get("type"),
            "summary": meta.get("summary") or meta.get("description"),
        }
        missing = [k for k in REQUIRED_FIELDS if present[k] is None or not str(present[k]).strip()]
        if missing:
            out.append(Problem("missing-frontmatter", p, 1, None, f"frontmatter lacks {', '.join(missing)}"))
    return out


def _duplicate_titles(vault: Vault, graph: LinkGraph) -> list[Problem]:
    owners: dict[str, dict[str, str]] = {}  # lowered name -> {path: name as written}
    for p in _content_pages(vault, graph):
        info = graph.pages[p]
        for name in info.names:
            if name.strip():
                owners.setdefault(name.strip().casefold(), {}).setdefault(p, name.strip())
    out = []
    for paths in owners.values():
        if len(paths) < 2:
            continue
        for p, name in paths.items():
            others = sorted(q for q in paths if q != p)
            message = f"title or alias \"{name}\" is also used by {', '.join(others)}"
            out.append(Problem("duplicate-title", p, None, name, message))
    return out


def _uningested(vault: Vault, graph: LinkGraph) -> list[Problem]:
    assets = f"{vault.raw_prefix}/assets/"
    raws = [p for p in graph.raw_files if not p.startswith(assets)]
    if not raws:
        return []
    resolver = resolver_for_graph(graph)
    listed: set[str] = set()
    for p, info in graph.pages.items():
        if p != vault.log_path:
            listed.update(resolver.resolve_all(page_sources(info)))
    return [
        Problem("uningested-source", r, None, None, "no page lists this source in its sources")
        for r in raws
        if r not in listed
    ]


def _stale(vault: Vault, graph: LinkGraph) -> list[Problem]:
    special = {vault.index_path, vault.log_path}
    return [
        Problem("stale", page, None, src, f"{src} changed since this page was written or reviewed")
        for page, src in SourceRecords(vault).stale(graph)
        if page not in special
    ]


def _stale_claims(vault: Vault, graph: LinkGraph) -> list[Problem]:
    from wikitui.core.vault.claims import ClaimRecords

    out = []
    for c in ClaimRecords(vault).stale():
        if c.page not in graph.pages:
            continue
        out.append(Problem("stale-claim", c.page, claim_line_of(vault, c.page, c.claim), c.source, c.describe()))
    return out


def claim_line_of(vault: Vault, page: str, claim: str) -> int | None:
    """The 1-based line of ``page`` that starts stating ``claim`` (None when it is not found as written)."""
    from wikitui.core.vault.files import read_text

    try:
        text = read_text(vault.root / page)
    except OSError:
        return None
    head = claim.rstrip("…").strip()[:60]
    at = text.find(head) if head else -1
    return text.count("\n", 0, at) + 1 if at != -1 else None


def run_lint(vault: Vault, graph: LinkGraph, *, text_checks: bool = True) -> LintReport:
    """Run every deterministic check over the vault.

    Reads the graph, the sources' bytes (for ``stale``) and the pages' text (for
    ``contradiction`` and ``near-duplicate``); writes only wikitui's state under
    ``.wikitui/`` (source hashes first seen, a cache of what the pages' text says).

    Args:
        vault: The vault.
        graph: Its link graph.
        text_checks: False leaves out the checks that read page text (benchmarks compare).

    Returns:
        A :class:`LintReport`: problems sorted by check (in :data:`CHECKS` order),
        path, line and target; ``counts`` has every check name, zeros included.
    """
    problems: list[Problem] = []
    checks = (_broken_links, _too_many_links, _orphans, _not_in_index, _frontmatter, _duplicate_titles, _uningested)
    for check in (*checks, _stale, _stale_claims):
        problems.extend(check(vault, graph))
    if text_checks:
        problems.extend(text_problems(vault, graph))
    order = {name: i for i, name in enumerate(CHECKS)}
    # Broken links keep reading order within a line; everything else is ordered by target.
    problems.sort(
        key=lambda p: (order[p.check], p.path, p.line or 0, "" if p.check == "broken-link" else p.target or "")
    )
    counts = {name: 0 for name in CHECKS}
    for p in problems:
        counts[p.check] += 1
    return LintReport(problems, counts)
