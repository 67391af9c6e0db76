"""The link graph's cache in ``.wikitui/cache/graph.pickle``.

It holds every parsed page and what resolving their links gave: the targets of each
page's links and the backlinks. A warm start checks every file's mtime and size
against it; when no page changed and no file came or went, the cached resolution is
the resolution (it depends on nothing else), and the graph takes it as it is.

Pages, links and headings are pickled as their class and their fields in order, so
unpickling calls the class (a generated ``__init__``) rather than the default path for
slotted objects (a new empty object and then a dict of attribute values set one by
one), which took twice as long to load. The fields' names are part of the cache's key:
a class that changes shape makes the old cache unreadable rather than wrong.
"""

from __future__ import annotations

import copyreg
import io
import pickle
from dataclasses import dataclass, fields
from operator import attrgetter
from pathlib import Path

from wikitui.core.vault.files import atomic_write
from wikitui.core.vault.links import Link
from wikitui.core.vault.page import Heading, PageInfo

#: Bump when what the cache holds changes meaning: an old cache is then ignored.
CACHE_VERSION = 10  # 7: bare URLs are links; 8: contexts cut to 200 characters; 9: `source:` read; 10: ties by folder
CACHE_NAME = "graph.pickle"

_CLASSES = (PageInfo, Link, Heading)
#: Each pickled class's fields, in the order its constructor takes them.
_SHAPE = tuple(tuple(f.name for f in fields(cls)) for cls in _CLASSES)


def _reducer(cls: type, names: tuple[str, ...]):
    state = attrgetter(*names)  # a tuple of the fields, gathered in C

    def reduce(obj):
        return cls, state(obj)

    return reduce


_DISPATCH = {**copyreg.dispatch_table, **{cls: _reducer(cls, names) for cls, names in zip(_CLASSES, _SHAPE)}}


@dataclass(slots=True)
class CachedGraph:
    """What a cache file holds.

    Attributes:
        pages: Parsed pages by vault-relative path.
        files: Raw sources' then other files' paths, each sorted, when resolved.
        resolved: Each page's link targets, in the order of its links.
        backlinks: Flat ``[source, link, ...]`` lists by target (see ``LinkGraph``).
    """

    pages: dict[str, PageInfo]
    files: tuple[tuple[str, ...], tuple[str, ...]]
    resolved: dict[str, list[str | None]]
    backlinks: dict[str, list]


def read_cache(path: Path, layout: tuple[str, ...]) -> CachedGraph | None:
    """The cache at ``path``; None when missing, unreadable, stale or for another layout."""
    try:
        with open(path, "rb") as fh:
            data = pickle.load(fh)
    except Exception:  # a missing, truncated or foreign cache is simply rebuilt
        return None
    if (
        not isinstance(data, dict)
        or data.get("version") != CACHE_VERSION
        or data.get("shape") != _SHAPE
        or data.get("layout") != layout
    ):
        return None
    try:
        return CachedGraph(data["pages"], data["files"], data["resolved"], data["backlinks"])
    except KeyError:
        return None


def write_cache(path: Path, layout: tuple[str, ...], graph: CachedGraph) -> None:
    """Write the cache atomically; a read-only vault just goes without one."""
    payload = {
        "version": CACHE_VERSION,
        "shape": _SHAPE,
        "layout": layout,
        "pages": graph.pages,
        "files": graph.files,
        "resolved": graph.resolved,
        "backlinks": graph.backlinks,
    }
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _DISPATCH  # this file's pickles only, not the process's
    try:
        pickler.dump(payload)
        atomic_write(path, buf.getvalue())
    except OSError:
        pass
