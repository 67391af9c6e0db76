"""Lint's checks that read page text (DESIGN §11): ``contradiction`` and ``near-duplicate``.

- ``contradiction``: one problem per ``> [!contradiction]`` callout (path, line, the other
  page as target, the claim as message); it is resolved by deleting the callout.
- ``near-duplicate``: two pages whose names are near-equal or whose bodies share most
  of their text (:mod:`~wikitui.core.vault.duplicates`); one problem on each page of a
  pair, the other page as target. A page and its translation (another ``lang``, a
  parallel language folder) are not a pair.

Both read the pages' text through the :mod:`~wikitui.core.vault.text_facts` cache; the
pairs of near-equal names are kept too, until a page's names change.
"""

from __future__ import annotations

import hashlib
import json

from wikitui.core.vault.duplicates import RULES_VERSION, name_pairs, near_duplicates, page_language
from wikitui.core.vault.files import atomic_write
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.problem import Problem
from wikitui.core.vault.text_facts import load_text_facts


def text_problems(vault: Vault, graph: LinkGraph) -> list[Problem]:
    """The ``contradiction`` and ``near-duplicate`` problems of the vault (unsorted)."""
    special = {vault.index_path, vault.log_path}
    pages = [p for p in graph.pages if p not in special]
    facts = load_text_facts(graph, pages)
    out: list[Problem] = []
    for page in pages:
        for c in facts[page].contradictions:
            out.append(Problem("contradiction", page, c.line, c.other, c.claim))
    names = {p: list(graph.pages[p].names) for p in pages}
    shingles = {p: facts[p].shingles for p in pages}
    languages = {p: page_language(p, graph.pages[p].meta) for p in pages}
    titles, plurals = _cached_name_pairs(graph, names)
    for dup in near_duplicates(names, shingles, titles=titles, plurals=plurals, languages=languages):
        out.append(Problem("near-duplicate", dup.a, None, dup.b, f"near-duplicate of {dup.b}: {dup.why}"))
        out.append(Problem("near-duplicate", dup.b, None, dup.a, f"near-duplicate of {dup.a}: {dup.why}"))
    return out


def _cached_name_pairs(graph: LinkGraph, names: dict[str, list[str]]) -> tuple[dict[tuple[str, str], str],
                                                                            dict[tuple[str, str], str]]:
    """:func:`name_pairs`, from ``.wikitui/cache/near-titles.json`` when no page's names changed since."""
    key = hashlib.sha256(json.dumps([RULES_VERSION, names], sort_keys=True, ensure_ascii=False,
                                    default=str).encode("utf-8", "surrogatepass")).hexdigest()
    path = graph.vault.state_dir / "cache" / "near-titles.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("key") == key:
            return ({(a, b): why for a, b, why in data["pairs"]}, {(a, b): why for a, b, why in data["plurals"]})
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass  # no cache, or a damaged one: computed again
    pairs, plurals = name_pairs(names)
    try:
        atomic_write(path, json.dumps({"key": key, "pairs": [[a, b, why] for (a, b), why in sorted(pairs.items())],
                                       "plurals": [[a, b, why] for (a, b), why in sorted(plurals.items())]},
                                      ensure_ascii=False))
    except OSError:
        pass  # a read-only vault: no cache
    return pairs, plurals
