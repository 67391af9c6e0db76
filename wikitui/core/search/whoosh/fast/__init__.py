"""The Whoosh backend's fast path: the one place that reads Whoosh's internals, for speed.

Written against ``whoosh-reloaded`` 2.7.5 (:data:`WRITTEN_FOR`). Three things:

- ``scoring`` (+ ``postings``): the common queries scored straight from the
  postings with Whoosh's own BM25F formula and statistics (``top_docs``), and
  stored fields read from their segment (``stored_fields``); a query of another
  shape returns None and Whoosh's searcher runs it;
- ``loader``: Whoosh imported without three modules it loads and never uses here,
  and index files read in place instead of copied (a process-wide patch of one
  Whoosh class, applied only on the version it was written for).

:func:`available` says whether the installed Whoosh is that version (and the fast
path was not turned off with ``WIKITUI_SEARCH_FAST_PATH=0``). On any other version
the backend uses Whoosh's public searcher and plain imports: slower, same results.
The conformance tests run every query both ways and compare hits and scores.
``bench/search_fast_path.py`` prints what each part buys (the scorer: search p50 about
half of Whoosh's searcher's on vault-large, 1.4 against 2.6 ms, on 2026-12-01).
"""

from __future__ import annotations

import os

#: The Whoosh version (``whoosh.__version__``) whose internals this package reads.
WRITTEN_FOR = (2, 7, 5)
#: Set to "0" to use Whoosh's public searcher even on that version.
SWITCH = "WIKITUI_SEARCH_FAST_PATH"


def available() -> bool:
    """Whether the fast path may be used: the installed Whoosh is :data:`WRITTEN_FOR` and it is not switched off."""
    if os.environ.get(SWITCH, "1") == "0":
        return False
    import whoosh  # its __init__ holds only the version (~0.2 ms)

    return tuple(whoosh.__version__[:3]) == WRITTEN_FOR
