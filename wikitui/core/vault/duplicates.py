"""Near-duplicate pages (DESIGN §11): lint's ``near-duplicate`` check, without comparing every pair.

Two pages are near-duplicates when a title or alias of one is near-equal to one of the
other (rapidfuzz ``token_set_ratio`` >= :data:`TITLE_SCORE` after case and accent
folding), or when their bodies share most of their 5-word shingles (an estimated
Jaccard similarity >= :data:`BODY_SHARE` over the sampled shingles of
:mod:`~wikitui.core.vault.text_facts`).

Only candidates are compared: names with the same words, or all words but one the same
and the odd one starting alike; bodies that share one of their few smallest sampled
shingle hashes (MinHash's bottom-k). Keys held by more than :data:`BLOCK_CUT` pages are
boilerplate and block nothing. Names equal after case folding are ``duplicate-title``'s,
not this check's. ``token_set_ratio`` alone scores "Queen" and "Queen of Hearts" 100 (a
subset), and "Entstehung der Energiepreispauschale" beside "Festsetzung der
Energiepreispauschale" over 90 (a long shared part): so the words one name has and the
other lacks must be near-equal too (:data:`DIFF_SCORE`), or be articles only ("Cheshire
Cat", "The Cheshire Cat"). Names whose numbers differ are never near-equal, however alike the
rest: "1962年11月" and "1962年12月" are two monthly letters, "Chapter 1" and "Chapter 2" two chapters.

Nor are (issue 24.8):

- a word and its plural ("Workspace" and "Workspaces", "Local vault" and "Local vaults": English
  ``-s``, ``-es``, ``-ies``), two pages a person made apart on purpose, unless their bodies
  overlap too (:data:`PLURAL_BODY_SHARE` of their sampled shingles);
- a short word (under :data:`SHORT_WORD` letters) and the same letters with more at the end
  ("SKILL" and "SkillX", "System" and "systemd"): a name with a letter added is another name,
  where a letter inside a long word is a spelling ("Colour", "Color" stay near-equal);
- a page and its translation: pages whose languages differ, by a ``lang`` (``language``)
  field or by parallel language folders (``en/`` and ``ru/``), see :func:`page_language`.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations

#: Title similarity (rapidfuzz token_set_ratio, 0-100) from which names are near-equal.
TITLE_SCORE = 90
#: Shared share of shingles from which bodies are near-duplicates.
BODY_SHARE = 0.8
#: How alike (rapidfuzz ratio, 0-100) the words two near-equal names do not share must be.
DIFF_SCORE = 85
#: Smallest sampled shingle hashes of a body that make its blocking keys.
BOTTOM_K = 4
#: Sampled shingles a body needs before it is compared (short pages share phrases by chance).
MIN_SHINGLES = 8
#: A block key held by more pages than this blocks nothing.
BLOCK_CUT = 60
#: Words that may be added to a name without making it another name.
ARTICLES = frozenset({"the", "a", "an", "le", "la", "les", "der", "die", "das"})
_NON_WORD = re.compile(r"[\W_]+")
_NUMBER = re.compile(r"\d+")
#: A word shorter than this with letters added at its end is another word ("skill", "skillx").
SHORT_WORD = 8
#: Shared share of sampled shingles from which a word's page and its plural's are near-duplicates.
PLURAL_BODY_SHARE = 0.3
#: Language folders (ISO 639-1 codes, with a region: ``pt-br``, ``zh-cn``) that make parallel trees.
LANGUAGE_CODES = frozenset(
    "ar bg bn ca cs da de el en eo es et eu fa fi fr ga gl he hi hr hu hy id is it ja ka kk ko lt lv mk mn ms "
    "nb nl nn no pl pt ro ru sk sl sq sr sv sw ta te th tl tr uk ur uz vi zh".split())
_LANGUAGE_FOLDER = re.compile(r"^([a-z]{2})(?:[-_][a-z]{2,4})?$")
#: Goes into the key of lint's cache of name pairs: bump when the rules for names change.
RULES_VERSION = 3


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
    if not name.isascii():
        decomposed = unicodedata.normalize("NFKD", name)
        name = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_NON_WORD.sub(" ", name.casefold()).split())


def _block_keys(tokens: frozenset[str]) -> list[tuple]:
    """Where a name may meet its near-equals: the same words (articles aside), or all but one word
    the same and the odd one starting alike. Names further apart never share a key."""
    words = tokens - ARTICLES
    keys: list[tuple] = [("=", words)]
    keys.extend(("~", words - {t}, t[:4]) for t in words)
    return keys


def _near_names(fa: str, ta: frozenset[str], fb: str, tb: frozenset[str], ratio, token_set_ratio) -> bool:
    """Whether two folded names are near-equal, a plural of the other included (see :func:`_name_verdict`)."""
    return _name_verdict(fa, ta, fb, tb, ratio, token_set_ratio) is not None


def _name_verdict(fa: str, ta: frozenset[str], fb: str, tb: frozenset[str], ratio, token_set_ratio) -> str | None:
    """``"near"`` when token_set_ratio >= TITLE_SCORE and the words one name has and the other lacks are
    near-equal too (only articles may be added): "Betriebsausgaben" and "Betriebsaufgabe", not "Entstehung der X"
    and "Festsetzung der X", nor "Queen" and "Queen of Hearts"; ``"plural"`` when the one word they differ
    in is a plural of the other ("Workspace", "Workspaces"); else None ("SKILL" and "SkillX" too)."""
    if _numbers(fa) != _numbers(fb):
        return None  # another month, chapter or year: another page
    only_a, only_b = ta - tb - ARTICLES, tb - ta - ARTICLES
    if bool(only_a) != bool(only_b):
        return None
    if len(only_a) == 1 and len(only_b) == 1:
        (wa,), (wb,) = only_a, only_b
        if _plural_pair(wa, wb):
            return "plural"
        if _extended_short(wa, wb):
            return None  # "skill" and "skillx", "system" and "systemd": another word
    if only_a and ratio(" ".join(sorted(only_a)), " ".join(sorted(only_b))) < DIFF_SCORE:
        return None
    return "near" if token_set_ratio(fa, fb) >= TITLE_SCORE else None


def _extended_short(a: str, b: str) -> bool:
    """Whether one folded word is a short word (under SHORT_WORD letters) with letters added at its end."""
    if len(a) > len(b):
        a, b = b, a
    return len(a) < SHORT_WORD and b.startswith(a)


def _plural_pair(a: str, b: str) -> bool:
    """Whether one folded word is the other's English plural (-s, -es, -y/-ies)."""
    if len(a) > len(b):
        a, b = b, a
    return len(a) >= 2 and (b == a + "s" or b == a + "es" or (a.endswith("y") and b == a[:-1] + "ies"))


def page_language(path: str, meta: dict | None) -> str | None:
    """A page's language: its frontmatter's ``lang`` (or ``language``), else the language folder it lies in
    (``en/``, ``ru/``, ``pt-br/``); None when neither says."""
    if meta:
        value = meta.get("lang") or meta.get("language")
        if isinstance(value, str) and value.strip():
            return value.strip().lower().replace("_", "-")
    for part in path.split("/")[:-1]:
        m = _LANGUAGE_FOLDER.match(part.lower())
        if m and m.group(1) in LANGUAGE_CODES:
            return part.lower().replace("_", "-")
    return None


def translations(a: str | None, b: str | None) -> bool:
    """Whether two pages' languages (:func:`page_language`) make them a page and its translation."""
    return a is not None and b is not None and a != b


def _numbers(folded: str) -> list[str]:
    """The numbers in a folded name, in order, leading zeros dropped ("Chapter 01" is "Chapter 1")."""
    return [n.lstrip("0") or "0" for n in _NUMBER.findall(folded)]


def title_pairs(names: dict[str, list[str]]) -> dict[tuple[str, str], str]:
    """Pairs of pages with near-equal names (plurals aside: :func:`name_pairs`).

    Args:
        names: {page: its title and aliases as written}.

    Returns:
        {(a, b): why} with a < b.
    """
    return name_pairs(names)[0]


def name_pairs(names: dict[str, list[str]]) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    """Pairs of pages with near-equal names, and pairs whose names differ only by a plural.

    Args:
        names: {page: its title and aliases as written}.

    Returns:
        ``(near, plural)``, each {(a, b): why} with a < b; a pair near by one of its names is not in ``plural``.
    """
    from rapidfuzz.fuzz import ratio, token_set_ratio  # a C extension: loaded when lint runs this check

    entries: list[tuple[str, str, str, frozenset[str]]] = []  # page, name, folded, tokens
    for page, page_names in sorted(names.items()):  # the same verdicts, and words, in any order
        seen = set()
        for name in page_names:
            folded = fold(name)
            if folded and folded not in seen:
                seen.add(folded)
                entries.append((page, name.strip(), folded, frozenset(folded.split())))
    blocks: dict[tuple, list[int]] = defaultdict(list)
    for i, entry in enumerate(entries):
        for key in _block_keys(entry[3]):
            blocks[key].append(i)
    out: dict[tuple[str, str], str] = {}
    plural: dict[tuple[str, str], str] = {}
    for members in blocks.values():
        if len(members) < 2 or len(members) > BLOCK_CUT:
            continue
        for i, j in combinations(members, 2):
            pa, na, fa, ta = entries[i]
            pb, nb, fb, tb = entries[j]
            pair = (pa, pb) if pa < pb else (pb, pa)
            if pa == pb or pair in out or na.casefold() == nb.casefold():
                continue  # equal names are duplicate-title's
            verdict = _name_verdict(fa, ta, fb, tb, ratio, token_set_ratio)
            if verdict is None:
                continue
            first, second = (na, nb) if pa < pb else (nb, na)
            if verdict == "near":
                out[pair] = f'"{first}" and "{second}" are near-equal names'
                plural.pop(pair, None)
            else:
                plural.setdefault(pair, f'"{first}" and "{second}" are one word and its plural')
    return out, plural


def body_pairs(shingles: dict[str, tuple[int, ...]]) -> dict[tuple[str, str], str]:
    """Pairs of pages whose bodies share at least :data:`BODY_SHARE` of their sampled shingles.

    Candidates share one of their :data:`BOTTOM_K` smallest sampled hashes (MinHash's bottom-k:
    two samples with Jaccard similarity J share the smallest of their union with probability J,
    so a pair at 0.8 is missed with a chance near 0.2 ** BOTTOM_K); only they are compared.

    Args:
        shingles: {page: sorted sampled shingle hashes}.

    Returns:
        {(a, b): why} with a < b.
    """
    buckets: dict[int, list[str]] = defaultdict(list)
    for page, sample in shingles.items():
        if len(sample) >= MIN_SHINGLES:
            for h in sample[:BOTTOM_K]:
                buckets[h].append(page)
    candidates: set[tuple[str, str]] = set()
    for pages in buckets.values():
        if 2 <= len(pages) <= BLOCK_CUT:
            candidates.update(combinations(sorted(pages), 2))
    out: dict[tuple[str, str], str] = {}
    for a, b in candidates:
        sa, sb = shingles[a], shingles[b]
        small, big = (sa, sb) if len(sa) <= len(sb) else (sb, sa)
        if len(small) < BODY_SHARE * len(big):
            continue  # Jaccard cannot reach BODY_SHARE
        common = len(set(small).intersection(big))
        jaccard = common / (len(sa) + len(sb) - common)
        if jaccard >= BODY_SHARE:
            out[(a, b)] = f"the bodies share about {round(jaccard * 100)}% of their text"
    return out


def _share(sa: tuple[int, ...], sb: tuple[int, ...]) -> float:
    """The estimated Jaccard similarity of two sampled shingle sets (0 when either is too short to tell)."""
    if len(sa) < MIN_SHINGLES or len(sb) < MIN_SHINGLES:
        return 0.0
    common = len(set(sa).intersection(sb))
    return common / (len(sa) + len(sb) - common)


def near_duplicates(names: dict[str, list[str]], shingles: dict[str, tuple[int, ...]],
                    *, titles: dict[tuple[str, str], str] | None = None,
                    plurals: dict[tuple[str, str], str] | None = None,
                    languages: dict[str, str | None] | None = None) -> list[NearDuplicate]:
    """Every near-duplicate pair, by names first, then by bodies; sorted.

    Args:
        names: {page: its title and aliases}.
        shingles: {page: its sampled shingle hashes}.
        titles: :func:`title_pairs` of ``names`` when the caller has them already (cached).
        plurals: The plural pairs of :func:`name_pairs` with ``titles``.
        languages: {page: :func:`page_language`}: a page and its translation are never near-duplicates.
    """
    found = body_pairs(shingles)
    if titles is None:
        titles, plurals = name_pairs(names)
    for pair, why in (plurals or {}).items():
        share = _share(shingles.get(pair[0], ()), shingles.get(pair[1], ()))
        if share >= PLURAL_BODY_SHARE:
            found[pair] = f"{why}, and the bodies share about {round(share * 100)}% of their text"
    found.update(titles)  # a pair found both ways is named by its names
    langs = languages or {}
    return [NearDuplicate(a, b, why) for (a, b), why in sorted(found.items())
            if not translations(langs.get(a), langs.get(b))]



#: A name ready to compare: as written, folded, its words, its blocking keys.
_Folded = tuple[str, str, frozenset, frozenset]


def _folded(name: str) -> _Folded:
    folded = fold(name)
    tokens = frozenset(folded.split())
    return name.strip(), folded, tokens, frozenset(_block_keys(tokens))


class FoldedNames:
    """Pages' names folded for :func:`same_subject`, kept between calls: a page is folded again only when
    its info object changes (a graph replaces a page's info when the page changes)."""

    def __init__(self) -> None:
        self._by_page: dict[str, tuple[object, list[_Folded]]] = {}

    def of(self, pages: dict) -> dict[str, list[_Folded]]:
        """{page: its folded names} for ``pages`` ({path: PageInfo})."""
        out = {}
        seen = self._by_page
        for page, info in pages.items():
            hit = seen.get(page)
            if hit is None or hit[0] is not info:
                hit = seen[page] = (info, [_folded(n) for n in info.names])
            out[page] = hit[1]
        return out


def same_subject(names: list[str], others: dict[str, list[str]],
                 folded: dict[str, list[_Folded]] | None = None) -> list[tuple[str, str]]:
    """The pages named like one of ``names``: equal after folding, or near-equal as the
    ``near-duplicate`` check has it (the same candidates, the same verdict).

    For a new page before it is proposed (DESIGN §13, "Dedup as it goes").

    Args:
        names: The new page's title and aliases.
        others: {page: its title and aliases}.
        folded: More pages, their names folded already (:class:`FoldedNames`).

    Returns:
        ``(page, its matching name)``, sorted by page.
    """
    from rapidfuzz.fuzz import ratio, token_set_ratio

    mine = [_folded(n) for n in names if fold(n)]
    if not mine:
        return []
    keys = frozenset().union(*(m[3] for m in mine))
    pages = {page: [_folded(n) for n in page_names] for page, page_names in others.items()}
    out = []
    for table in (folded or {}, pages):
        for page, entries in table.items():
            for name, f, tokens, their_keys in entries:
                if not f or keys.isdisjoint(their_keys):
                    continue
                if any(m[1] == f or _near_names(m[1], m[2], f, tokens, ratio, token_set_ratio) for m in mine):
                    out.append((page, name))
                    break
    return sorted(out)
