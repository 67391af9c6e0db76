"""Hostile tool arguments are data: decoding them never raises anything but ToolArgError (DESIGN §8).

A model (or a source that talks it into it) can send arguments built to break the
parser or what comes after it: 100,000 nested brackets (``json.loads`` recurses until
RecursionError), a lone surrogate such as ``"\\ud800"`` (valid JSON, but no UTF-8 can
encode it: the pending save and the transcript write fail), NUL characters (a page
written with them reads as a binary file), or strings of many megabytes. Each becomes
an error result the model reads; nothing reaches the changeset or the disk.

:func:`decode_arguments` is the one door: it bounds the size and the nesting depth
*before* parsing, and :func:`check_strings` then refuses what no page or path may hold.
:func:`display` makes any model-sent string safe to show in a chat line or a log.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: Longest arguments text accepted (a whole page with its frontmatter fits many times over).
MAX_ARGUMENTS_CHARS = 4_000_000
#: Deepest nesting of lists and objects accepted (the tools need 3: {"edits": [{"old": ...}]}).
MAX_DEPTH = 32
#: Longest value per argument name; other strings get DEFAULT_LIMIT.
LIMITS = {"content": 1_000_000, "new": 1_000_000, "old": 1_000_000, "path": 1024, "new_path": 1024,
          "query": 1000, "reason": 2000, "folder": 1024, "type": 200, "scope": 20}
DEFAULT_LIMIT = 10_000

_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSHOWABLE = re.compile("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BLANKS = re.compile("[\t\n\r]+")
#: A JSON string (skipped whole) or a bracket.
_STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')


class ToolArgError(Exception):
    """Arguments the tool cannot take; the message is returned to the model."""


def _depth_exceeds(text: str, limit: int) -> bool:
    """Whether brackets outside JSON strings nest deeper than ``limit`` (a linear scan, no recursion).

    The regular expression skips each string in one C-speed step, so a megabyte of page
    text costs about as much as a few brackets.
    """
    depth = 0
    for m in _STRUCTURE.finditer(text):
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def decode_arguments(arguments_json: str | None) -> dict:
    """The arguments of a tool call as a dict of named arguments.

    Raises:
        ToolArgError: too long, nested too deeply, not JSON, or not a JSON object; never
            any other exception, whatever the text.
    """
    text = arguments_json if isinstance(arguments_json, str) else ""
    if len(text) > MAX_ARGUMENTS_CHARS:
        raise ToolArgError(f"the arguments are {len(text):,} characters long; at most {MAX_ARGUMENTS_CHARS:,} "
                           "are accepted: propose smaller pieces")
    text = text.strip() or "{}"
    if ("[" in text or "{" in text) and _depth_exceeds(text, MAX_DEPTH):
        raise ToolArgError(f"the arguments nest lists or objects more than {MAX_DEPTH} levels deep; "
                           "send one flat JSON object of named arguments")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ToolArgError(f"the arguments are not valid JSON ({exc.msg} at character {exc.pos}); "
                           "send one JSON object") from None
    except (ValueError, RecursionError, MemoryError) as exc:  # int too long, nesting the scan missed...
        raise ToolArgError(f"the arguments cannot be read ({type(exc).__name__}); send one JSON object") from None
    if not isinstance(value, dict):
        raise ToolArgError("the arguments must be a JSON object of named arguments")
    return value


def decode_value(text: str, where: str) -> Any:
    """A JSON value sent inside a string (a double-encoded list), bounded and checked like the arguments.

    Raises:
        ToolArgError: it nests too deeply, does not parse, or holds a string no page may hold.
    """
    if _depth_exceeds(text, MAX_DEPTH):
        raise ToolArgError(f"{display(where)} nests lists or objects more than {MAX_DEPTH} levels deep")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError, MemoryError):
        raise ToolArgError(f"{display(where)} must be a list, not a string that is not JSON") from None
    _check_value(value, where, LIMITS.get(where.rsplit(".", 1)[-1], DEFAULT_LIMIT))
    return value


def check_strings(args: dict) -> None:
    """Refuse strings no page, path or query may hold: lone surrogates, NUL, and oversized values.

    Raises:
        ToolArgError: naming the argument, what is wrong and where.
    """
    for key, value in args.items():
        _check_value(value, str(key), LIMITS.get(str(key), DEFAULT_LIMIT))


def _check_value(value: Any, where: str, limit: int) -> None:
    if isinstance(value, str):
        _check_text(value, where, limit)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_value(item, f"{where}[{i}]", limit)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(str(key), f"a key of {where}", 200)
            _check_value(item, f"{where}.{key}", LIMITS.get(str(key), limit))


def _check_text(text: str, where: str, limit: int) -> None:
    if len(text) > limit:
        raise ToolArgError(f"{display(where)} is {len(text):,} characters long; at most {limit:,} are accepted")
    m = _SURROGATE.search(text)
    if m:
        raise ToolArgError(f"{display(where)} holds a lone surrogate (U+{ord(m.group()):04X}) at character "
                           f"{m.start()}: that is not text; send valid Unicode")
    nul = text.find("\x00")
    if nul != -1:
        raise ToolArgError(f"{display(where)} holds a NUL character at character {nul}: pages and paths are "
                           "text; leave it out")


def display(text: Any, limit: int = 200) -> str:
    """``text`` safe for one chat or log line: no surrogates or control characters, at most ``limit`` characters."""
    s = text if isinstance(text, str) else str(text)
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return _UNSHOWABLE.sub("\ufffd", _BLANKS.sub(" ", s))


def encodable(text: str) -> str:
    """``text`` with lone surrogates replaced, so it encodes as UTF-8 (for answers and transcripts)."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def valid_unicode(value: Any) -> Any:
    """``value`` (a request's messages: dicts, lists, strings) with every lone surrogate replaced by U+FFFD.

    What holds none is returned as it is (one regular-expression scan per string); only
    the containers on the way to a string that holds one are copied.
    """
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, list):
        items = [valid_unicode(item) for item in value]
        return value if all(a is b for a, b in zip(items, value)) else items
    if isinstance(value, dict):
        pairs = {valid_unicode(k) if isinstance(k, str) else k: valid_unicode(v) for k, v in value.items()}
        same = all(a is b for a, b in zip(pairs, value)) and all(pairs[k] is v for k, v in zip(pairs, value.values()))
        return value if same else pairs
    if isinstance(value, tuple):
        return tuple(valid_unicode(item) for item in value)
    return value
