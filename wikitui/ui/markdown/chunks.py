"""A page's text made safe to parse, and cut into chunks that parse the same alone as together.

Control characters would corrupt the terminal and megabyte-long lines would freeze the
parse, so the text is cleaned (controls and invisible format characters shown as ``␛``,
``\\x9b``, ``⟨U+202E⟩``: :func:`~wikitui.core.vault.visible_text.visible`) and over-long
lines are cut first (line numbers stay those of the file). The body is then cut at blank lines into chunks of a
few dozen lines; each is parsed when it is first laid out (see
:class:`~wikitui.ui.markdown.document.PageDocument`).
"""

from __future__ import annotations

import re
from typing import Iterator

from wikitui.core.vault.visible_text import visible

#: Source lines per chunk; a chunk parses in a few milliseconds.
CHUNK_LINES = 40
#: Characters per chunk, for pages of very long lines.
CHUNK_CHARS = 8_000
#: Paragraphs of prose longer than this are cut into chunks too (no ordinary page has one).
LONG_PARAGRAPH_CHARS = 16_000
#: Lines longer than this are cut before parsing: a megabyte-long line would freeze the parse.
MAX_LINE_CHARS = 10_000
#: Characters cleaned and split at a time (then up to the next newline). Each step is a
#: short C call that holds the interpreter lock: a worker preparing megabytes of converted
#: text lets the UI thread draw between steps (one call over 4 MB held it for ~40 ms).
SLICE_CHARS = 128 * 1024

_FENCE = re.compile(r"^ *(`{3,}|~{3,})")
_BULLET = re.compile(r"[-+*] \S")
_ORDERED = re.compile(r"\d{1,9}[.)](?:[ \t]|$)")
_QUOTE_MARKS = re.compile(r"(?:> ?)*")
#: What, after its quote markers, makes a line more than paragraph text: indentation,
#: a heading, list item, rule or setext underline, a fence, HTML, a table row or its
#: delimiter row, a link reference definition, a comment or a math block. Cutting
#: before such a line could change what it parses as; before any other line of a
#: paragraph, only an inline span running across the cut can come out differently.
_BLOCK_START = re.compile(
    r"[ \t>]|#{1,6}(?:[ \t]|$)|[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|[-*_=](?:[ \t]*[-*_=])*[ \t]*$"
    r"|:?-+:?[ \t]*(?:\||$)|`{3}|~{3}|[<|]|\[[^\]]*\]:|%%|\$\$"
)
#: A line that is blank but for quote markers (a paragraph break inside a quote).
_QUOTE_BLANK = re.compile(r"(?:> ?)*[ \t]*$")


def clean_text(text: str) -> str:
    """The text as it is parsed: CRLF as LF, control and invisible characters shown visibly (same lines).

    A page may hold ``ESC [ 2 J`` or a bidi override (a clipped page, a human's paste): they
    are drawn as ``␛[2J`` and ``⟨U+202E⟩``, never sent to the terminal (DESIGN §8).
    """
    return visible(text)



def render_lines(text: str) -> tuple[list[str], list[int]]:
    """The lines of ``text`` as they are parsed, and the 0-based indices of those cut short.

    A line longer than :data:`MAX_LINE_CHARS` keeps its first characters and ends with ``…``.
    The text is cleaned and split :data:`SLICE_CHARS` at a time (see there).
    """
    lines: list[str] = []
    start, size = 0, len(text)
    while True:
        cut = text.find("\n", start + SLICE_CHARS) if size - start > SLICE_CHARS else -1
        if cut < 0:
            lines.extend(clean_text(text[start:]).split("\n"))
            break
        # Up to and with a newline: a CRLF is never cut in two; the split's last, empty item is the next slice's.
        lines.extend(clean_text(text[start : cut + 1]).split("\n")[:-1])
        start = cut + 1
    long_lines = [i for i, line in enumerate(lines) if len(line) > MAX_LINE_CHARS]
    for i in long_lines:
        lines[i] = lines[i][:MAX_LINE_CHARS] + " …"
    return lines, long_lines


def split_chunks(
    lines: list[str], first: int, size: int | None = None, max_chars: int | None = None
) -> Iterator[tuple[int, int, bool]]:
    """Cut ``lines[first:]`` into ``(start, end, joined)`` ranges that parse the same alone as together.

    A cut is made outside code fences, ``$$`` math blocks, HTML comments and Obsidian ``%%`` comments, before
    a line at column 0 that follows a blank line (no CommonMark block continues there),
    or before a one-line bullet item that follows another one (long lists, such as an
    index, would otherwise make one huge chunk); never before a numbered item, whose
    number depends on the items before it. ``joined`` says the range continues the
    previous range's list, so no blank line is put between them.

    A paragraph of prose lines (same quote markers, none indented or starting a block)
    longer than :data:`LONG_PARAGRAPH_CHARS` is cut too, in ``joined`` ranges: parsed
    and wrapped in one go, a megabyte-long paragraph would freeze the view. A cut falls
    between two lines, where a line break is drawn anyway (a single newline is a break);
    only an emphasis or code span across a cut shows its markers. Ordinary pages have
    no such paragraphs.
    """
    size = size or CHUNK_LINES
    max_chars = max_chars or CHUNK_CHARS
    start = first
    chars = 0
    fence = ""
    html_comment = False
    obsidian_comment = False
    prev = ""
    joined = False
    para_start, para_chars = first, 0  # the current paragraph (lines since a blank one)
    prose: str | None = None  # its quote markers, once it is long, while it is all prose
    for i in range(first, len(lines)):
        line = lines[i]
        if fence:
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = ""
            chars += len(line)
            prev = line or " "  # a blank line inside a fence is no place to cut after
            continue
        if (
            (i - start >= size or chars >= max_chars)
            and not html_comment
            and not obsidian_comment
            and not _ORDERED.match(line)
        ):
            if not prev.strip() and line[:1] not in ("", " ", "\t"):
                yield start, i, joined
                start, chars, joined = i, 0, False
            elif _BULLET.match(line) and _BULLET.match(prev):
                yield start, i, joined
                start, chars, joined = i, 0, True
            elif (
                para_chars >= LONG_PARAGRAPH_CHARS
                and prose is not None
                and _prose_marks(line) == prose
                and not prev.endswith("\\")  # a hard line break, not a backslash at the end
                # and the next line (a setext underline or a table delimiter row makes one block)
                and (i + 1 == len(lines) or _prose_marks(lines[i + 1]) == prose)
            ):
                yield start, i, joined
                start, chars, joined = i, 0, True
        if not line.strip() or (line[0] == ">" and _QUOTE_BLANK.match(line)):
            para_start, para_chars, prose = i + 1, 0, None
        else:
            if para_chars < LONG_PARAGRAPH_CHARS <= para_chars + len(line):
                prose = _common_prose_marks(lines, para_start, i + 1)
            elif prose is not None and _prose_marks(line) != prose:
                prose = None
            para_chars += len(line)
        chars += len(line)
        prev = line
        m = _FENCE.match(line)
        if m:
            fence = m.group(1)
            if fence[0] == "`" and "`" in line[m.end() :]:
                fence = ""  # an inline code span, not a fence
            continue
        if line.strip() == "$$":  # a math block may hold blank lines too
            fence = "$$"
            continue
        if html_comment:
            html_comment = "-->" not in line or "<!--" in line[line.rfind("-->") :]
        elif "<!--" in line:
            html_comment = "-->" not in line[line.rfind("<!--") :]
        if "%%" in line and line.count("%%") % 2:
            obsidian_comment = not obsidian_comment
    yield start, len(lines), joined


def _prose_marks(line: str) -> str | None:
    """The quote markers (without spaces) before a line of prose, or None when it is no prose line."""
    found = _QUOTE_MARKS.match(line)
    assert found is not None  # the pattern matches the empty string
    marks = found.end()
    if marks == len(line) or _BLOCK_START.match(line, marks):
        return None
    return line[:marks].replace(" ", "")


def _common_prose_marks(lines: list[str], start: int, end: int) -> str | None:
    """The quote markers of ``lines[start:end]`` when all are prose lines with the same ones, else None.

    Only a paragraph that grows long is checked, so ordinary pages pay nothing for it.
    """
    marks = {_prose_marks(lines[k]) for k in range(start, end)}
    return marks.pop() if len(marks) == 1 else None

