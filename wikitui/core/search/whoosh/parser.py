"""Whoosh's query parser, set up for wikitui's query language.

Imported only when a query needs the parser (operators, ``-word``, fuzzy words,
groups): building a parser compiles a dozen regular expressions, and importing
Whoosh's parser module takes a few milliseconds more, which ``wikitui search``
would otherwise pay on every run.
"""

from __future__ import annotations

from whoosh import query
from whoosh.qparser import FieldAliasPlugin, FuzzyTermPlugin, MultifieldParser, PlusMinusPlugin

from wikitui.core.search.whoosh.bounds import MAX_FUZZY_DISTANCE


class _FuzzyPlugin(FuzzyTermPlugin):
    """Fuzzy words that keep their first letter by default (``word~`` means ``word~1/1``).

    Five to ten times faster on a large vocabulary, and people seldom mistype a
    word's first letter.
    """

    class FuzzyTermNode(FuzzyTermPlugin.FuzzyTermNode):
        """Matches the word as typed or its stem, whichever is closer to an indexed stem.

        ("caterpiller" stems to "caterpil", two edits from "caterpillar"; "philosphy"
        is two edits from "philosophi" but its stem "philosphi" is one.)
        """

        def query(self, parser):  # noqa: D102 - Whoosh's node protocol
            q = super().query(parser)
            typed = self.text.lower()
            if not isinstance(q, query.FuzzyTerm) or q.text == typed:
                return q
            alt = query.FuzzyTerm(q.fieldname, typed, boost=q.boost, maxdist=q.maxdist, prefixlength=q.prefixlength)
            return query.Or([q, alt])

    def create(self, parser, match):  # noqa: D102 - Whoosh's plugin protocol
        node = super().create(parser, match)
        if match.group("prefix") is None:
            node.prefixlength = 1
        # ``~9`` would build an automaton exponential in 9 (minutes, gigabytes): see bounds.py.
        node.maxdist = min(node.maxdist, MAX_FUZZY_DISTANCE)
        return node


def make_parser(schema, text_fields: tuple[str, ...], boosts: dict[str, float], aliases: dict[str, str]):
    """A parser for the query language of :mod:`wikitui.core.search.whoosh.schema`.

    Args:
        schema: The index's schema.
        text_fields: The fields a bare word is looked up in.
        boosts: Their query-time weights.
        aliases: Field names a query may use for another (``tag`` for ``tags``).
    """
    parser = MultifieldParser(list(text_fields), schema, fieldboosts=boosts)
    parser.add_plugin(_FuzzyPlugin())
    parser.add_plugin(FieldAliasPlugin({real: [alias] for alias, real in aliases.items()}))
    # ``-word`` excludes and ``+word`` requires only at the start of a word:
    # "self-awareness" is one hyphenated word, not "self" without "awareness".
    parser.add_plugin(PlusMinusPlugin(plusexpr=r"(?<![^\s(])\+", minusexpr=r"(?<![^\s(])-"))
    return parser
