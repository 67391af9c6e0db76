"""Reading a term's postings and a field's lengths straight from Whoosh's segment files (the fast path).

Each function here reads structures of ``whoosh-reloaded`` 2.7.5's ``W3Codec``
(the term table's entries, posting blocks, the lengths column): the private part
of :mod:`wikitui.core.search.whoosh.fast`, used by its ``scoring`` only.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate
from pickle import loads

from whoosh.codec.whoosh3 import W3LeafMatcher, _lenfield
from whoosh.formats import Positions
from whoosh.reading import TermNotFound
from whoosh.system import _INT_SIZE
from whoosh.util.numeric import byte_to_length

#: Decoded field lengths, as Whoosh stores them (one byte per document).
LENGTHS = [byte_to_length(b) for b in range(256)]
#: Weights of a block that stores none (every posting weighs 1).
_ONES = [1.0] * 1024


class Unsupported(Exception):
    """The query (or the index) needs Whoosh's own matchers."""


def postings(reader, schema, scorable: set[str], fieldname: str, btext: bytes, values: list | None = None):
    """(document numbers, weights) of a term in one leaf reader, deleted documents included.

    With ``values``, the postings' raw values (positions) are appended to it.
    The term's entry is looked up once, and its postings decoded a block at a
    time. Deleted documents (earlier versions of re-indexed files) are removed
    once from the final scores (:func:`~wikitui.core.search.whoosh.fast.scoring.top_docs`),
    not from every term's postings: a document is deleted in all of them, so no
    result changes.

    Raises:
        Unsupported: the reader has no term table of the known kind.
    """
    terms = getattr(reader, "_terms", None)
    if terms is None:
        raise Unsupported("a reader without a term table")
    if fieldname in scorable and not reader.field_length(fieldname):
        return (), ()  # nothing in this field here (an Obsidian vault has no summaries)
    try:
        info = terms.term_info(fieldname, btext)
    except TermNotFound:
        return (), ()
    if info.is_inlined():  # a term in one document keeps its posting in its entry
        block_ids, block_weights, block_values = info.inlined_postings()
        ids = list(block_ids)
        weights = list(block_weights) if block_weights else [1.0] * len(ids)
        if values is not None:
            values.extend(block_values)
    else:
        offset, length = info.extent()
        m = W3LeafMatcher(terms._postfile, offset, length, schema[fieldname].format)
        ids, weights = _read_blocks(m, values)
    return ids, weights


def _read_blocks(m: W3LeafMatcher, values: list | None) -> tuple[list[int], list[float]]:
    """Every posting of ``m``: what its ``_read_ids`` and ``_read_weights`` decode, a block at a time."""
    ids: list[int] = []
    weights: list[float] = []
    while True:
        m._read_data()
        block_ids, block_weights = m._data[0], m._data[1]
        ids.extend(block_ids if m._byteids else accumulate(block_ids))
        count = m._blocklength
        if block_weights is None:
            weights.extend(_ONES[:count] if count <= len(_ONES) else [1.0] * count)
        elif isinstance(block_weights, float):
            weights.extend([block_weights] * count)
        else:
            weights.extend(block_weights)
        if values is not None:
            values.extend(m._data[2])
        if m._lastblock:
            return ids, weights
        m._goto(m._nextoffset)


def positions_in(ids: list[int], wanted, offset: int) -> list[int]:
    """Indexes of the (sorted) ``ids`` whose ``id + offset`` is in ``wanted``, in order."""
    if len(wanted) * 8 < len(ids):  # a few wanted among many: look each up
        n = len(ids)
        keep = []
        for d in wanted:
            j = bisect_left(ids, d - offset)
            if j < n and ids[j] == d - offset:
                keep.append(j)
        keep.sort()
        return keep
    return [i for i, d in enumerate(ids) if d + offset in wanted]


def adjacent(positions: list) -> bool:
    """Whether the first word occurs at some p, the second at p + 1, and so on (each an iterable of positions)."""
    starts = set(positions[0])
    for k, later in enumerate(positions[1:], 1):
        starts.intersection_update([p - k for p in later])
        if not starts:
            return False
    return True


def position_decoder(fmt):
    """A function from a posting's value to its positions (Whoosh's ``decode_positions``, without its Python loop)."""
    if type(fmt) is not Positions:
        return fmt.decode_positions

    def decode(value: bytes):
        if not value.endswith(b"."):
            value += b"."
        return accumulate(loads(value[_INT_SIZE:]))

    return decode


def length_bytes(reader, fieldname: str) -> bytes:
    """One leaf's stored field lengths, one byte per document (0 where the field is empty)."""
    doccount = reader.doc_count_all()
    perdoc = reader._perdoc
    from whoosh.codec.whoosh3 import LENGTHS_COLUMN

    col = perdoc._cached_reader(_lenfield(fieldname), LENGTHS_COLUMN)
    if col is None:
        return bytes(doccount)
    try:
        raw = bytes(col._dbfile.get(col._basepos, col._count))
    except AttributeError:  # another column implementation: read it the slow way
        raw = bytes(col.load())
    return raw[:doccount] + bytes(max(0, doccount - len(raw)))
