"""Garbage-collector tuning, for the entry points only (the CLI, the app, the index's child process).

The garbage collector is process-wide: whether to pause it, or to move long-lived
objects out of its sight, is the program's decision, not a library's. The core
(``wikitui.core``) never touches it; the entry points wrap their bulk work in
:func:`paused` and freeze what lives as long as they do (in the app, also a big
page's laid-out lines: :func:`freeze_young`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small objects (a vault's link graph).

    Loading a vault allocates hundreds of thousands of objects and no cycles; the
    collector's repeated passes cost ~30% of a cold load on a 3,000-page vault.

    On the way out the new objects go straight to the oldest generation: they are the
    graph, which lives as long as its owner, and the first young collection after the
    pause would otherwise walk every one of them (~80 ms on 10,000 pages) only to
    promote them there. ``gc.freeze()`` then ``gc.unfreeze()`` does exactly that
    promotion and nothing else, but only when nothing is frozen: unfreezing would also
    hand back to the collector what the process froze on purpose (the app freezes
    its long-lived objects), so then the collector is left to its usual course.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()


@contextmanager
def off() -> Iterator[None]:
    """No collections at all for a short command (``wikitui search``): it frees nothing worth the time.

    Importing Whoosh and reading its tables allocates enough to set off a dozen
    collections that find nothing to free (~7 ms of a 120 ms run). Even a first
    build of a 10,000-page index peaks no higher without them.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def freeze() -> None:
    """Move every object alive now out of the collector's sight (they live as long as the process).

    At exit Python collects every object of the process to find cycles (~20 ms after
    a search); frozen objects are left to the OS, which frees the whole heap at once.
    In the app, a big vault's graph (a million objects) and litellm's ~200 MB would
    otherwise be walked by every full collection, stalling frames for 100+ ms.
    """
    gc.freeze()


def freeze_young() -> None:
    """Collect the young generations, then move every object alive out of the collector's sight.

    For what the app builds to keep for a while after the graph is frozen: a big page's
    laid-out lines (three objects per line, 130,000 for a 4 MB text) would otherwise be
    walked by every full collection, each a 50-190 ms pause while the page is read. The
    young collection first (a millisecond) frees recent cyclic garbage rather than
    freezing it; frozen objects are still freed by reference counting when the page is
    closed (laid-out lines hold no cycles).
    """
    gc.collect(1)
    gc.freeze()


@contextmanager
def no_full_collections() -> Iterator[None]:
    """No full garbage collection while an answer streams (young generations still collected).

    A full collection walks every object the app holds and pauses the UI for 50-150 ms;
    streaming allocates enough to trigger one every second or so. The one owed runs
    after the turn, when a pause costs nothing.
    """
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, 1_000_000)
    try:
        yield
    finally:
        gc.set_threshold(young, middle, full)
