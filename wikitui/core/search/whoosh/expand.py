"""Preparing a parsed query to run: its prefix, wildcard and fuzzy words expanded once, within a budget.

Whoosh expands a multi-term (``co*``, ``rabit~``, ``*ing``) against the term list
each time it is asked (to match, then again to highlight) and unions however many
terms it finds. Here each is expanded once into an :class:`ExpandedTerms`, and all
of a query's multi-terms together keep at most
:data:`~wikitui.core.search.whoosh.bounds.MAX_EXPANDED_TERMS` terms: each is given an
equal share of the budget (one that needs fewer leaves the rest to the others),
and within its share keeps its most frequent terms. Looking for terms stops after
:data:`_EXPANSION_SCAN` candidates per multi-term, so the work is bounded too.

This module imports Whoosh; the backend imports it only when a search or an update runs.
"""

from __future__ import annotations

import functools

from whoosh import query

from wikitui.core.search.whoosh.bounds import MAX_EXPANDED_TERMS, MAX_FUZZY_DISTANCE

#: Terms of the term list looked at to choose a multi-term's terms (``a*`` on a large vault has thousands).
_EXPANSION_SCAN = 500


def _btexts(q, reader):
    """The terms a multi-term matches in ``reader``.

    A fuzzy term is matched segment by segment: a segment walks its term list
    with an automaton, but a reader over several segments (an index after a few
    updates) falls back to computing the edit distance to every term, 5-10x
    slower. This is why fuzzy searches slowed after updates until optimised.
    """
    if not isinstance(q, query.FuzzyTerm):
        for _fieldname, btext in q.expanded_terms(reader):
            yield btext
        return
    maxdist = min(q.maxdist, MAX_FUZZY_DISTANCE)  # the automaton grows exponentially with it
    seen = set()
    for leaf, _base in reader.leaf_readers():
        if q.fieldname not in leaf.schema:
            continue
        for word in leaf.terms_within(q.fieldname, q.text, maxdist, prefix=q.prefixlength):
            btext = word.encode("utf-8") if isinstance(word, str) else word
            if btext not in seen:
                seen.add(btext)
                yield btext


class ExpandedTerms(query.MultiTerm):
    """A prefix, wildcard or fuzzy word already expanded into the indexed terms it stands for.

    Whoosh expands a multi-term against the term list each time it is asked (to
    match, then again to highlight: ten walks of the term lists for a fuzzy word
    over five fields), and unions however many terms it finds (``a*`` on a large
    vault: thousands, over a second). Expanded once, and capped to its share of
    the query's budget, it costs one walk and stays fast. Every match scores the
    same (the field's boost), as Whoosh scores multi-terms.
    """

    def __init__(self, fieldname: str, btexts: list[bytes], original, boost: float = 1.0) -> None:
        self.fieldname = fieldname
        self.btexts = btexts
        self.original = original
        self.boost = boost
        self.constantscore = True
        self.startchar = getattr(original, "startchar", None)
        self.endchar = getattr(original, "endchar", None)

    def _btexts(self, ixreader):
        return self.btexts

    def matcher(self, searcher, context=None):
        """The union of the terms' documents, each scoring the boost.

        Whoosh would OR up to 64 term matchers and ask each for its block quality
        on every step: 50-100 ms for ``co*`` on vault-large. Reading the document
        numbers once takes a few.
        """
        from whoosh.matching import ListMatcher, NullMatcher

        reader = searcher.reader()
        ids: set[int] = set()
        for btext in self.btexts:
            if (self.fieldname, btext) in reader:
                ids.update(reader.postings(self.fieldname, btext).all_ids())
        if not ids:
            return NullMatcher()
        return ListMatcher(sorted(ids), all_weights=self.boost)

    def __eq__(self, other):
        return isinstance(other, ExpandedTerms) and (other.fieldname, other.btexts, other.boost) == (
            self.fieldname,
            self.btexts,
            self.boost,
        )

    def __hash__(self):
        return hash((self.fieldname, tuple(self.btexts), self.boost))

    def __repr__(self):
        return f"ExpandedTerms({self.original!r}, {len(self.btexts)} terms)"

    __str__ = __repr__


def _candidates(q, reader) -> list[bytes]:
    """Up to :data:`_EXPANSION_SCAN` terms ``q`` matches (none when its field holds nothing)."""
    field = reader.schema[q.fieldname] if q.fieldname in reader.schema else None
    if field is not None and field.scorable and not reader.field_length(q.fieldname):
        return []  # nothing indexed in this field (no summaries in an Obsidian vault)
    found = []
    for n, btext in enumerate(_btexts(q, reader)):
        if n >= _EXPANSION_SCAN:
            break
        found.append(btext)
    return found


def _cjk_prefix(q, reader):
    """``巴菲特*``: the word itself (a phrase of its bigrams), or None for any other multi-term.

    A run of CJK characters has no word end for a prefix to run past, and no
    indexed bigram is longer than two characters, so a prefix of two or more
    CJK characters means the pages holding them side by side, ranked as the word.
    """
    from wikitui.core.search.whoosh.analysis import CJK_RUN

    if type(q) is not query.Prefix or len(q.text) < 2 or not CJK_RUN.fullmatch(q.text):
        return None
    if q.fieldname not in reader.schema:
        return None
    words = list(reader.schema[q.fieldname].process_text(q.text, mode="query"))
    if len(words) == 1:
        return query.Term(q.fieldname, words[0], boost=q.boost)
    return query.Phrase(q.fieldname, words, boost=q.boost)


def _shares(sizes: list[int], budget: int) -> list[int]:
    """How many terms each multi-term keeps: an equal share of ``budget``, a smaller need leaving the rest to others."""
    shares = [0] * len(sizes)
    left = budget
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    for k, i in enumerate(order):
        shares[i] = min(sizes[i], left // (len(order) - k))
        left -= shares[i]
    return shares


def expand_all(q, reader, budget: int = MAX_EXPANDED_TERMS) -> dict[int, object]:
    """Every multi-term leaf of ``q`` (by ``id``) with what replaces it: an :class:`ExpandedTerms` or NullQuery.

    At most ``budget`` terms in all; a multi-term over budget keeps its most
    frequent terms, in term order.
    """
    out: dict[int, object] = {}
    leaves = []
    for leaf in q.leaves():
        if isinstance(leaf, query.MultiTerm) and not isinstance(leaf, ExpandedTerms):
            word = _cjk_prefix(leaf, reader)
            if word is not None:
                out[id(leaf)] = word
            else:
                leaves.append(leaf)
    found = [_candidates(leaf, reader) for leaf in leaves]
    sizes = [len(f) for f in found]
    if sum(sizes) > budget:
        for i, (leaf, terms, share) in enumerate(zip(leaves, found, _shares(sizes, budget))):
            if share < len(terms):
                terms.sort(key=functools.partial(reader.doc_frequency, leaf.fieldname), reverse=True)
                found[i] = sorted(terms[:share])
    for leaf, terms in zip(leaves, found):
        out[id(leaf)] = ExpandedTerms(leaf.fieldname, terms, leaf, boost=leaf.boost) if terms else query.NullQuery
    return out


def prepare_query(q, reader):
    """Make a parsed query fast, and bounded, to run against ``reader``.

    - Each prefix, wildcard or fuzzy word is expanded once, within the query's
      budget (:func:`expand_all`).
    - Every OR becomes a tree of union matchers: under 5,000 documents Whoosh
      preloads and scores every document an OR matches, where a union tree skips
      blocks that cannot reach the top ten (2-4x faster for ``limit=10`` on
      vault-large).
    - ``a NOT b`` (an ``And`` with a ``Not`` among its parts) becomes
      ``AndNot(a, b)``: Whoosh would intersect ``a`` with every document not
      matching ``b`` and add a meaningless score for that part.
    """
    return _prepare(q, expand_all(q, reader))


def _prepare(q, expanded: dict[int, object]):
    replacement = expanded.get(id(q))
    if replacement is not None:
        return replacement
    if any(True for _ in q.children()):
        q = q.apply(lambda child: _prepare(child, expanded))
    if isinstance(q, query.Or):
        q.matcher_type = query.Or.DEFAULT_MATCHER
    if type(q) is query.And:
        negated = [sub.query for sub in q.subqueries if type(sub) is query.Not]
        kept = [sub for sub in q.subqueries if type(sub) is not query.Not]
        if negated and kept and q.boost == 1.0:
            positive = kept[0] if len(kept) == 1 else query.And(kept)
            excluded = negated[0] if len(negated) == 1 else query.Or(negated)
            return query.AndNot(positive, excluded)
    return q
