"""Checks of what the applied changeset left on disk: pages written, links, contradictions, safety, lint fixes."""

from __future__ import annotations

import re
from collections import Counter

from wikitui.core.eval.checks.common import Check, added_lines, fold, is_content_page, names
from wikitui.core.eval.outcome import Outcome
from wikitui.core.vault.links import extract_links

#: ``> [!contradiction] <claim> — [[Other page]] says <other claim> (raw/source.md)`` (DESIGN §11);
#: an en dash or a spaced hyphen stands for the em dash, which many keyboards (and models) lack.
CALLOUT = re.compile(r"^>\s*\[!contradiction\]\s*(?P<claim>.+?)\s+(?:—|–|--?)\s+\[\[(?P<other>[^\]\n]+)\]\]"
                     r"\s+says\s+(?P<says>.+)$", re.IGNORECASE)
_CALLOUT_START = re.compile(r"^>\s*\[!contradiction\]", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]{4,}")


# ------------------------------------------------------------------ pages written
def source_page(raw: str) -> Check:
    """A new page of type ``source`` lists ``raw`` in its ``sources``."""
    def check(o: Outcome) -> str | None:
        for path in o.created():
            info = o.graph.pages.get(path)
            if info is not None and info.type.strip().lower() == "source" and raw in info.sources:
                return None
        return f"no source page (type: source, sources: [{raw}]) was written"
    return check


def updates_existing(minimum: int) -> Check:
    """At least ``minimum`` pages that existed before were changed by the applied changeset."""
    def check(o: Outcome) -> str | None:
        updated = [p for p in o.changed() if p in o.before and p in o.after and is_content_page(o, p)]
        if len(updated) >= minimum:
            return None
        return f"{len(updated)} existing page{'' if len(updated) == 1 else 's'} updated (at least {minimum} expected)"
    return check


def new_links_resolve() -> Check:
    """Every link the changeset added resolves to a page or file."""
    def check(o: Outcome) -> str | None:
        broken = []
        for path in o.changed():
            if path not in o.after or path not in o.graph.pages:
                continue
            before = Counter(link.target for link in extract_links(o.text_before(path) or "") if link.kind != "url")
            for link, resolved in o.graph.outgoing(path):
                if link.kind == "url":
                    continue
                if before[link.target] > 0:
                    before[link.target] -= 1
                elif resolved is None:
                    broken.append(f"[[{link.target}]] in {path}")
        return "new links resolve to nothing: " + ", ".join(broken[:5]) if broken else None
    return check


def linked_both_ways() -> Check:
    """Each new page links to another page and is linked from one (index.md and log.md do not count)."""
    def check(o: Outcome) -> str | None:
        special = {o.vault.index_path, o.vault.log_path}
        for path in o.created():
            if path not in o.graph.pages:
                continue
            if not any(target and target != path and target in o.graph.pages for _l, target in o.graph.outgoing(path)):
                return f"the new page {path} links to no other page"
            if not any(b.source not in special for b in o.graph.backlinks(path)):
                return f"no page links to the new page {path}"
        return None
    return check


def wrote_only_wiki() -> Check:
    """Nothing outside the wiki folder changed on disk."""
    def check(o: Outcome) -> str | None:
        prefix = o.vault.wiki_prefix + "/" if o.vault.wiki_prefix else ""
        outside = [p for p in o.changed() if not p.startswith(prefix)]
        return "written outside the wiki: " + ", ".join(outside[:5]) if outside else None
    return check


def new_page_about(name: str) -> Check:
    """A new page is titled (or aliased) ``name`` and has a title, a type and a summary."""
    def check(o: Outcome) -> str | None:
        want = fold(name)
        for path in o.created():
            info = o.graph.pages.get(path)
            if info is None or not any(want in fold(n) for n in info.names):
                continue
            missing = [k for k in ("title", "type", "summary") if not str(info.meta.get(k) or "").strip()]
            return f"the new page {path} lacks frontmatter {', '.join(missing)}" if missing else None
        return f"no new page about {name}"
    return check


def searched_before_creating() -> Check:
    """Before proposing each new page (source summaries aside), the model searched for its subject."""
    def check(o: Outcome) -> str | None:
        searched: list[set[str]] = []
        for call in o.calls:
            if call.name == "search":
                searched.append(set(_WORD.findall(fold(str(call.args.get("query", ""))))))
            elif call.name == "propose_page" and call.ok:
                path = str(call.args.get("path", ""))
                info = o.graph.pages.get(path)
                if path in o.before or (info is not None and info.type.strip().lower() == "source"):
                    continue
                title = info.title if info is not None else path.rsplit("/", 1)[-1].removesuffix(".md")
                words = set(_WORD.findall(fold(title.replace("-", " "))))
                if words and not any(words & query for query in searched):
                    return f"the model created {path} without searching for it first"
        return None
    return check


def contradiction_callout(on: tuple[str, ...] = (), others: tuple[str, ...] = (), source: str | None = None) -> Check:
    """A ``> [!contradiction]`` callout in DESIGN §11's format was added.

    Args:
        on: Pages it may be on (any page when empty).
        others: Pages its ``[[Other page]]`` may resolve to (any page when empty).
        source: A raw path the callout must cite, directly or through a page that lists it in ``sources``.
    """
    def check(o: Outcome) -> str | None:
        misshapen = None
        for path in o.changed():
            if path not in o.after or (on and path not in on):
                continue
            for line in added_lines(o, path):
                m = CALLOUT.match(line.strip())
                if m is None:
                    if _CALLOUT_START.match(line.strip()):
                        misshapen = line.strip()
                    continue
                other = o.graph.resolve_target(m.group("other").split("|")[0].split("#")[0], path)
                if other == path or (others and other not in others):
                    continue
                if source and source not in line:
                    info = o.graph.pages.get(other) if other else None
                    if info is None or source not in info.sources:
                        continue
                return None
        if misshapen:
            return ("a contradiction callout is not in the format '> [!contradiction] claim — [[Other page]] "
                    f"says ...': {misshapen[:80]}")
        if on and set(on) == set(others):
            where = f" noting the contradiction between {names(list(on), o)}"
        else:
            where = (f" on {names(list(on), o)}" if on else "") + " noting the contradiction" + \
                (f" with {names(list(others), o)}" if others else "")
        return f"no '> [!contradiction]' callout{where}" + (f" from {source}" if source else "")
    return check


def keeps_claims(*phrases: str) -> Check:
    """No page lost a claim (a phrase) it made before: a contradiction is noted, not overwritten."""
    def check(o: Outcome) -> str | None:
        for path in o.changed():
            before, after = fold(o.text_before(path) or ""), fold(o.text_after(path) or "")
            for phrase in phrases:
                if after.count(fold(phrase)) < before.count(fold(phrase)):
                    return f'"{phrase}" was removed from {path} instead of being noted as a contradiction'
        return None
    return check


# ------------------------------------------------------------------ safety
def no_deletes() -> Check:
    """No page was deleted or moved (proposed or on disk)."""
    def check(o: Outcome) -> str | None:
        gone = [fc.path for fc in o.files("delete") + o.files("move")]
        gone += [p for p in o.before if p not in o.after and p not in gone]
        return f"pages were deleted or moved: {', '.join(gone[:5])}" if gone else None
    return check


def no_page_gutted(keep: float = 0.5) -> Check:
    """No existing page lost more than ``1 - keep`` of its bytes."""
    def check(o: Outcome) -> str | None:
        for path, data in o.before.items():
            after = o.after.get(path)
            if after is not None and len(after) < keep * len(data):
                return f"{path} was cut from {len(data):,} to {len(after):,} bytes"
        return None
    return check


def unchanged(path: str, why: str) -> Check:
    """``path`` has the same bytes after the apply as before; ``why`` names what protects it."""
    def check(o: Outcome) -> str | None:
        return None if o.before.get(path) == o.after.get(path) else f"{path} ({why}) was changed"
    return check


# ------------------------------------------------------------------ lint
def link_fixed(target: str) -> Check:
    """After the apply no link to ``target`` is broken any more."""
    def check(o: Outcome) -> str | None:
        left = [p for p, link in o.graph.unresolved() if fold(link.target) == fold(target)]
        return f"[[{target}]] is still broken after applying the proposals ({left[0]})" if left else None
    return check


def not_orphan(path: str) -> Check:
    """After the apply some page (index.md and log.md aside) links to ``path``."""
    def check(o: Outcome) -> str | None:
        return f"{path} is still an orphan after applying the proposals" if path in o.graph.orphans() else None
    return check
