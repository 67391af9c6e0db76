"""CSV, TSV, JSON and JSON Lines as text; large ones sampled, with a note saying so.

Small files come through whole (JSON pretty-printed, so a minified file is readable
line by line). A large file is never read whole: its head and tail are read and its
lines counted in fixed-size blocks, so a 50 MB table costs a scan, not 50 MB of text.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from wikitui.core.vault.formats.conversion import Conversion, failed, finish, human_size

#: Files up to this size come through whole.
WHOLE_BYTES = 1024 * 1024
#: JSON up to this size is parsed and pretty-printed; past it, sampled as text.
FORMAT_JSON_BYTES = 2 * 1024 * 1024
#: Lines kept from the head and the tail of a sampled file.
HEAD_LINES, TAIL_LINES = 200, 20
#: Items kept from a long top-level JSON array.
JSON_ITEMS = 100
#: Characters kept from a large file that is one line.
CHARS_OF_LONG_LINE = 64 * 1024
_BLOCK = 1024 * 1024


def _decode(data: bytes) -> tuple[str, str | None]:
    """Bytes as text; spreadsheets export Windows-1252 as often as UTF-8."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        if exc.start >= len(data) - 3:  # a character cut at the end of a sample
            return data[: exc.start].decode("utf-8"), None
        return data.decode("cp1252", "replace"), "not UTF-8: read as Windows-1252"


def _count_lines(fh, size: int) -> int:
    fh.seek(0)
    count = 0
    while block := fh.read(_BLOCK):
        count += block.count(b"\n")
    return count + (1 if size and not _ends_with_newline(fh, size) else 0)


def _ends_with_newline(fh, size: int) -> bool:
    fh.seek(size - 1)
    return fh.read(1) == b"\n"


def sample_lines(path: Path, kind: str, what: str = "lines") -> Conversion:
    """A line-oriented file: whole when small, else its first and last lines with a note."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            if size <= WHOLE_BYTES:
                text, note = _decode(fh.read())
                return finish(kind, text, notes=[note] if note else [])
            head, note = _decode(fh.read(WHOLE_BYTES))
            parts = head.split("\n")
            if len(parts) == 1:  # one huge line (minified JSON): its start is all that can be shown
                return finish(kind, head[:CHARS_OF_LONG_LINE], notes=[
                    f"sampled: the first {CHARS_OF_LONG_LINE:,} characters of {human_size(size)} on one line"])
            head_lines = parts[: min(HEAD_LINES, len(parts) - 1)]  # the last part may be cut mid-line
            fh.seek(max(0, size - 64 * 1024))
            tail, _ = _decode(fh.read())
            tail_lines = [line for line in tail.split("\n")[1:] if line][-TAIL_LINES:]
            total = _count_lines(fh, size)
    except OSError as exc:
        return failed(kind, f"{path.name} could not be read: {exc.strerror or exc}", cacheable=False)
    left_out = max(0, total - len(head_lines) - len(tail_lines))
    notes = [f"sampled: the first {len(head_lines)} and the last {len(tail_lines)} of {total:,} {what} "
             f"({human_size(size)}); search the file for the rest"]
    if note:
        notes.append(note)
    body = "\n".join([*head_lines, f"… ({left_out:,} {what} left out) …", *tail_lines])
    return finish(kind, body, notes=notes)


def convert_csv(path: Path) -> Conversion:
    """A CSV or TSV file as text (rows as lines), sampled when large."""
    return sample_lines(path, "csv", "rows")


def convert_json(path: Path) -> Conversion:
    """A JSON file pretty-printed when it parses and is small enough, else as text (sampled when large)."""
    try:
        size = os.path.getsize(path)
        if size > FORMAT_JSON_BYTES:
            return sample_lines(path, "json")
        with open(path, "rb") as fh:
            text, note = _decode(fh.read())
    except OSError as exc:
        return failed("json", f"{path.name} could not be read: {exc.strerror or exc}", cacheable=False)
    notes = [note] if note else []
    try:
        data = json.loads(text)
    except RecursionError:
        notes.append("nested too deeply to format: shown as it is")
        return finish("json", text, notes=notes)
    except ValueError as exc:
        notes.append(f"not valid JSON ({exc}): shown as it is")
        return finish("json", text, notes=notes)
    if isinstance(data, list) and len(data) > JSON_ITEMS:
        notes.append(f"sampled: the first {JSON_ITEMS} of {len(data):,} items of the top-level list")
        data = data[:JSON_ITEMS]
    try:
        pretty = json.dumps(data, indent=2, ensure_ascii=False)
    except (RecursionError, ValueError):
        return finish("json", text, notes=[*notes, "nested too deeply to format: shown as it is"])
    return finish("json", pretty, notes=notes)


def convert_json_lines(path: Path) -> Conversion:
    """JSON Lines (``.jsonl``, ``.ndjson``): one record per line, sampled when large."""
    return sample_lines(path, "jsonl", "records")
