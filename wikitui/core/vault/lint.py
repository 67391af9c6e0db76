"""Deterministic wiki checks (DESIGN §6): the first half of ``/lint`` and ``wikitui lint``.

Each check has a stable name and meaning, part of the ``lint --json`` contract:

- ``broken-link``: one problem per link occurrence whose target resolves to nothing
  (embeds of missing files included; external URLs are not checked).
- ``too-many-links``: a page with more links than wikitui reads (``page.MAX_LINKS``):
  links past that are not in backlinks, the graph or ``broken-link``.
- ``orphan``: a page no other page links to, links from index.md and log.md not counting.
- ``not-in-index``: a page index.md does not link (only when wikitui keeps the catalog: index.md
  carries its marker line; a hand-written index.md is the vault's own, not a list to complete).
- ``missing-frontmatter``: no frontmatter, or a field missing of those the vault asks for: its
  schema's, else ``title`` / ``type`` / ``summary`` where wikitui keeps the catalog or the pages
  use them (:func:`~wikitui.core.vault.schema.lint_rules`); none in a vault that asks for none.
- ``invalid-frontmatter``: frontmatter YAML that does not parse.
- ``duplicate-title``: two pages sharing a title or an alias, case-insensitively (a page and its
  translation, in another language by ``lang`` or a parallel language folder, may share one).
- ``uningested-source``: a file in raw/ (raw/assets/ aside) that no page lists in ``sources`` (or
  ``source``), nor cites by the web address the file was clipped from (its frontmatter's
  ``source_url``, ``url`` or ``source``), in its frontmatter or its text.
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

from wikitui.core.vault.duplicates import page_language, translations
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.lint_text import text_problems
from wikitui.core.vault.page import MAX_LINKS
from wikitui.core.vault.problem import Problem
from wikitui.core.vault.schema import DEFAULT_FIELDS, LintRules, lint_rules
from wikitui.core.vault.staleness import (SourceRecords, page_sources, resolver_for_graph, same_address,
                                          source_addresses)

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
#: Frontmatter fields every page of a vault that uses wikitui's fields should have.
REQUIRED_FIELDS = DEFAULT_FIELDS


@dataclass(slots=True)
class LintReport:
    """The result of :func:`run_lint`: problems in a deterministic order, and a count per check."""

    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The JSON form of ``wikitui lint --json``."""
        return {"problems": [p.to_dict() for p in self.problems], "counts": dict(self.counts)}

    def groups(self) -> list[tuple[str, list[Problem]]]:
        """The problems by check, the smallest group first (ties in :data:`CHECKS` order): the three broken
        links a person fixes come before the thousand orphans of a vault that links little."""
        by_check: dict[str, list[Problem]] = {}
        for p in self.problems:
            by_check.setdefault(p.check, []).append(p)
        order = {name: i for i, name in enumerate(CHECKS)}
        return sorted(by_check.items(), key=lambda item: (len(item[1]), order.get(item[0], len(order))))

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


def _not_in_index(vault: Vault, graph: LinkGraph, rules: LintRules) -> list[Problem]:
    index = vault.index_path
    if index not in graph.pages or not rules.catalog_kept:
        return []
    listed = {target for _link, target in graph.outgoing(index) if target is not None}
    return [
        Problem("not-in-index", p, None, None, f"{index} does not link this page")
        for p in _content_pages(vault, graph)
        if p not in listed
    ]


def _frontmatter(vault: Vault, graph: LinkGraph, rules: LintRules) -> list[Problem]:
    out = []
    fields = rules.fields
    asks = f" ({rules.why})" if rules.why else ""
    for p in _content_pages(vault, graph):
        info = graph.pages[p]
        if info.frontmatter_error is not None:
            message = f"frontmatter does not parse: {info.frontmatter_error}"
            out.append(Problem("invalid-frontmatter", p, 1, None, message))
            continue
        if not fields:
            continue  # the vault asks for no frontmatter
        if not info.has_frontmatter:
            out.append(Problem("missing-frontmatter", p, 1, None, f"no frontmatter{asks}"))
            continue
        meta = info.meta
        missing = [k for k in fields if not _has_field(meta, k)]
        if missing:
            out.append(Problem("missing-frontmatter", p, 1, None, f"frontmatter lacks {', '.join(missing)}{asks}"))
    return out


def _has_field(meta: dict, key: str) -> bool:
    """Whether the frontmatter has ``key`` with a value; page.py reads ``description`` as the summary, as many
    Obsidian vaults write it, and ``source`` as ``sources``."""
    value = meta.get(key)
    if value is None and key in ("summary", "sources"):
        value = meta.get("description" if key == "summary" else "source")
    return value is not None and bool(str(value).strip())


def _duplicate_titles(vault: Vault, graph: LinkGraph) -> list[Problem]:
    owners: dict[str, dict[str, str]] = {}  # lowered name -> {path: name as written}
    for p in _content_pages(vault, graph):
        info = graph.pages[p]
        for name in info.names:
            if name.strip():
                owners.setdefault(name.strip().casefold(), {}).setdefault(p, name.strip())
    out = []
    languages: dict[str, str | None] = {}
    for paths in owners.values():
        if len(paths) < 2:
            continue
        for p in paths:
            if p not in languages:
                languages[p] = page_language(p, graph.pages[p].meta)
        for p, name in paths.items():
            others = sorted(q for q in paths if q != p and not translations(languages[p], languages[q]))
            if not others:
                continue  # its translations only
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
    cited: list[str] = []  # web addresses pages cite, in their sources or their text
    for p, info in graph.pages.items():
        if p == vault.log_path:
            continue
        refs = page_sources(info)
        listed.update(resolver.resolve_all(refs))
        cited.extend(r for r in refs if "://" in r)
        cited.extend(link.target for link in info.links if link.kind == "url")
    left = [r for r in raws if r not in listed]
    if left and cited:
        addresses = {same_address(u) for u in cited}
        left = [r for r in left if not any(same_address(u) in addresses for u in source_addresses(vault, r))]
    return [Problem("uningested-source", r, None, None, "no page lists this source in its sources") for r in left]


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
    rules = lint_rules(vault, graph)
    for check in (_broken_links, _too_many_links, _orphans):
        problems.extend(check(vault, graph))
    problems.extend(_not_in_index(vault, graph, rules))
    problems.extend(_frontmatter(vault, graph, rules))
    for check in (_duplicate_titles, _uningested, _stale, _stale_claims):
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
