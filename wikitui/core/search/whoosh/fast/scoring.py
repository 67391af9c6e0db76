"""Scoring the common queries straight from the postings, without Whoosh's matcher tree.

Whoosh answers a query by walking a tree of matcher objects one posting at a time
(``is_active``, ``id``, ``skip_to``, ``score`` on every node for every document):
about a millisecond for one word over five fields on a 3,000-page vault, most of
it method calls, not reading. The queries people type are nearly all words and phrases, ANDed and ORed, with a
field or two (``tag:x``, ``kind:page``) and ``-word``. For those, :func:`top_docs`
reads each term's postings a block at a time and adds up the same BM25F scores
Whoosh would (same formula, same global statistics, same boosts), then keeps the
best ``limit`` documents, ties going to the lower document number as in Whoosh's
collector. Anything else (a query shape not listed below, or an index in another
format) returns None and Whoosh runs it as before; a test checks both give the
same hits.

Supported shapes: ``Term``, ``Phrase`` (words side by side, scored as the sum of
its words as Whoosh does), :class:`~wikitui.core.search.whoosh.expand.ExpandedTerms`
(prefix, wildcard and fuzzy words), ``Or`` (without coordination scaling),
``And``, ``AndNot`` and the null query, nested in any way.

This module imports Whoosh; the backend imports it only when the fast path is used.
"""

from __future__ import annotations

import heapq

from whoosh import query
from whoosh.scoring import BM25F

from wikitui.core.search.whoosh.expand import ExpandedTerms
from wikitui.core.search.whoosh.fast.postings import (
    LENGTHS,
    Unsupported,
    adjacent,
    length_bytes,
    position_decoder,
    positions_in,
    postings,
)

#: Fields whose terms usually match a large part of the vault (``kind:page``).
_FILTER_FIELDS = frozenset({"kind", "type", "tags", "path"})

Scores = dict[int, float]


class _Run:
    """One query's evaluation over one searcher (per-leaf readers and cached statistics)."""

    def __init__(self, searcher) -> None:
        weighting = searcher.weighting
        if type(weighting) is not BM25F:
            raise Unsupported("another scoring model")
        self.searcher = searcher
        self.schema = searcher.schema
        self.B, self.K1 = weighting.B, weighting.K1
        self.field_B = weighting._field_B
        self.leaves = [(leaf.reader(), offset) for leaf, offset in searcher.leaf_searchers()]
        self._scorable = {name for name, field in self.schema.items() if field.scorable}

    # ------------------------------------------------------------ postings
    def _norms(self, reader, fieldname: str, avgfl: float, B: float) -> list[float]:
        """``K1 * ((1 - B) + B * length / avgfl)`` for every document of a leaf (BM25's length part).

        Computed per length byte, the operations Whoosh performs per posting, so
        the scores come out the same to the last bit.
        """
        cache = reader.__dict__.setdefault("_wikitui_norms", {})
        key = (fieldname, avgfl, B)
        norms = cache.get(key)
        if norms is None:
            K1 = self.K1
            table = [K1 * ((1 - B) + B * fl / avgfl) for fl in LENGTHS]
            norms = [table[b] for b in length_bytes(reader, fieldname)]
            cache[key] = norms
        return norms

    def _postings(self, reader, fieldname: str, btext: bytes, values: list | None = None):
        return postings(reader, self.schema, self._scorable, fieldname, btext, values)

    # -------------------------------------------------------------- queries
    def term(self, fieldname: str, text, boost: float, within: Scores | None = None) -> Scores:
        schema = self.schema
        if fieldname not in schema:
            return {}
        field = schema[fieldname]
        try:
            btext = field.to_bytes(text)
        except ValueError:
            return {}
        out: Scores = {}
        score = self._scorer(field, fieldname, btext)
        for reader, offset in self.leaves:
            ids, weights = self._postings(reader, fieldname, btext)
            if within is not None and ids:
                keep = positions_in(ids, within, offset)
                ids, weights = [ids[i] for i in keep], [weights[i] for i in keep]
            if not ids:
                continue
            scores = score(reader, ids, weights)
            if boost != 1.0:
                scores = [s * boost for s in scores]
            if offset:
                ids = [d + offset for d in ids]
            out.update(zip(ids, scores))
        return out

    def _scorer(self, field, fieldname: str, btext: bytes):
        """``score(leaf reader, ids, weights)``: a term's unboosted scores, as Whoosh's BM25F computes them."""
        if not field.scorable:
            return lambda reader, ids, weights: weights  # Whoosh scores these by the posting's weight
        searcher = self.searcher
        idf = searcher.idf(fieldname, btext)
        avgfl = searcher.avg_field_length(fieldname) or 1
        B = self.field_B.get(fieldname, self.B)
        k1p = self.K1 + 1

        def score(reader, ids, weights):
            norms = self._norms(reader, fieldname, avgfl, B)
            return [idf * ((tf * k1p) / (tf + norms[d])) for d, tf in zip(ids, weights)]

        return score

    def phrase(self, q: query.Phrase, within: Scores | None = None) -> Scores:
        """Documents holding the words side by side, scoring the sum of the words' scores (as Whoosh's phrase does)."""
        fieldname = q.fieldname
        if q.slop != 1:
            raise Unsupported("a phrase with slop")
        if fieldname not in self.schema:
            return {}
        field = self.schema[fieldname]
        if not field.format or not field.format.supports("positions"):
            raise Unsupported("a phrase on a field without positions")
        try:
            btexts = [field.to_bytes(w) for w in q.words]
        except ValueError:
            return {}
        decode = position_decoder(field.format)
        out: Scores = {}
        for reader, offset in self.leaves:
            postings = []
            for btext in btexts:
                values: list = []
                ids, weights = self._postings(reader, fieldname, btext, values)
                if not ids:
                    break
                postings.append((btext, ids, weights, values))
            else:
                common = set(postings[0][1])
                for _btext, ids, _w, _v in postings[1:]:
                    common.intersection_update(ids)
                if within is not None:
                    common = {d for d in common if d + offset in within}
                if not common:
                    continue
                # Positions of each word in the documents holding them all.
                where = [{d: v for d, v in zip(ids, values) if d in common} for _b, ids, _w, values in postings]
                found = [d for d in sorted(common) if adjacent([decode(w[d]) for w in where])]
                if not found:
                    continue
                wanted = set(found)
                total = dict.fromkeys(found, 0.0)
                for btext, ids, weights, _v in postings:
                    keep = [(d, w) for d, w in zip(ids, weights) if d in wanted]
                    part = self._scorer(field, fieldname, btext)(reader, [d for d, _ in keep], [w for _, w in keep])
                    for (d, _w), sc in zip(keep, part):
                        total[d] += sc
                for d, sc in total.items():
                    out[d + offset] = sc * q.boost if q.boost != 1.0 else sc
        return out

    def expanded(self, q: ExpandedTerms, within: Scores | None = None) -> Scores:
        """Every document holding one of the terms, each scoring the boost (as :class:`ExpandedTerms` does)."""
        out: Scores = {}
        for reader, offset in self.leaves:
            for btext in q.btexts:
                ids, _weights = self._postings(reader, q.fieldname, btext)
                if within is not None and ids:
                    ids = [ids[i] for i in positions_in(ids, within, offset)]
                out.update(dict.fromkeys((d + offset for d in ids), q.boost))
        return out

    def run(self, q, within: Scores | None = None) -> Scores:
        """The scores of the documents matching ``q`` (only those in ``within``, when given, need be right)."""
        if q is query.NullQuery or type(q) is type(query.NullQuery):
            return {}
        kind = type(q)
        if kind is query.Term:
            return self.term(q.fieldname, q.text, q.boost, within)
        if kind is ExpandedTerms:
            return self.expanded(q, within)
        if kind is query.Phrase:
            return self.phrase(q, within)
        if kind is query.Or:
            if q.scale or q.minmatch:
                raise Unsupported("a scaled Or")
            return self._boosted(_union(self.run(sub, within) for sub in q.subqueries), q.boost)
        if kind is query.And:
            # Filters such as kind:page match most of the vault: score them only
            # on the documents the other parts matched.
            subs = sorted(q.subqueries, key=lambda sub: type(sub) is query.Term and sub.fieldname in _FILTER_FIELDS)
            out = self.run(subs[0], within)
            for sub in subs[1:]:
                if not out:
                    break
                part = self.run(sub, out)
                out = {d: s + part[d] for d, s in out.items() if d in part}
            return self._boosted(out, q.boost)
        if kind is query.AndNot:
            positive = self.run(q.a, within)
            if positive:
                for d in self.run(q.b, positive):
                    positive.pop(d, None)
            return positive
        raise Unsupported(kind.__name__)

    @staticmethod
    def _boosted(scores: Scores, boost: float) -> Scores:
        if boost != 1.0:
            return {d: s * boost for d, s in scores.items()}
        return scores


def _union(parts) -> Scores:
    out: Scores = {}
    for part in parts:
        if not out:
            out = dict(part)
            continue
        get = out.get
        for d, s in part.items():
            prev = get(d)
            out[d] = s if prev is None else prev + s
    return out


def top_docs(searcher, q, limit: int, allowed: set[int] | None = None) -> list[tuple[int, float]] | None:
    """The best ``limit`` (document number, score) pairs for ``q``, best first; None when unsupported.

    Args:
        searcher: An open Whoosh searcher over a BM25F-scored index.
        q: A query as :func:`~wikitui.core.search.whoosh.expand.prepare_query` leaves it.
        limit: How many documents to keep.
        allowed: Only these document numbers may be returned (a scope), or None.
    """
    try:
        run = _Run(searcher)
        scores = run.run(q)
    except Unsupported:
        return None
    for reader, offset in run.leaves:
        if scores and reader.has_deletions():
            for d in reader.deleted_docs_set:
                scores.pop(d + offset, None)
    if allowed is not None:
        scores = {d: s for d, s in scores.items() if d in allowed}
    if len(scores) > limit:
        # The limit-th best score, found among bare floats; then only the few
        # documents reaching it are ordered (ties: lower document number first).
        floor = heapq.nlargest(limit, scores.values())[-1]
        items = [(d, s) for d, s in scores.items() if s >= floor]
    else:
        items = list(scores.items())
    items.sort(key=lambda ds: (-ds[1], ds[0]))
    return items[:limit]


def stored_fields(searcher, docnums: list[int]) -> list[dict]:
    """The stored fields of these documents (what ``searcher.stored_fields`` returns, read directly).

    Whoosh filters every stored dict against the schema (for fields removed from
    it, which this index never does) and looks up the segment of each document;
    this reads them from their segment's store in one go.
    """
    leaves = searcher.leaf_searchers()
    out = []
    for docnum in docnums:
        for leaf, offset in reversed(leaves):
            if docnum >= offset:
                perdoc = getattr(leaf.reader(), "_perdoc", None)
                out.append(perdoc.stored_fields(docnum - offset) if perdoc is not None else searcher.stored_fields(docnum))
                break
    return out
