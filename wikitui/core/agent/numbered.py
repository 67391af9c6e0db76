"""Text as the ``read`` tool shows it: numbered lines, paged, within the turn's result budget.

One function, shared by pages, text sources and the converted text of PDFs, web
pages and documents, so every file the model reads pages the same way and the
``offset`` a note suggests always works.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Longest line shown whole.
MAX_LINE = 2000
#: Most lines one ``read`` returns.
MAX_READ_LINES = 400


def numbered(head: str, text: str, offset: int, limit: int, budget: int, *, notes: Sequence[str] = (),
             top: Sequence[str] = ()) -> str:
    """``text``'s lines ``offset+1``.. as ``  N<tab>line`` rows, under a header line.

    Args:
        head: What the file is (``raw/x.pdf (raw source, read-only)``); the line range follows it.
        text: The whole text.
        offset: Lines to skip.
        limit: Lines wanted (at most :data:`MAX_READ_LINES`).
        budget: Characters the rows may take (the rows stop early, with a note, past it).
        notes: Lines put after the rows (before the "call read with offset" note).
        top: Lines put right after the header (what the reader must know first).
    """
    lines = text.splitlines()
    total = len(lines)
    offset = max(0, offset)
    limit = max(1, min(limit, MAX_READ_LINES))
    if total == 0:
        return "\n".join([f"{head}: empty file", *top])
    if offset >= total:
        return f"{head}: only {total} lines; offset {offset} is past the end"
    out: list[str] = []
    used = 0
    end = offset
    for n in range(offset, min(total, offset + limit)):
        line = lines[n]
        if len(line) > MAX_LINE:
            line = line[:MAX_LINE] + f" …[line cut: {len(line) - MAX_LINE} more characters]"
        row = f"{n + 1:>5}\t{line}"
        if used + len(row) > budget and out:
            break
        out.append(row)
        used += len(row) + 1
        end = n + 1
    status = f"lines {offset + 1}-{end} of {total}"
    tail = list(notes)
    if end < total:
        tail.append(f"[{status}; call read with offset={end} for more]")
    return "\n".join([f"{head} {status}", *top, *out, *tail])
