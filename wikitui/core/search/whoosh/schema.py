"""The search index's schema and its query language.

Queries (DESIGN §5): words (all must match, in any text field), ``"phrases"``,
``prefix*``, ``fuzzy~`` (one edit, first letter kept; ``~2`` for two edits, the
most allowed, so ``~3`` and up are searched as ``~2`` with a note; ``~2/3`` to keep
three letters), ``tag:x``, ``type:concept``,
``kind:raw`` / ``kind:page``, ``-word`` to exclude, ``OR``/``AND``/``NOT`` and
parentheses. Words are looked up in title, aliases, summary, headings and body,
with title and aliases weighted most. A hyphen inside a word (``self-awareness``)
joins its parts into a phrase; only a ``-`` at the start of a word excludes it.

Most queries never reach Whoosh's parser: :mod:`wikitui.core.search.whoosh.simple_query`
builds the simple ones, and :mod:`wikitui.core.search.whoosh.parser` sets the parser up
for the rest.

Whoosh's parser accepts any string: an unclosed quote is read as a literal
character and a dangling operator silently yields an empty query. wikitui rejects
those with :class:`~wikitui.core.base.errors.BadQuery` so a typo is reported instead of
returning nothing. :func:`check_query` documents exactly what is rejected.

This module imports Whoosh; the backend imports it only when a search or an update runs.
"""

from __future__ import annotations

import re

from whoosh import fields

from wikitui.core.base.errors import BadQuery
from wikitui.core.search.whoosh.analysis import WikiAnalyzer

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
    never need it (see :mod:`wikitui.core.search.whoosh.simple_query`).
    """
    from wikitui.core.search.whoosh.parser import make_parser as make

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

    It also refuses a query longer or more deeply nested than
    :mod:`wikitui.core.search.whoosh.bounds` allows.

    Raises:
        BadQuery: the query is malformed.
    """
    from wikitui.core.search.whoosh.bounds import check_text

    check_text(query)
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


def parse_query(source, text: str, notes: list[str] | None = None):
    """Check and parse ``text`` into a Whoosh query, bounded as :mod:`wikitui.core.search.whoosh.bounds` says.

    Args:
        source: The index store (its schema; its parser, built only when the
            query needs it) or a Whoosh parser.
        text: The query as typed.
        notes: When given, what the person should know about how the query is
            run (a fuzzy distance capped at 2) is appended to it.

    Raises:
        BadQuery: the query is malformed (see :func:`check_query`) or over a bound.
    """
    from wikitui.core.search.whoosh.bounds import bound_query, fuzzy_notes

    check_query(text)
    try:
        q = _parse(source, text)
    except BadQuery:
        raise
    except Exception as exc:  # reading a query touches no index file: whatever fails is the query's
        raise BadQuery(f"cannot parse the query: {type(exc).__name__}") from exc
    if notes is not None and "~" in text:
        notes.extend(n for n in fuzzy_notes(_outside_quotes(text)) if n not in notes)
    return bound_query(q)


def _parse(source, text: str):
    from wikitui.core.search.whoosh.simple_query import simple_query

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
