"""Bounds on the work one query may cause (DESIGN §8 "Bounded work").

A query comes from a person, from the agent, or through the agent from a source
document written to make it expensive, so what it may cost is bounded here,
whichever way it was parsed (:mod:`wikitui.core.search.whoosh.simple_query` or Whoosh's parser):

- a fuzzy word allows 1 or 2 edits: ``word~`` is 1, ``word~2`` is 2, and a larger
  number is searched as 2 with a note saying so (Whoosh builds an automaton whose
  size grows exponentially with the distance: ``~9`` ran for minutes in gigabytes);
- a fuzzy word longer than any indexed term can be is not looked up at all;
- a query has at most :data:`MAX_QUERY_CHARS` characters (and no lone surrogate), parentheses nested at
  most :data:`MAX_NESTING` deep, and at most :data:`MAX_EXPANDING_WORDS` fuzzy,
  prefix or wildcard words;
- all its fuzzy, prefix and wildcard words together expand to at most
  :data:`MAX_EXPANDED_TERMS` indexed terms (see :mod:`wikitui.core.search.whoosh.expand`).

This module imports Whoosh; the backend imports it only when a search or an update runs.
"""

from __future__ import annotations

import re

from whoosh import query

from wikitui.core.base.errors import BadQuery
from wikitui.core.search.whoosh.analysis import MAX_TOKEN

#: Edits a fuzzy word may allow.
MAX_FUZZY_DISTANCE = 2
#: Indexed terms the multi-term words of one query may stand for, all together.
MAX_EXPANDED_TERMS = 256
#: Fuzzy, prefix and wildcard words in one query.
MAX_EXPANDING_WORDS = 16
#: Characters in one query (a search is a few words, not a document).
MAX_QUERY_CHARS = 1000
#: Levels of nested parentheses.
MAX_NESTING = 20

_SURROGATE = re.compile("[\ud800-\udfff]")
#: ``word~N`` (and ``word~N/P``) as Whoosh's fuzzy plugin reads it: a digit right after the tilde.
_FUZZY_NUMBER = re.compile(r"([^\s()~]+)~([0-9])")


def check_text(text: str) -> None:
    """Reject a query too long or too deeply nested to be worth reading, or one that is not text.

    Raises:
        BadQuery: with the limit that was passed.
    """
    if len(text) > MAX_QUERY_CHARS:
        raise BadQuery(f"the query is too long: {len(text):,} characters (at most {MAX_QUERY_CHARS:,})")
    m = _SURROGATE.search(text)
    if m:  # no index term can hold one (they are UTF-8), and Whoosh fails to encode it
        raise BadQuery(f"the query holds a lone surrogate (U+{ord(m.group()):04X}), which is not text")
    depth = deepest = 0
    for ch in text:
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth -= 1
    if deepest > MAX_NESTING:
        raise BadQuery(f"parentheses are nested {deepest} deep in the query (at most {MAX_NESTING})")


def fuzzy_notes(bare: str) -> list[str]:
    """The notes for fuzzy words asking for more edits than allowed.

    Args:
        bare: The query with its quoted phrases blanked (a ``~`` in a phrase is text).
    """
    notes: list[str] = []
    for m in _FUZZY_NUMBER.finditer(bare):
        asked = int(m.group(2))
        if asked > MAX_FUZZY_DISTANCE:
            word = m.group(1)
            note = (
                f"{word}~{asked}: fuzzy search allows at most {MAX_FUZZY_DISTANCE} edits, "
                f"so it was searched as {word}~{MAX_FUZZY_DISTANCE}"
            )
            if note not in notes:
                notes.append(note)
    return notes


def bound_query(q):
    """``q`` with every fuzzy word capped (see the module's notes), checked for its number of multi-term words.

    Raises:
        BadQuery: more than :data:`MAX_EXPANDING_WORDS` fuzzy, prefix or wildcard words.
    """
    words = {_word(leaf) for leaf in _leaves(q) if isinstance(leaf, query.MultiTerm)}
    if len(words) > MAX_EXPANDING_WORDS:
        raise BadQuery(
            f"the query has {len(words)} fuzzy, prefix or wildcard words (at most {MAX_EXPANDING_WORDS})"
        )
    return _cap(q)


def _word(leaf) -> tuple:
    """What a multi-term stands for, whatever field it is looked up in (a range has two ends, not a text)."""
    return (type(leaf).__name__, getattr(leaf, "text", None), getattr(leaf, "start", None), getattr(leaf, "end", None))


def _leaves(q):
    stack = [q]
    while stack:
        node = stack.pop()
        children = list(node.children())
        if children:
            stack.extend(children)
        else:
            yield node


def _cap(q):
    if isinstance(q, query.FuzzyTerm):
        return cap_fuzzy(q)
    if any(True for _ in q.children()):
        return q.apply(_cap)
    return q


def cap_fuzzy(q: query.FuzzyTerm):
    """A fuzzy term allowing at most :data:`MAX_FUZZY_DISTANCE` edits (NullQuery when nothing can match)."""
    maxdist = max(0, min(q.maxdist, MAX_FUZZY_DISTANCE))
    if isinstance(q.text, str) and len(q.text) > MAX_TOKEN + maxdist:
        return query.NullQuery  # every indexed term is shorter than MAX_TOKEN characters
    # A kept prefix longer than the word (``rabbit~2/99``) would index past its end.
    prefix = max(0, min(q.prefixlength, len(q.text)))
    if (maxdist, prefix) == (q.maxdist, q.prefixlength):
        return q
    capped = query.FuzzyTerm(q.fieldname, q.text, boost=q.boost, maxdist=maxdist, prefixlength=prefix)
    capped.startchar, capped.endchar = getattr(q, "startchar", None), getattr(q, "endchar", None)
    return capped
