"""Frontmatter edits that keep everything else byte for byte.

python-frontmatter's writer re-sorts keys, restyles lists and drops quotes and
comments (DEPENDENCIES.md), so wikitui never writes frontmatter with it. Edits go
through ruamel.yaml's round-trip mode instead: key order, quoting, flow or block
style and comments survive, and a one-key edit changes one line.

A few files use layouts ruamel cannot reproduce exactly (odd indentation, say).
For those, :func:`set_frontmatter_keys` falls back to replacing or appending the
top-level ``key: value`` line itself, so other lines are still left alone.

Only edits use ruamel: reading a value (:func:`frontmatter_value`) goes through the
one reader every page is read with (:func:`~wikitui.core.vault.page.load_frontmatter`),
so what an edit compares is what the page says everywhere else.
"""

from __future__ import annotations

import datetime as _dt
import io
import re
from typing import Any

from wikitui.core.vault.page import ALIASES_REFUSED, load_frontmatter, split_frontmatter, uses_yaml_aliases

_BOM = "\ufeff"
_SEQ_ITEM = re.compile(r"^( *)- ", re.MULTILINE)
_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:", re.MULTILINE)
#: Deepest bracket nesting a frontmatter edit accepts.
_MAX_DEPTH = 100


class FrontmatterEditError(ValueError):
    """The frontmatter cannot be edited (it does not parse, or is not a mapping)."""


def _yaml(fm: str):
    """A round-trip YAML instance whose indentation matches ``fm``'s block sequences."""
    from ruamel.yaml import YAML  # deferred: only writes need it

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 1 << 20  # never re-wrap a long summary
    # ``key:\n- a`` (offset 0) and ``key:\n  - a`` (offset 2) are both common.
    offset = 0
    for m in _SEQ_ITEM.finditer(fm):
        if m.group(1):
            offset = len(m.group(1))
            break
    yaml.indent(mapping=2, sequence=offset + 2, offset=offset)
    return yaml


def _split(text: str) -> tuple[str, str, str, str, str] | None:
    """Split ``text`` into (bom, opening line, frontmatter, closing line and body, newline).

    The frontmatter is returned with ``\\n`` line endings; None when there is no block.
    """
    bom = _BOM if text.startswith(_BOM) else ""
    body_text = text[len(bom):]
    fm, _body, _line = split_frontmatter(body_text)
    if fm is None:
        return None
    newline = "\r\n" if body_text.split("\n", 1)[0].endswith("\r") else "\n"
    opening = body_text[: body_text.index("\n") + 1]
    rest = body_text[len(opening) + len(fm):]
    return bom, opening, fm.replace("\r\n", "\n"), rest, newline


def _too_deep(fm: str) -> bool:
    """Whether brackets nest deeper than :data:`_MAX_DEPTH` (ruamel recurses once per level)."""
    if fm.count("[") + fm.count("{") <= _MAX_DEPTH:
        return False
    depth = 0
    for ch in fm:
        if ch in "[{":
            depth += 1
            if depth > _MAX_DEPTH:
                return True
        elif ch in "]}" and depth:
            depth -= 1
    return False


def _load(yaml, fm: str):
    from ruamel.yaml.error import YAMLError

    if _too_deep(fm):  # hostile input is data: no recursion error, no seconds spent
        raise FrontmatterEditError(f"frontmatter nests deeper than {_MAX_DEPTH} levels; it is not edited")
    if uses_yaml_aliases(fm):  # not expanded anywhere (DESIGN §8 "Bounded work")
        raise FrontmatterEditError(f"frontmatter does not parse: {ALIASES_REFUSED}")
    try:
        data = yaml.load(fm) if fm.strip() else None
    except (YAMLError, RecursionError, ValueError) as exc:
        text = str(exc).strip()
        first = text.splitlines()[0] if text else "YAML error"
        raise FrontmatterEditError(f"frontmatter does not parse: {first}") from exc
    if data is None:
        from ruamel.yaml.comments import CommentedMap

        data = CommentedMap()
    if not isinstance(data, dict):
        raise FrontmatterEditError("frontmatter is not a mapping of keys to values")
    return data


def _dump(yaml, data) -> str:
    buf = io.StringIO()
    yaml.dump(data, buf)
    return buf.getvalue()


def roundtrip_frontmatter(text: str) -> str:
    """Load and dump a page's frontmatter with ruamel.yaml, changing nothing.

    The page text outside the block is kept as is. It shows what ruamel.yaml
    makes of a block: real pages almost always come back unchanged, but not all
    (``key: null`` comes back as ``key:``, odd indentation is redone), which is why
    :func:`set_frontmatter_keys` edits lines itself when the round trip is not exact.

    Raises:
        FrontmatterEditError: The frontmatter does not parse or is not a mapping.
    """
    parts = _split(text)
    if parts is None:
        return text
    bom, opening, fm, rest, newline = parts
    yaml = _yaml(fm)
    dumped = _dump(yaml, _load(yaml, fm)) if fm.strip() else fm
    return bom + opening + dumped.replace("\n", newline) + rest


_PLAIN_SAFE = re.compile(r"[\w][\w .,/()'-]*")
#: Plain scalars YAML reads as something other than a string: dates, booleans, null, numbers.
_NOT_A_STRING = re.compile(
    r"\d{4}-\d\d-\d\d.*|true|false|yes|no|on|off|y|n|null|~"
    r"|[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|0x[0-9a-f_]+|0o[0-7_]+|[-+]?\.inf|\.nan",
    re.IGNORECASE,
)
_LINE = re.compile(r"^(?P<head>[^:]+:[ \t]*)(?P<value>\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*'|.*?)(?P<tail>[ \t]+#.*)?$")


def _format_scalar(value: Any, quote: str = "") -> str:
    """A YAML scalar for the line-level fallback, in the quoting style ``quote`` (``'``, ``"`` or none) if given."""
    import json

    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    s = str(value)
    if quote == "'" and "\n" not in s:
        return "'" + s.replace("'", "''") + "'"
    if quote != '"' and _PLAIN_SAFE.fullmatch(s) and not _NOT_A_STRING.fullmatch(s) and not s.endswith(" "):
        return s
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def _line_edit(fm: str, updates: dict[str, Any]) -> str | None:
    """Replace or append top-level one-line ``key: value`` entries; None when a key spans lines.

    The line keeps its spacing, its value's quoting style and its trailing comment.
    """
    lines = fm.split("\n")
    trailing = lines[-1] == ""
    if trailing:
        lines.pop()
    for key, value in updates.items():
        if not isinstance(value, (str, int, float, bool, _dt.date, _dt.datetime)):
            return None
        hits = [i for i, ln in enumerate(lines) if (m := _TOP_KEY.match(ln)) and m.group(1) == key]
        if not hits:
            lines.append(f"{key}: {_format_scalar(value)}")
            continue
        i = hits[0]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if nxt[:1] in (" ", "\t", "-") or lines[i].rstrip().endswith((":", "|", ">", "|-", ">-")):
            return None  # a block value over several lines: leave it to ruamel
        m = _LINE.match(lines[i])
        if m is None or m.group("value").startswith(("[", "{", "|", ">", "&", "*", "!")):
            return None
        old = m.group("value")
        quote = old[0] if old[:1] in ("'", '"') else ""
        lines[i] = m.group("head") + _format_scalar(value, quote) + (m.group("tail") or "")
    return "\n".join(lines) + ("\n" if trailing else "")


def _keep_style(old: Any, new: Any) -> Any:
    """Give a replacement value the quoting style of the value it replaces."""
    from ruamel.yaml.scalarstring import ScalarString

    if isinstance(old, ScalarString) and isinstance(new, str) and not isinstance(new, ScalarString):
        return type(old)(new)
    return new


_MISSING = object()


def _same(old: Any, new: Any) -> bool:
    """Whether a key already holds ``new`` (``01234`` holds 1234; ``true`` does not hold 1)."""
    if old is _MISSING:
        return False
    try:
        return bool(old == new) and isinstance(old, bool) == isinstance(new, bool) and \
            isinstance(old, str) == isinstance(new, str)
    except Exception:
        return False


def _reads_as(text: str, key: str, value: Any) -> bool:
    """Whether the page reader already reads ``value`` for ``key`` (same type and value: ``1`` is not ``True``)."""
    if key not in text:
        return False
    have = frontmatter_value(text, key)
    return have is not None and type(have) is type(value) and have == value


def set_frontmatter_keys(text: str, updates: dict[str, Any]) -> str:
    """Set top-level frontmatter keys, leaving every other byte of the page alone.

    Existing keys keep their position and quoting style; new keys are appended at
    the end of the block. A page without frontmatter gets a new block. A UTF-8 BOM
    and CRLF line endings are kept.

    Args:
        text: The page's full text.
        updates: Keys to set and their new values (str, numbers, dates, lists...).

    Returns:
        The page's new text.

    Raises:
        FrontmatterEditError: The frontmatter does not parse or is not a mapping.
    """
    if not updates:
        return text  # a no-op edit keeps every byte, whatever the block holds
    parts = _split(text)
    if parts is None:
        bom = _BOM if text.startswith(_BOM) else ""
        newline = "\r\n" if "\r\n" in text else "\n"
        from ruamel.yaml import YAML

        yaml = YAML(typ="rt")
        yaml.width = 1 << 20
        block = _dump(yaml, dict(updates)).replace("\n", newline)
        return bom + "---" + newline + block + "---" + newline + text[len(bom):]
    bom, opening, fm, rest, newline = parts
    # A key set to the value the page reader already reads there (`01234`, an octal int in YAML 1.1) is no change.
    updates = {k: v for k, v in updates.items() if not _reads_as(text, k, v)}
    if not updates:
        return text
    yaml = _yaml(fm)
    data = _load(yaml, fm)
    updates = {k: v for k, v in updates.items() if not _same(data.get(k, _MISSING), v)}
    if not updates:
        return text  # every key already holds its value: nothing to write, however it is written
    faithful = (_dump(yaml, data) if fm.strip() else fm) == fm
    if not faithful:
        edited = _line_edit(fm, updates)
        if edited is not None:
            return bom + opening + edited.replace("\n", newline) + rest
    for key, value in updates.items():
        data[key] = _keep_style(data.get(key), value)
    dumped = _dump(yaml, data)
    return bom + opening + dumped.replace("\n", newline) + rest


def frontmatter_value(text: str, key: str) -> Any:
    """A top-level frontmatter value, as the page reader reads it (None when absent or when the block does not parse).

    Read with :func:`~wikitui.core.vault.page.load_frontmatter` (the flat reader, else PyYAML), not ruamel: a
    value is the same here as in the graph, the lint and the search, and a page whose block never names the key
    costs a substring test.
    """
    parts = _split(text)
    if parts is None:
        return None
    fm = parts[2]
    if key not in fm or _too_deep(fm):
        return None
    try:
        return load_frontmatter(fm).get(key)
    except Exception:  # noqa: BLE001 - yaml.YAMLError (PyYAML is imported only on this path): the block does not parse
        return None
