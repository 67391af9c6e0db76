"""Near-duplicate pages (DESIGN §11): lint's ``near-duplicate`` check, without comparing every pair.

Two pages are near-duplicates when a title or alias of one is near-equal to one of the
other (rapidfuzz ``token_set_ratio`` >= :data:`TITLE_SCORE` after case and accent
folding), or when their bodies share most of their 5-word shingles (an estimated
Jaccard similarity >= :data:`BODY_SHARE` over the sampled shingles of
:mod:`~wikitui.core.vault.text_facts`).

Only candidates are compared: names that share a block key (the first four letters of
a folded token), bodies that share a sampled shingle. Keys held by more than
:data:`BLOCK_CUT` pages are boilerplate and block nothing. Names equal after case
folding are ``duplicate-title``'s, not this check's. ``token_set_ratio`` scores 100 when
one name's words are a subset of the other's ("Queen" and "Queen of Hearts"): such a
pair counts only when the extra words are articles ("Cheshire Cat", "The Cheshire Cat").
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import combinations

#: Title similarity (rapidfuzz token_set_ratio, 0-100) from which names are near-equal.
TITLE_SCORE = 90
#: Shared share of shingles from which bodies are near-duplicates.
BODY_SHARE = 0.8
#: Sampled shingles a body needs before it is compared (short pages share phrases by chance).
MIN_SHINGLES = 8
#: A block key held by more pages than this blocks nothing.
BLOCK_CUT = 60
#: Words that may be added to a name without making it another name.
ARTICLES = frozenset({"the", "a", "an", "le", "la", "les", "der", "die", "das"})
_NON_WORD = re.compile(r"[\W_]+")


@dataclass(slots=True, frozen=True)
class NearDuplicate:
    """One pair of near-duplicate pages (``a`` < ``b``).

    Attributes:
        a: One page.
        b: The other.
        why: One line: the names compared, or the share of text.
    """

    a: str
    b: str
    why: str


def fold(name: str) -> str:
    """A name folded for comparison: accents dropped, case folded, punctuation as spaces."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_NON_WORD.sub(" ", bare.casefold()).split())


def _subset_only(a: set[str], b: set[str]) -> bool:
    """Whether one token set strictly holds the other with words other than articles."""
    small, big = (a, b) if len(a) <= len(b) else (b, a)
    return small < big and bool((big - small) - ARTICLES)


def title_pairs(names: dict[str, list[str]]) -> dict[tuple[str, str], str]:
    """Pairs of pages with near-equal names.

    Args:
        names: {page: its title and aliases as written}.

    Returns:
        {(a, b): why} with a < b.
    """
    from rapidfuzz.fuzz import token_set_ratio  # a C extension: loaded when lint runs this check

    entries: list[tuple[str, str, str, frozenset[str]]] = []  # page, name, folded, tokens
    for page, page_names in names.items():
        seen = set()
        for name in page_names:
            folded = fold(name)
            if folded and folded not in seen:
                seen.add(folded)
                entries.append((page, name.strip(), folded, frozenset(folded.split())))
    blocks: dict[str, list[int]] = defaultdict(list)
    for i, (_p, _n, _f, tokens) in enumerate(entries):
        for key in {t[:4] for t in tokens if t not in ARTICLES}:
            blocks[key].append(i)
    out: dict[tuple[str, str], str] = {}
    tried: set[tuple[int, int]] = set()
    for members in blocks.values():
        if len(members) < 2 or len(members) > BLOCK_CUT:
            continue
        for i, j in combinations(members, 2):
            pa, na, fa, ta = entries[i]
            pb, nb, fb, tb = entries[j]
            if pa == pb or (i, j) in tried:
                continue
            tried.add((i, j))
            pair = (pa, pb) if pa < pb else (pb, pa)
            if pair in out or na.casefold() == nb.casefold():
                continue  # equal names are duplicate-title's
            if _subset_only(set(ta), set(tb)):
                continue
            if token_set_ratio(fa, fb) >= TITLE_SCORE:
                out[pair] = f'"{na}" and "{nb}" are near-equal names'
    return out


def body_pairs(shingles: dict[str, tuple[int, ...]]) -> dict[tuple[str, str], str]:
    """Pairs of pages whose bodies share at least :data:`BODY_SHARE` of their sampled shingles.

    Args:
        shingles: {page: sorted sampled shingle hashes}.

    Returns:
        {(a, b): why} with a < b.
    """
    holders: dict[int, list[str]] = defaultdict(list)
    for page, sample in shingles.items():
        if len(sample) >= MIN_SHINGLES:
            for h in sample:
                holders[h].append(page)
    shared: Counter[tuple[str, str]] = Counter()
    for pages in holders.values():
        if 2 <= len(pages) <= BLOCK_CUT:
            shared.update(combinations(sorted(pages), 2))
    out: dict[tuple[str, str], str] = {}
    for (a, b), common in shared.items():
        na, nb = len(shingles[a]), len(shingles[b])
        # Jaccard can reach BODY_SHARE only if the smaller set is nearly all shared.
        if common < BODY_SHARE * min(na, nb):
            continue
        jaccard = common / (na + nb - common)
        if jaccard >= BODY_SHARE:
            out[(a, b)] = f"the bodies share about {round(jaccard * 100)}% of their text"
    return out


def near_duplicates(names: dict[str, list[str]], shingles: dict[str, tuple[int, ...]]) -> list[NearDuplicate]:
    """Every near-duplicate pair, by names first, then by bodies; sorted."""
    found = body_pairs(shingles)
    found.update(title_pairs(names))  # a pair found both ways is named by its names
    return [NearDuplicate(a, b, why) for (a, b), why in sorted(found.items())]
