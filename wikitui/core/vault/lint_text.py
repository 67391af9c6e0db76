"""Lint's checks that read page text (DESIGN §11): ``contradiction`` and ``near-duplicate``.

- ``contradiction``: one problem per ``> [!contradiction]`` callout (path, line, the other
  page as target, the claim as message); it is resolved by deleting the callout.
- ``near-duplicate``: two pages whose names are near-equal or whose bodies share most
  of their text (:mod:`~wikitui.core.vault.duplicates`); one problem on each page of a
  pair, the other page as target.

Both read the pages' text through the :mod:`~wikitui.core.vault.text_facts` cache.
"""

from __future__ import annotations

from wikitui.core.vault.duplicates import near_duplicates
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
    for dup in near_duplicates(names, shingles):
        out.append(Problem("near-duplicate", dup.a, None, dup.b, f"near-duplicate of {dup.b}: {dup.why}"))
        out.append(Problem("near-duplicate", dup.b, None, dup.a, f"near-duplicate of {dup.a}: {dup.why}"))
    return out
