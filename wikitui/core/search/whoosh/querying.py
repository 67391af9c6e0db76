"""Running one query on the Whoosh index: parse, expand within bounds, score, then snippets.

Scoring goes through the fast path (:mod:`wikitui.core.search.whoosh.fast`) when
the backend uses it and the query's shape is one it scores; otherwise Whoosh's own
searcher runs it. Both give the same hits and scores (the conformance tests).

Every word of a query is required (stop words drop out as they are analysed).
When that finds nothing and the query has several words, it is run again with
any of its words enough (:func:`any_word`; filters such as ``kind:raw`` and
excluded words still apply), and :data:`ANY_WORD_NOTE` says so: a question typed
as a sentence ("how do I link to a heading") still finds the page about it.
"""

from __future__ import annotations

from typing import Any

from wikitui.core.search.results import Hit

#: The note of a search that found nothing with every word and ranked by any word instead.
ANY_WORD_NOTE = "no result has every word; showing results with any of them"

#: Bytes of a hit's file first looked at for its snippet (the rest only when they hold no match).
SNIPPET_HEAD = 16 * 1024


def run_query(store, root: str, query: str, scope: str, limit: int, notes: list[str], *, fast: bool,
              snippets: bool = True) -> list[Hit]:
    """The best ``limit`` hits of ``query`` in ``scope``, with snippets read from the files under ``root``
    (``snippets=False``: none, and no file read).

    Raises:
        BadQuery: the query is malformed or over a bound.
    """
    from wikitui.core.search.whoosh.expand import prepare_query
    from wikitui.core.search.whoosh.schema import parse_query
    from wikitui.core.search.whoosh.snippets import SnippetMaker, highlight_terms, phrase_words

    with store.read_lock:
        store.follow_commits()  # before anything reads the searcher: one searcher for the whole query
        q = parse_query(store, query, notes)
        if type(q).__name__ == "_NullQuery":
            return []
        searcher = store.searcher()
        if not searcher.doc_count_all():
            return []  # a first build not committed yet (BM25's idf is undefined on no documents)
        q = prepare_query(q, searcher.reader())
        allowed = store.scope_filter(scope)
        if allowed is not None and not allowed:
            return []  # nothing of that kind (Whoosh would read an empty filter as none)
        rows = _scored(searcher, q, limit, allowed, fast)
        if not rows:
            loose = any_word(q)
            if loose is not None:
                rows = _scored(searcher, loose, limit, allowed, fast)
                if rows:
                    q = loose
                    notes.append(ANY_WORD_NOTE)
        if not snippets:
            return [Hit(f["path"], f["kind"], f.get("title") or f["path"], score, "") for f, score in rows]
        terms = highlight_terms(q, searcher.reader()) if rows else frozenset()
        phrases = phrase_words(q) if rows else ()
    return _with_snippets(rows, SnippetMaker(terms, store.analyzer, phrases=phrases), root)


def any_word(q):
    """``q`` with any of its words enough instead of all of them; None when that is the same query.

    Only a top-level ``And`` (every word required) is loosened: its word groups
    (each word over the text fields, a phrase, a prefix) become one ``Or``, while
    field filters (``kind:raw``, ``tag:x``, ``type:x``) and exclusions (``-word``,
    ``NOT word``) stay required. Words marked ``+word`` are left as typed.
    """
    from whoosh import query

    from wikitui.core.search.whoosh.schema import TEXT_FIELDS

    if type(q) is query.AndNot:  # "-word": the rest loosened, the exclusion kept
        loose = any_word(q.a)
        return None if loose is None else query.AndNot(loose, q.b)
    if type(q) is not query.And:
        return None
    words: list[Any] = []  # Whoosh queries (Whoosh has no hints)
    kept: list[Any] = []
    for sub in q.subqueries:
        fields = {leaf.field() for leaf in sub.leaves()} if not isinstance(sub, query.Not) else set()
        (words if fields and fields <= set(TEXT_FIELDS) else kept).append(sub)
    if len(words) < 2:
        return None
    loose = query.Or(words)
    return query.And([loose, *kept]) if kept else loose


def _scored(searcher, q, limit: int, allowed: set[int] | None, fast: bool) -> list[tuple[dict, float]]:
    """(stored fields, score) of the best documents, best first."""
    if fast:
        from wikitui.core.search.whoosh.fast.scoring import stored_fields, top_docs

        best = top_docs(searcher, q, limit, allowed)
        if best is not None:
            stored = stored_fields(searcher, [docnum for docnum, _score in best])
            return [(fields, score) for fields, (_docnum, score) in zip(stored, best)]
    # Whoosh's own searcher: the public path, and the fast path's fallback for the
    # query shapes it leaves to Whoosh (a lone NOT, words with +).
    results = searcher.search(q, limit=limit, filter=allowed)
    return [(hit.fields(), float(hit.score)) for hit in results]


def _with_snippets(rows: list[tuple[dict, float]], snippets, root: str) -> list[Hit]:
    from wikitui.core.search.documents import search_text

    hits = []
    for fields, score in rows:
        path, kind = fields["path"], fields["kind"]
        doc = search_text(root, path, kind, fields.get("body_line", 1), head=SNIPPET_HEAD)
        found, final = snippets.find_best(doc) if doc is not None else (None, True)
        if (found is None or not final) and doc is not None and doc.partial:  # not near the top: read it all
            doc = search_text(root, path, kind, fields.get("body_line", 1))
            found = snippets.find(doc) if doc is not None else None
        snippet, line = found if found is not None else (snippets.fallback(fields.get("summary", ""), doc), None)
        hits.append(Hit(path, kind, fields.get("title") or path, score, snippet, line))
    return hits
