"""Fault injection for the crash tests: a process that kills itself before its Nth write step.

With ``WIKITUI_FAULT_KILL_AT=N`` in its environment, a wikitui process sends itself
SIGKILL right before the Nth step of the write path (a temp file created, its bytes
written, an fsync, a rename, an unlink, an append). The kill tests use it to stop an
apply at every point in turn, deterministically, instead of guessing with sleeps.
``WIKITUI_FAULT_KILL_AT=0`` only counts the steps (:func:`steps_taken`).

Without the variable each step costs one dictionary lookup.

With ``WIKITUI_FAULT_HANG_CONVERTING=NAME``, converting a source file named ``NAME``
hangs (:func:`converting`): a parser caught in a loop by a hostile file, for the
tests of the conversions' time limits; with ``WIKITUI_FAULT_CRASH_CONVERTING=NAME``
the converting process dies instead.
"""

from __future__ import annotations

import os
import signal
import time

#: The environment variable that arms the hook.
KILL_AT_ENV = "WIKITUI_FAULT_KILL_AT"

#: The environment variable that makes converting one file (by its name) hang.
HANG_CONVERTING_ENV = "WIKITUI_FAULT_HANG_CONVERTING"
#: The environment variable that makes the process converting one file (by its name) die.
CRASH_CONVERTING_ENV = "WIKITUI_FAULT_CRASH_CONVERTING"

_taken = 0


def step(what: str) -> None:
    """Mark one step of the write path (``what`` names it, for a debugger); may not return."""
    global _taken
    at = os.environ.get(KILL_AT_ENV)
    if not at:
        return
    _taken += 1
    try:
        limit = int(at)
    except ValueError:
        return
    if 0 < limit <= _taken:
        os.kill(os.getpid(), signal.SIGKILL)


def steps_taken() -> int:
    """How many steps this process marked while the hook was armed."""
    return _taken


def reset() -> None:
    """Start counting from zero again (a forked child does, so its count is its own)."""
    global _taken
    _taken = 0


def converting(name: str) -> None:
    """Mark the start of converting a file named ``name``; hangs for an hour, or dies, when a hook names it."""
    if os.environ.get(HANG_CONVERTING_ENV) == name:
        time.sleep(3600)
    if os.environ.get(CRASH_CONVERTING_ENV) == name:
        os._exit(3)  # a converter that takes its process down (a segfault in a C parser)
