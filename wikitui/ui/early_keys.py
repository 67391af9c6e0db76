"""Keys typed faster than the screens open: kept, then handled one after another, in order.

Textual takes a key from the app's queue and hands it to the focused widget at
once; the key's bindings run later, once it has bubbled back up. A fast typist's
burst (``/rabbit`` or ``ctrl+p cheshire enter`` right after launch) therefore
went astray: the letters were handed to the page before ``/`` had opened the
search screen; once that screen was up, they reached it before it had mounted and
focused its input; and a priority key (``ctrl+p``) overtook the keys before it.
Those keys were lost.

Here a key is handed out only when (1) the key before it has been handled (a
:class:`KeyHandled` marker sent after it has come back up to the app) and (2) the
screen on top is ready: mounted, and focused where it means to be. Keys that
arrive meanwhile are held and posted again in order. A key is never held longer
than :data:`MAX_WAIT` seconds: a screen that never settles, or a marker that never
comes back, must not swallow keys.

Keys typed before the app has put the terminal in raw mode were read by the
terminal's line discipline first, which turns a return (``\r``) into a line feed
(``\n``, ICRNL): Textual reads that as ``ctrl+j``, which no screen takes for
enter. A ``ctrl+j`` read with the keys waiting in the terminal when the app took
it (:meth:`EarlyKeys.terminal_taken`; within :data:`LAUNCH_READ` seconds) is
therefore read as the ``enter`` it was typed as: ``/dodo`` and enter typed at
launch open the first result.
"""

from __future__ import annotations

import time
import weakref
from collections import deque
from itertools import count
from typing import TYPE_CHECKING

from textual import events
from textual.app import ScreenStackError
from textual.message import Message

if TYPE_CHECKING:
    from textual.app import App
    from textual.message_pump import MessagePump
    from textual.screen import Screen


def _clock() -> float:
    """Textual's clock, the one a message's ``time`` is read on."""
    from wikitui.ui.textual_internals import clock

    return clock()


#: Seconds between two looks while keys are held.
POLL = 0.01
#: Longest a key waits for its screen or for the key before it, in seconds.
MAX_WAIT = 5.0
#: Seconds after the app took the terminal within which keys read were typed before (in its line discipline).
LAUNCH_READ = 0.3


class KeyHandled(Message, bubble=True):
    """Sent to where a key went, right behind it: when it reaches the app, the key has been handled.

    Attributes:
        number: Which key (numbers grow with each key handed out).
    """

    def __init__(self, number: int) -> None:
        super().__init__()
        self.number = number


def screen_ready(screen: "Screen") -> bool:
    """Whether ``screen`` takes keys now: mounted, and focused where it means to be."""
    if not screen.is_mounted:
        return False
    if screen.focused is not None:
        return True
    selector = screen.AUTO_FOCUS if screen.AUTO_FOCUS is not None else screen.app.AUTO_FOCUS
    if not selector:
        return True
    # It will focus a widget as soon as that one can take the focus.
    return not any(widget.focusable for widget in screen.query(selector))


class EarlyKeys:
    """Hands keys out one at a time, each to a ready screen; holds the ones that arrive meanwhile.

    The app calls :meth:`hold` with every key from the terminal, :meth:`handed_out`
    after passing one on, and :meth:`handled` when a :class:`KeyHandled` reaches it.

    Args:
        app: The app whose keys these are.
    """

    def __init__(self, app: "App") -> None:
        self._app = app
        self._held: deque[events.Key] = deque()
        #: Screens seen ready: they are not checked again.
        self._settled: weakref.WeakSet[Screen] = weakref.WeakSet()
        #: Ids of the keys posted again by :meth:`_release` (they go through).
        self._replayed: set[int] = set()
        self._numbers = count(1)
        #: The key handed out and not yet handled (its number), and since when.
        self._in_flight: int | None = None
        self._since = 0.0
        self._polling = False
        #: When the app put the terminal in raw mode (None: not yet), on Textual's clock (``Message.time``).
        self._raw_at: float | None = None

    @property
    def held(self) -> int:
        """How many keys wait."""
        return len(self._held)

    def hold(self, event: events.Key) -> bool:
        """Whether the app must not hand ``event`` out now (it is then kept, to be posted again later)."""
        if id(event) in self._replayed:
            self._replayed.discard(id(event))
            return False
        if event.key == "ctrl+j" and self._typed_before_raw_mode(event):  # a return turned into a line feed
            event.prevent_default()
            event.stop()
            if not self._held:
                self._since = time.monotonic()
            self._held.append(events.Key("enter", "\r"))
            self._poll()
            return True
        if not self._held and self._free():
            return False
        if not self._held:
            self._since = time.monotonic()
        self._held.append(events.Key(event.key, event.character))
        self._poll()
        return True

    def terminal_taken(self) -> None:
        """The app has the terminal in raw mode now (called when the app is mounted)."""
        self._raw_at = _clock()

    def _typed_before_raw_mode(self, event: events.Key) -> bool:
        """Whether ``event`` was among the keys waiting in the terminal when the app took it."""
        return self._raw_at is None or event.time <= self._raw_at + LAUNCH_READ

    def handed_out(self, target: "MessagePump") -> None:
        """A key was just handed to ``target`` (or taken by a priority binding): follow it with a marker."""
        number = next(self._numbers)
        self._in_flight = number
        self._since = time.monotonic()
        target.post_message(KeyHandled(number))

    def handled(self, message: KeyHandled) -> None:
        """A marker came back up: its key has been handled; the next one may go."""
        if message.number == self._in_flight:
            self._in_flight = None
            self._release()

    # ----------------------------------------------------------------- waiting
    def _free(self) -> bool:
        """Whether a key may be handed out now: none in flight and the top screen ready (or waited long enough)."""
        waited_too_long = time.monotonic() - self._since > MAX_WAIT
        if self._in_flight is not None and not waited_too_long:
            return False
        self._in_flight = None
        try:
            screen = self._app.screen
        except ScreenStackError:  # no screen yet: the app is starting
            return False
        if screen in self._settled:
            return True
        if screen_ready(screen) or waited_too_long:
            self._settled.add(screen)
            return True
        return False

    def _poll(self) -> None:
        if not self._polling:
            self._polling = True
            self._app.set_timer(POLL, self._tick, name="early keys")

    def _tick(self) -> None:
        self._polling = False
        self._release()

    def _release(self) -> None:
        """Post the next held key if it may go now; else look again shortly."""
        if not self._held:
            return
        if not self._free():
            self._poll()
            return
        key = self._held.popleft()
        self._replayed.add(id(key))
        self._app.post_message(key)
        # Until it has been handed out, the keys behind it must wait.
        self._in_flight = 0
        self._since = time.monotonic()
