"""Text shown to a person, made visible: no byte of it can drive the terminal (DESIGN §8).

A page, a source or a proposal can hold characters a terminal obeys instead of showing:
C0 controls (``ESC [ 1 A`` moves the cursor up, ``ESC ] 52`` writes the clipboard, ``BEL``
ends it), C1 controls (``\\x9b`` is a one-byte CSI), and invisible format characters
(the bidi overrides U+202A–U+202E and isolates U+2066–U+2069 reorder what is drawn;
zero-width ones hide text). Whatever shows vault or source text passes it through
:func:`visible` first:

- a C0 control (other than tab and newline) becomes its Unicode control picture
  (``ESC`` → ``␛``, ``BEL`` → ``␇``, a lone ``CR`` → ``␍``; DEL → ``␡``); a CRLF line
  ending is shown as the line break it is;
- a C1 control becomes its escape, ``\\x9b``;
- an invisible format character becomes its code point, ``⟨U+202E⟩`` (a byte-order mark
  at the very start is left alone: it is the file's encoding mark; a zero-width joiner
  between two emoji is left too: it draws one emoji).

Each step is one ``str.translate`` or compiled-regex call, so megabytes cost
milliseconds, and text without such characters is returned as it is after one search.
:func:`format_chars` names the invisible ones in a text (the review flags their hunk);
:func:`proposal_control` finds a control character a proposal adds (it is refused);
:func:`json_visible` escapes what JSON leaves raw.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

#: Invisible format characters: bidi embeddings, overrides, isolates and marks, zero-width
#: spaces and joiners, word joiners and invisible operators, line and paragraph separators,
#: the byte-order mark (zero-width no-break space), interlinear annotations and tags.
_FORMAT_RANGES = (
    (0x061C, 0x061C), (0x180E, 0x180E), (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064),
    (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)
#: The bidi controls: they reorder what the terminal draws (refused in a path).
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

_ZWJ = "\u200d"
_FORMAT_CLASS = "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in _FORMAT_RANGES)
_CONTROL_CLASS = "\x00-\x08\x0b-\x1f\x7f-\x9f"  # \r included: a lone one returns the cursor

_TABLE: dict[int, str] = {c: chr(0x2400 + c) for c in range(0x20) if c not in (0x09, 0x0A)}
_TABLE[0x7F] = "\u2421"
_TABLE.update({c: f"\\x{c:02x}" for c in range(0x80, 0xA0)})
_TABLE.update({c: f"\u27e8U+{c:04X}\u27e9" for a, b in _FORMAT_RANGES for c in range(a, b + 1) if c != 0x200D})

#: Anything :func:`visible` changes (a CRLF included: it is folded to LF).
_UNSAFE = re.compile(f"[{_CONTROL_CLASS}{_FORMAT_CLASS}]")
_FORMAT = re.compile(f"[{_FORMAT_CLASS}]")
_EMOJI = "\u2600-\u27bf\u2b00-\u2bff\ufe0f\U0001f000-\U0001faff"
#: A zero-width joiner that does not join two emoji (one that does draws a family, a flag...).
_LONE_ZWJ = re.compile(f"(?<![{_EMOJI}]){_ZWJ}|{_ZWJ}(?![{_EMOJI}])")
#: A control a proposal may not add: C0 (not tab or newline), a CR that ends no CRLF, DEL, C1.
_PROPOSAL_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")
#: What ``json.dumps(ensure_ascii=False)`` leaves raw that a terminal would obey or hide.
_JSON_RAW = re.compile(f"[\x7f-\x9f{_FORMAT_CLASS}]")
#: Path characters refused: controls (C0, DEL, C1) and the bidi controls.
_PATH_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI}\u2028\u2029]")


def visible(text: str) -> str:
    """``text`` with every control and invisible format character shown (see the module docstring).

    Idempotent: ``visible(visible(t)) == visible(t)``; text without such characters comes back unchanged.
    """
    if not _UNSAFE.search(text):
        return text
    bom = text.startswith("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    out = text.translate(_TABLE)
    if _ZWJ in out:
        out = _LONE_ZWJ.sub("\u27e8U+200D\u27e9", out)
    if bom:  # the file's encoding mark, not hidden text
        out = "\ufeff" + out[len("\u27e8U+FEFF\u27e9"):]
    return out


def visible_line(text: str) -> str:
    """``text`` for one line of a list or a status bar: :func:`visible`, its line breaks as spaces."""
    return " ".join(visible(text).split("\n")) if "\n" in text or _UNSAFE.search(text) else text


def has_unsafe(text: str) -> bool:
    """Whether :func:`visible` would change anything in ``text`` (one regex search)."""
    return _UNSAFE.search(text) is not None


def format_chars(text: str) -> list[str]:
    """The invisible format characters in ``text``, each once in order of first use, as ``U+202E NAME``.

    A byte-order mark at the start and a zero-width joiner between emoji are not counted
    (:func:`visible` leaves them too).
    """
    if not _FORMAT.search(text):
        return []
    if text.startswith("\ufeff"):
        text = text[1:]
    found = dict.fromkeys(_FORMAT.findall(text))
    if _ZWJ in found and not _LONE_ZWJ.search(text):
        del found[_ZWJ]
    return [f"U+{ord(c):04X} {unicodedata.name(c, 'FORMAT CHARACTER')}" for c in found]


def control_chars(text: str) -> list[str]:
    """The control characters (C0 but tab and newline, a lone CR, DEL, C1) in ``text``, each once, as ``U+001B ESCAPE``."""
    if not _PROPOSAL_CONTROL.search(text):
        return []
    found = dict.fromkeys(m.group() for m in _PROPOSAL_CONTROL.finditer(text))
    return [f"U+{ord(c):04X} {_C0_NAMES.get(ord(c), 'CONTROL')}" for c in found]


def describe(ch: str) -> str:
    """One character named for a message: ``U+001B (ESCAPE)``."""
    name = unicodedata.name(ch, "") or _C0_NAMES.get(ord(ch), "a control character")
    return f"U+{ord(ch):04X} ({name})"


_C0_NAMES = {0x00: "NUL", 0x07: "BELL", 0x08: "BACKSPACE", 0x09: "TAB", 0x0A: "LINE FEED", 0x0B: "LINE TABULATION",
             0x0C: "FORM FEED", 0x85: "NEXT LINE",
             0x0D: "CARRIAGE RETURN", 0x1B: "ESCAPE", 0x7F: "DELETE", 0x9B: "CONTROL SEQUENCE INTRODUCER",
             0x9D: "OPERATING SYSTEM COMMAND"}


def proposal_control(before: str, after: str) -> tuple[str, int] | None:
    """The first control character ``after`` adds to ``before``, and its 1-based line (None when none).

    Tab, newline and the CR of a CRLF are text. A control already in ``before`` (a human's
    page may hold one) may stay: a character counts as added when ``after`` holds more of
    it than ``before``; the line given is the first of ``after`` with it that ``before``
    lacks. Text without controls costs one regex search.
    """
    if not _PROPOSAL_CONTROL.search(after):
        return None
    had = Counter(_PROPOSAL_CONTROL.findall(before))
    counts = Counter(_PROPOSAL_CONTROL.findall(after))
    added = [c for c, n in counts.items() if n > had.get(c, 0)]
    if not added:
        return None
    ch = added[0]
    old_lines = set(before.split("\n")) if ch in had else set()
    at = after.find(ch)
    while at != -1:
        start, end = after.rfind("\n", 0, at) + 1, after.find("\n", at)
        if after[start : None if end == -1 else end] not in old_lines:
            break
        at = after.find(ch, at + 1)
    at = after.find(ch) if at == -1 else at
    return ch, after.count("\n", 0, at) + 1


def path_unsafe(path: str) -> str | None:
    """The first control or bidi character in ``path`` (None when it has none): no such name is created."""
    m = _PATH_UNSAFE.search(path)
    return m.group() if m else None


def json_visible(document: str) -> str:
    """A JSON document with DEL, C1 and invisible format characters as ``\\uXXXX`` escapes (the same data).

    ``json.dumps(..., ensure_ascii=False)`` escapes C0 but writes these raw.
    """
    if not _JSON_RAW.search(document):
        return document
    return _JSON_RAW.sub(lambda m: "".join(f"\\u{u:04x}" for u in _utf16(m.group())), document)


def _utf16(ch: str) -> list[int]:
    o = ord(ch)
    if o < 0x10000:
        return [o]
    o -= 0x10000
    return [0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)]


class VisibleWriter:
    """A text stream whose every write is passed through :func:`visible` (the CLI's stdout and stderr).

    Everything else (``flush``, ``isatty``, ``fileno``...) is the wrapped stream's; a
    program's own terminal codes (a progress line's ``\\r``) go to :attr:`unfiltered`.

    Args:
        stream: The stream written to.
    """

    def __init__(self, stream) -> None:
        #: The wrapped stream, for the program's own terminal codes.
        self.unfiltered = stream

    def write(self, text: str) -> int:
        """Write ``text`` shown visibly; returns the length of ``text`` (what was asked to be written)."""
        self.unfiltered.write(visible(text))
        return len(text)

    def writelines(self, lines) -> None:
        """Write each of ``lines`` shown visibly."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self.unfiltered, name)


def visible_stream(stream):
    """``stream`` wrapped in a :class:`VisibleWriter` (once: a wrapped stream is returned as it is)."""
    return stream if isinstance(stream, VisibleWriter) else VisibleWriter(stream)


def unfiltered(stream):
    """The stream under a :class:`VisibleWriter` (``stream`` itself when it is not one)."""
    return stream.unfiltered if isinstance(stream, VisibleWriter) else stream
