"""Building the queries people usually type without Whoosh's query parser.

Whoosh's parser (tagging with a dozen plugins, tree filters, normalising) costs
0.2-0.5 ms a query, a quarter of a whole search. Most queries are a few tokens of
four simple kinds, separated by spaces:

- ``word``: an ``Or`` of the word's analysed form in every text field, boosted
  (a stop word drops out);
- ``prefix*``: an ``Or`` of ``Prefix`` queries, one per text field;
- ``"a phrase"`` of plain words: an ``Or`` of ``Phrase`` queries, one per text field;
- ``tag:x``, ``type:x``, ``kind:x`` (and the other field names) with a plain value:
  one ``Term`` in that field.

:func:`simple_query` builds for these exactly the query the parser builds (a test
compares the two on many queries, ``repr`` for ``repr``), and returns None for
anything else (operators, ``-word``, fuzzy words, groups, punctuation), which the
parser then reads.

This module imports Whoosh; the backend imports it only when a search or an update runs.
"""

from __future__ import annotations

import re

from whoosh import query

#: One token: a phrase of plain words, a fielded plain value, a prefix, or a word.
_TOKEN = re.compile(
    r'"(?P<phrase>[^\W_]+(?:[ \t]+[^\W_]+)*)"'
    r"|(?P<field>[A-Za-z]+):(?P<value>[^\W_]+)"
    r"|(?P<prefix>[^\W_]+)\*"
    r"|(?P<word>[^\W_]+)"
)
_OPERATORS = frozenset({"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"})


class _NeedsParser(Exception):
    """A token this module does not build the way the parser would."""


def simple_query(schema, text: str, text_fields: tuple[str, ...], boosts: dict[str, float], aliases: dict[str, str]):
    """The query the parser would build for ``text``, or None when ``text`` needs the parser.

    Needs no parser at all (building one compiles a dozen regular expressions,
    which ``wikitui search`` would pay on every run).

    Args:
        schema: The index's schema.
        text: The query as typed.
        text_fields: The fields a bare word is looked up in.
        boosts: Their query-time weights.
        aliases: Field names a query may use for another (``tag`` for ``tags``).
    """
    try:
        return _build(schema, text, text_fields, boosts, aliases)
    except _NeedsParser:
        return None


def _build(schema, text, text_fields, boosts, aliases):
    groups = []
    pos = 0
    end = len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos == end:
            break
        m = _TOKEN.match(text, pos)
        if m is None or (m.end() < end and not text[m.end()].isspace()):
            return None  # syntax the parser has to read
        pos = m.end()
        kind = m.lastgroup
        if kind == "word":
            if m.group() in _OPERATORS:
                return None
            q = _multifield(m, text_fields, boosts, lambda f, b, m=m: _word(schema[f], f, b, m))
        elif kind == "prefix":
            q = _multifield(m, text_fields, boosts, lambda f, b, m=m: _prefix(schema[f], f, b, m))
        elif kind == "phrase":
            q = _multifield(m, text_fields, boosts, lambda f, b, m=m: _phrase(schema[f], f, b, m))
        else:
            fieldname = aliases.get(m.group("field"), m.group("field"))
            if fieldname not in schema:
                return None  # the parser reads an unknown field name as a word
            q = _word(schema[fieldname], fieldname, 1.0, m, group="value")
            if q is None:
                return None
        groups.append(q)
    q = query.And(groups).normalize()
    return q if q else query.NullQuery


def _multifield(m: re.Match, fields: tuple[str, ...], boosts: dict[str, float], build) -> query.Or:
    subs = [q for f in fields if (q := build(f, boosts.get(f, 1.0))) is not None]
    group = query.Or(subs)
    group.startchar, group.endchar = m.start(), m.end()
    return group


def _word(field, fieldname: str, boost: float, m: re.Match, group: str = "word"):
    """What the parser's ``term_query`` makes of a word in one field."""
    texts = list(field.process_text(m.group(group), mode="query", tokenize=True, removestops=True))
    if len(texts) > 1:
        if field.multitoken_query != "phrase":
            raise _NeedsParser(field.multitoken_query)
        return query.Phrase(fieldname, texts, boost=boost)
    if not texts:
        return None
    q = query.Term(fieldname, texts[0], boost=boost)
    q.startchar, q.endchar = m.start(group), m.end(group)
    return q


def _prefix(field, fieldname: str, boost: float, m: re.Match):
    """``prefix*`` in one field: its text analysed whole, as the parser's prefix node does."""
    texts = list(field.process_text(m.group("prefix"), mode="query", tokenize=False, removestops=False))
    if not texts:
        return None
    q = query.Prefix(fieldname, texts[0], boost=boost)
    q.startchar, q.endchar = m.start(), m.end()
    return q


def _phrase(field, fieldname: str, boost: float, m: re.Match):
    """A quoted phrase in one field: its words as the field's analyzer reads them."""
    start = m.start("phrase")
    words, ranges = [], []
    for t in field.tokenize(m.group("phrase"), mode="query", chars=True):
        words.append(t.text)
        ranges.append((start + t.startchar, start + t.endchar))
    q = query.Phrase(fieldname, words, slop=1, boost=boost, char_ranges=ranges)
    q.startchar, q.endchar = m.start(), m.end()
    return q
