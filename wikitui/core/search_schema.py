"""The search index's schema and its query language.

Queries (DESIGN §5): words (all must match, in any text field), ``"phrases"``,
``prefix*``, ``fuzzy~`` (one edit, first letter kept; ``~2`` for two edits,
``~2/3`` to keep three letters), ``tag:x``, ``type:concept``,
``kind:raw`` / ``kind:page``, ``-word`` to exclude, ``OR``/``AND``/``NOT`` and
parentheses. Words are looked up in title, aliases, summary, headings and body,
with title and aliases weighted most. A hyphen inside a word (``self-awareness``)
joins its parts into a phrase; only a ``-`` at the start of a word excludes it.

Most queries never reach Whoosh's parser: :mod:`wikitui.core.search_simple`
builds the simple ones, and :mod:`wikitui.core.search_parser` sets the parser up
for the rest.

Whoosh's parser accepts any string: an unclosed quote is read as a literal
character and a dangling operator silently yields an empty query. wikitui rejects
those with :class:`~wikitui.core.errors.BadQuery` so a typo is reported instead of
returning nothing. :func:`check_query` documents exactly what is rejected.

This module imports Whoosh; :mod:`wikitui.core.search` imports it lazily.
"""

from __future__ import annotations

import re

from whoosh import fields, query

from wikitui.core.errors import BadQuery
from wikitui.core.search_analysis import WikiAnalyzer

#: Fields a bare word is looked up in.
TEXT_FIELDS = ("title", "aliases", "summary", "headings", "body")
#: Query-time weights: a title match outranks a passing mention in a body.
FIELD_BOOSTS = {"title": 5.0, "aliases": 4.0, "headings": 2.0, "summary": 2.0, "body": 1.0}
#: Names a query may put before ``:`` (``tag`` is an alias of ``tags``).
QUERY_FIELDS = ("title", "aliases", "summary", "headings", "body", "tags", "tag", "type", "kind", "path")
KINDS = ("page", "raw")
#: Field names a query may use instead of the real one.
_FIELD_ALIASES = {"tag": "tags"}

_FIELD_NO_VALUE = re.compile(r"(?<![\w:])(" + "|".join(QUERY_FIELDS) + r"):(?=\s|$|\))", re.IGNORECASE)
_KIND_VALUE = re.compile(r"(?<![\w:])kind:(\"[^\"]*\"|[^\s()]+)", re.IGNORECASE)
_OPERATOR = {"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"}


def build_schema(lang: str) -> fields.Schema:
    """The index schema, with every text field analysed for ``lang``."""
    ana = WikiAnalyzer(lang)

    def text(**kw) -> fields.TEXT:
        # A query word that splits into several tokens ("§15", "e-mail") must
        # match them side by side, not anywhere in the page.
        return fields.TEXT(analyzer=ana, multitoken_query="phrase", **kw)

    return fields.Schema(
        path=fields.ID(stored=True, unique=True),
        kind=fields.ID(stored=True),
        title=text(stored=True),
        aliases=text(),
        tags=fields.KEYWORD(lowercase=True, commas=True, scorable=True),
        type=fields.KEYWORD(lowercase=True, commas=True),
        summary=text(stored=True),
        headings=text(),
        body=text(),
        # Where a page's body starts: snippets skip the frontmatter without parsing it.
        body_line=fields.STORED(),
        mtime=fields.STORED(),
        size=fields.STORED(),
        digest=fields.STORED(),
    )


def make_parser(schema: fields.Schema):
    """A parser for the query language above (build once per open index; it is reusable).

    Whoosh's parser module is imported here, not with this module: most queries
    never need it (see :mod:`wikitui.core.search_simple`).
    """
    from wikitui.core.search_parser import make_parser as make

    return make(schema, TEXT_FIELDS, FIELD_BOOSTS, _FIELD_ALIASES)


def _outside_quotes(query: str) -> str:
    """The query with every quoted phrase blanked (same length)."""
    return re.sub(r'"[^"]*"', lambda m: " " * len(m.group()), query)


def check_query(query: str) -> None:
    """Reject what Whoosh would silently misread.

    Rejected, each with a one-line reason:

    - an odd number of ``"`` (an unclosed phrase) and an empty phrase ``""``;
    - unbalanced parentheses;
    - a field name with no value (``type:``, ``tag:`` ...);
    - ``kind:`` with anything but ``page`` or ``raw``;
    - ``AND``/``OR`` without a term on both sides, ``NOT`` with nothing after it.

    Raises:
        BadQuery: the query is malformed.
    """
    if query.count('"') % 2:
        raise BadQuery('unbalanced quotes in the query: close the phrase with "')
    if re.search(r'""', query):
        raise BadQuery('empty phrase "" in the query')
    bare = _outside_quotes(query)
    depth = 0
    for ch in bare:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            raise BadQuery("unbalanced parentheses in the query: ')' without '('")
    if depth:
        raise BadQuery("unbalanced parentheses in the query: '(' without ')'")
    m = _FIELD_NO_VALUE.search(bare)
    if m:
        name = m.group(1).lower()
        example = {"type": "concept", "kind": "raw", "tag": "history", "tags": "history"}.get(name, "word")
        raise BadQuery(f"'{name}:' needs a value, e.g. {name}:{example}")
    for m in _KIND_VALUE.finditer(bare):
        value = m.group(1).strip('"').lower()
        if value not in KINDS:
            raise BadQuery(f"kind:{m.group(1)} is not a kind: use kind:page or kind:raw")
    words = bare.replace("(", " ( ").replace(")", " ) ").split()
    for i, word in enumerate(words):
        if word not in _OPERATOR:
            continue
        before = words[i - 1] if i else None
        after = words[i + 1] if i + 1 < len(words) else None
        if after is None or after in _OPERATOR - {"NOT"} or after == ")":
            raise BadQuery(f"'{word}' needs a term after it")
        if word != "NOT" and (before is None or before in _OPERATOR or before == "("):
            raise BadQuery(f"'{word}' needs a term before it")


#: Terms a prefix, wildcard or fuzzy word may stand for in one field (the most frequent kept).
MAX_EXPANSIONS = 64
#: Terms of the term list looked at to choose them (``a*`` on a large vault has thousands).
_EXPANSION_SCAN = 500


def _btexts(q, reader):
    """The terms a multi-term matches in ``reader``.

    A fuzzy term is matched segment by segment: a segment walks its term list
    with an automaton, but a reader over several segments (an index after a few
    updates) falls back to computing the edit distance to every term, 5-10x
    slower. This is why fuzzy searches slowed after updates until optimised.
    """
    if not isinstance(q, query.FuzzyTerm):
        yield from q._btexts(reader)
        return
    seen = set()
    for leaf, _base in reader.leaf_readers():
        if q.fieldname not in leaf.schema:
            continue
        for word in leaf.terms_within(q.fieldname, q.text, q.maxdist, prefix=q.prefixlength):
            btext = word.encode("utf-8") if isinstance(word, str) else word
            if btext not in seen:
                seen.add(btext)
                yield btext


class ExpandedTerms(query.MultiTerm):
    """A prefix, wildcard or fuzzy word already expanded into the indexed terms it stands for.

    Whoosh expands a multi-term against the term list each time it is asked (to
    match, then again to highlight: ten walks of the term lists for a fuzzy word
    over five fields), and unions however many terms it finds (``a*`` on a large
    vault: thousands, over a second). Expanded once, and capped to the
    :data:`MAX_EXPANSIONS` most frequent terms, it costs one walk and stays fast.
    Every match scores the same (the field's boost), as Whoosh scores multi-terms.
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

    @classmethod
    def expand(cls, q, reader):
        """``q`` (a Whoosh multi-term) expanded against ``reader``."""
        field = reader.schema[q.fieldname] if q.fieldname in reader.schema else None
        if field is not None and field.scorable and not reader.field_length(q.fieldname):
            return query.NullQuery  # nothing indexed in this field (no summaries in an Obsidian vault)
        found = []
        for n, btext in enumerate(_btexts(q, reader)):
            if n >= _EXPANSION_SCAN:
                break
            found.append(btext)
        if len(found) > MAX_EXPANSIONS:
            found.sort(key=lambda b: reader.doc_frequency(q.fieldname, b), reverse=True)
            found = sorted(found[:MAX_EXPANSIONS])
        if not found:
            return query.NullQuery
        return cls(q.fieldname, found, q, boost=q.boost)


def prepare_query(q, reader):
    """Make a parsed query fast to run against ``reader``.

    - Each prefix, wildcard or fuzzy word is expanded once, capped
      (:class:`ExpandedTerms`).
    - Every OR becomes a tree of union matchers: under 5,000 documents Whoosh
      preloads and scores every document an OR matches, where a union tree skips
      blocks that cannot reach the top ten (2-4x faster for ``limit=10`` on
      vault-large).
    - ``a NOT b`` (an ``And`` with a ``Not`` among its parts) becomes
      ``AndNot(a, b)``: Whoosh would intersect ``a`` with every document not
      matching ``b`` and add a meaningless score for that part.
    """
    if isinstance(q, query.MultiTerm) and not isinstance(q, ExpandedTerms):
        return ExpandedTerms.expand(q, reader)
    if any(True for _ in q.children()):
        q = q.apply(lambda child: prepare_query(child, reader))
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


def parse_query(source, text: str):
    """Check and parse ``text`` into a Whoosh query.

    Args:
        source: The index store (its schema; its parser, built only when the
            query needs it) or a Whoosh parser.
        text: The query as typed.

    Raises:
        BadQuery: the query is malformed (see :func:`check_query`).
    """
    check_query(text)
    from wikitui.core.search_simple import simple_query

    fast = simple_query(source.schema, text, TEXT_FIELDS, FIELD_BOOSTS, _FIELD_ALIASES)
    if fast is not None:
        return fast
    parser = getattr(source, "parser", source)
    try:
        return parser.parse(text)
    except NotImplementedError as exc:
        if str(exc) in ("Minus", "Plus"):  # "(-war)": nothing for the sign to act on
            raise BadQuery("'-word' and '+word' need another word beside them in their group, e.g. war -peace") from exc
        raise BadQuery(f"cannot parse the query: {exc}") from exc
    except Exception as exc:  # Whoosh rarely raises; when it does, say so in one line
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BadQuery(f"cannot parse the query: {first}") from exc
