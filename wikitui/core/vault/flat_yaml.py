"""A fast reader for the flat YAML most frontmatter is written in.

Loading frontmatter with PyYAML costs about 0.15 ms a page even with libyaml (its
constructor is Python), a third of a cold load on a 10,000-page vault. Almost all
frontmatter is a flat mapping of plain scalars and lists of scalars:

    title: Transformer
    tags: [ml, architecture]
    aliases:
      - "Transformers"
    created: 2026-11-20

:func:`load_simple` reads exactly that subset and returns what ``yaml.safe_load``
returns for it; for anything else (nested mappings, block scalars, anchors, comments,
escapes, or a plain scalar PyYAML would read as another type than the ones handled
here) it returns None and the caller uses PyYAML. ``tests/core/test_fastyaml.py``
checks the equivalence on every frontmatter block of the corpora.
"""

from __future__ import annotations

import datetime as _dt
import re

# A key: a letter or ``_``, then word characters, spaces, dots and dashes, and no
# surrounding spaces (``key :`` is refused).
_KEY_NAME = re.compile(r"[A-Za-z_](?:[\w .-]*[\w.-])?")
_ITEM = re.compile(r"( *)- (.*)$")
_DATE = re.compile(r"\d{4}-\d\d-\d\d$")
_INT = re.compile(r"(?:0|[1-9][0-9]*)$")
# Characters that open YAML syntax at the start of a plain scalar.
_SPECIAL_START = set("[]{}&*!|>%@`#,?:-'\"")
# Words and shapes PyYAML (YAML 1.1) would read as something other than a string.
_NOT_STR = re.compile(
    r"(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF"
    r"|[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|[-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?0[xob][0-9a-fA-F_]+|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|<<|=|\d{4}-\d\d?-\d\d?(?:[Tt ].*)?)$"
)


#: A character YAML does not allow in a document (PyYAML's reader refuses it; libyaml fails to encode a
#: lone surrogate with a UnicodeEncodeError, not a YAML error).
NOT_ALLOWED = re.compile("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")
# Line breaks YAML 1.1 knows besides "\n" and "\r" (PyYAML splits lines there; this reader does not).
_OTHER_BREAKS = re.compile("[\x85\u2028\u2029]")
#: The only white space YAML has inside a line. ``str.strip()`` would also strip a no-break space,
#: which YAML keeps as a character of the value.
_BLANK = " \t"

# The plain scalars among _NOT_STR's words: the only ones a scalar starting with a letter can be.
_WORDS = frozenset(
    "null Null NULL true True TRUE false False FALSE yes Yes YES no No NO on On ON off Off OFF".split()
)


class _Unsupported(Exception):
    """The text uses YAML beyond the flat subset."""


def _scalar(raw: str) -> object:
    """A scalar value of the subset; raises _Unsupported for anything else."""
    s = raw.strip(_BLANK)
    if not s:
        raise _Unsupported
    first = s[0]
    if first.isalpha():
        # The common case, a word: no number, date or YAML punctuation starts with a letter.
        if ": " in s or " #" in s or s[-1] == ":" or "\t" in s or s in _WORDS:
            raise _Unsupported
        return s
    if first == "'":
        if len(s) < 2 or s[-1] != "'" or "'" in s[1:-1].replace("''", ""):
            raise _Unsupported
        return s[1:-1].replace("''", "'")
    if first == '"':
        inner = s[1:-1]
        if len(s) < 2 or s[-1] != '"' or '"' in inner or "\\" in inner:
            raise _Unsupported
        return inner
    if first in _SPECIAL_START or ": " in s or " #" in s or s.endswith(":") or "\t" in s:
        raise _Unsupported
    if _DATE.match(s):
        try:
            return _dt.date.fromisoformat(s)
        except ValueError:
            raise _Unsupported from None
    if _INT.match(s):
        return int(s)
    if _NOT_STR.match(s):
        raise _Unsupported
    return s


def _flow_list(raw: str) -> list:
    """``[a, b, "c"]`` with scalar items only."""
    inner = raw.strip(_BLANK)[1:-1]
    if "[" in inner or "]" in inner or "{" in inner or "}" in inner:
        raise _Unsupported
    if not inner.strip(_BLANK):
        return []
    items = inner.split(",")
    if items[-1].strip(_BLANK) == "":
        items.pop()  # a trailing comma is allowed
    return [_scalar(item) for item in items]


def load_simple(text: str) -> dict | None:
    """Parse flat frontmatter YAML; None when it uses anything beyond the flat subset.

    Characters YAML does not allow in a document (control characters, lone
    surrogates) are beyond it too: PyYAML then reports them.
    """
    if NOT_ALLOWED.search(text) or _OTHER_BREAKS.search(text):
        return None
    try:
        return _load(text)
    except _Unsupported:
        return None


def _load(text: str) -> dict:
    data: dict = {}
    lines = text.split("\n")
    i, n = 0, len(lines)
    while i < n:
        line = lines[i].rstrip("\r")
        i += 1
        if not line.strip(_BLANK):
            if "\t" in line:
                raise _Unsupported  # a tab cannot start a YAML token: PyYAML refuses the block
            continue
        if line[0] in " \t#-" or "\t" in line:
            raise _Unsupported
        # ``key: value`` (or ``key:``): the key ends at the first colon, which must end
        # the line or be followed by a space; what _KEY matches, with fewer regex calls.
        key, colon, rest = line.partition(":")
        if not colon or (rest and rest[0] != " "):
            raise _Unsupported
        if not (key.isascii() and key.isidentifier()) and _KEY_NAME.fullmatch(key) is None:
            raise _Unsupported
        if key in data or key in _WORDS:
            raise _Unsupported  # a repeated key, or one PyYAML reads as a bool or None ("yes:", "null:")
        raw = rest[1:]
        if not raw.strip(_BLANK):
            items = []
            while i < n:
                nxt = lines[i].rstrip("\r")
                im = _ITEM.match(nxt)
                if im is None:
                    break  # a blank line or the next key ends the list (an item after a blank line is refused above)
                items.append(_scalar(im.group(2)))
                i += 1
            data[key] = items if items else None
            continue
        raw = raw.rstrip(_BLANK)
        if raw.startswith("["):
            if not raw.endswith("]"):
                raise _Unsupported
            data[key] = _flow_list(raw)
        else:
            data[key] = _scalar(raw)
    return data
