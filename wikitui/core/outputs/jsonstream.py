"""Writing JSON as it is produced, for outputs that can be large (``lint --json``, ``links --json``).

``json.dumps(data, indent=2)`` builds the whole text in memory, from a structure
that must itself be whole: a page with 450,000 links made ``links --json`` peak
above a gigabyte. :func:`write_json` writes the same text (byte for byte what
``json.dumps(data, ensure_ascii=False, indent=2)`` gives, but for DEL, C1 and invisible
format characters, escaped as ``\\uXXXX`` so no terminal obeys them: the same data) piece
by piece, and takes generators where lists would be, so a long list is never held at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from json.encoder import encode_basestring  # what json.dumps uses with ensure_ascii=False
from typing import IO, cast

from wikitui.core.vault.visible_text import json_visible

_INDENT = "  "
#: Characters gathered before each write.
_CHUNK = 1 << 16


def write_json(out: IO[str], data: object) -> None:
    """Write ``data`` to ``out`` as indented JSON, then a newline.

    Dicts, lists, tuples and any other iterables (generators: consumed once) are
    written as they come.

    Raises:
        TypeError: a value JSON has no form for (as :func:`json.dumps`).
    """
    buf: list[str] = []
    size = 0

    def emit(piece: str) -> None:
        nonlocal size
        buf.append(piece)
        size += len(piece)
        if size >= _CHUNK:
            out.write("".join(buf))
            buf.clear()
            size = 0

    _write(data, 0, emit)
    buf.append("\n")
    out.write("".join(buf))


def _scalar(value: object) -> str | None:
    """The JSON of a scalar, as json.dumps writes it; None for a container."""
    if isinstance(value, str):
        return json_visible(encode_basestring(value))
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return json.dumps(value)
    return None


def _write(value: object, level: int, emit) -> None:
    text = _scalar(value)
    if text is not None:
        emit(text)
        return
    inner = "\n" + _INDENT * (level + 1)
    if isinstance(value, dict):
        items = [(json_visible(encode_basestring(str(k))), v) for k, v in value.items()]
        flat = [_scalar(v) for _k, v in items]
        if items and None not in flat:  # the common row of scalars, in one piece
            emit("{" + ",".join(inner + k + ": " + v for (k, _), v in zip(items, cast("list[str]", flat))) + "\n" + _INDENT * level + "}")
            return
        pairs = ((k + ": ", v) for k, v in items)
        opening, closing = "{", "}"
    elif isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray)):
        pairs = (("", v) for v in value)
        opening, closing = "[", "]"
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
    first = True
    for prefix, item in pairs:
        emit((opening if first else ",") + inner + prefix)
        first = False
        _write(item, level + 1, emit)
    emit(opening + closing if first else "\n" + _INDENT * level + closing)
