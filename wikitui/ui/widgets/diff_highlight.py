"""A hunk of a file change highlighted for the review: diff colours, line numbers, changed words.

Lines are highlighted with pygments' ``diff`` lexer (token styles name theme variables,
so any theme colours them), numbered from the ``@@`` header, and where a run of removed
lines is followed by as many added ones, the words that changed are marked. The diff
view (:class:`~wikitui.ui.widgets.diff_view.DiffView`) lays the lines out in rows.
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache
from typing import Any

from textual.content import Content, Span

from wikitui.core.vault.visible_text import visible

#: One line of a highlighted hunk: ``(kind, content without the sign, old no., new no.)``.
HunkLine = tuple[str, Content, "int | None", "int | None"]

_HEADER_RE = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_WORD_RE = re.compile(r"\s+|\w+|[^\w\s]")


def highlight_hunk(hunk: Any, added: str, removed: str) -> list[HunkLine]:
    """Highlight one hunk: ``(kind, content without the sign, old no., new no.)`` per line.

    The first line is the ``@@`` header (kind ``"header"``); the kinds of the others
    are the diff's signs: ``" "``, ``"+"``, ``"-"`` and ``"\\"`` (no newline at end of file).

    Args:
        hunk: The hunk (``header``, ``lines``, optionally ``display_lines`` and ``kind``).
        added: The theme variable added lines are tinted with (``success``).
        removed: The theme variable removed lines are tinted with (``error``).
    """
    styles = _token_styles(added, removed)
    # An empty context line may come without its leading space: give it back.
    shown = getattr(hunk, "display_lines", None)
    if shown is None:  # a plain hunk: lines may still carry their endings
        shown = [line.rstrip("\n").rstrip("\r") for line in hunk.lines]
    # Controls and invisible characters drawn as what they are (␛, \x9b, ⟨U+202E⟩), never sent (DESIGN §8).
    raw_lines = [visible(line).expandtabs(4) or " " for line in shown]
    text = visible(hunk.header.rstrip("\n")) + "\n" + "".join(line + "\n" for line in raw_lines)
    spans: list[Span] = []
    for start, token_type, value in _lexer().get_tokens_unprocessed(text):
        while token_type not in styles and token_type.parent is not None:
            token_type = token_type.parent
        if token_type in styles:
            spans.append(Span(start, start + len(value), styles[token_type]))
    content = Content(text, spans)
    pieces = content.split("\n")
    match = _HEADER_RE.match(hunk.header)
    old_no, new_no = (int(match.group(1)), int(match.group(2))) if match else (None, None)
    header = pieces[0]
    if getattr(hunk, "kind", "text") != "text":  # a rename, or an empty file made or removed
        header = Content.styled(visible(hunk.header), "bold $text-primary")
    lines: list[HunkLine] = [("header", header, None, None)]
    for raw, piece in zip(raw_lines, pieces[1:]):
        kind = raw[0] if raw[0] in "+-\\" else " "
        old = new = None
        if kind == " " and old_no is not None and new_no is not None:  # (both or neither)
            old, new = old_no, new_no
            old_no, new_no = old_no + 1, new_no + 1
        elif kind == "-" and old_no is not None:
            old, old_no = old_no, old_no + 1
        elif kind == "+" and new_no is not None:
            new, new_no = new_no, new_no + 1
        body = piece[1:] if kind != "\\" else piece
        lines.append((kind, body, old, new))
    _mark_words(lines, added, removed)
    return lines


def _token_styles(added: str, removed: str) -> dict:
    """The style of each pygments diff token type, naming the theme's colour variables."""
    from pygments.token import Generic

    return {
        Generic.Inserted: f"on ${added} 12%",
        Generic.Deleted: f"on ${removed} 12%",
        Generic.Subheading: "$text-accent",
        Generic.Heading: "bold",
    }


def _mark_words(lines: list[HunkLine], added: str, removed: str) -> None:
    """Mark changed words where a run of removed lines is followed by as many added ones."""
    index = 0
    while index < len(lines):
        if lines[index][0] != "-":
            index += 1
            continue
        start = index
        while index < len(lines) and lines[index][0] == "-":
            index += 1
        mid = index
        while index < len(lines) and lines[index][0] == "+":
            index += 1
        if index - mid != mid - start:
            continue
        for i, j in zip(range(start, mid), range(mid, index)):
            old_spans, new_spans = _word_spans(
                lines[i][1].plain, lines[j][1].plain, f"on ${removed} 35%", f"on ${added} 35%"
            )
            if old_spans:
                kind, content, old, new = lines[i]
                lines[i] = (kind, content.add_spans(old_spans), old, new)
            if new_spans:
                kind, content, old, new = lines[j]
                lines[j] = (kind, content.add_spans(new_spans), old, new)


def _word_spans(old: str, new: str, old_style: str, new_style: str) -> tuple[list[Span], list[Span]]:
    """Spans marking the words that differ between a removed and an added line.

    Neighbouring changes separated only by spaces merge into one span, so a
    rewritten phrase reads as one change. Returns empty lists when the lines share
    too little for a word diff to help (a rewritten line reads better plain).
    """
    a, b = _WORD_RE.findall(old), _WORD_RE.findall(new)
    matcher = difflib.SequenceMatcher(lambda token: token.isspace(), a, b, autojunk=False)
    if matcher.ratio() < 0.5:
        return [], []

    def offsets(tokens: list[str]) -> list[int]:
        positions = [0]
        for token in tokens:
            positions.append(positions[-1] + len(token))
        return positions

    pos_a, pos_b = offsets(a), offsets(b)
    old_ranges: list[list[int]] = []
    new_ranges: list[list[int]] = []

    def add(ranges: list[list[int]], text: str, start: int, end: int) -> None:
        piece = text[start:end]
        if not piece.strip():
            return
        start += len(piece) - len(piece.lstrip())
        end -= len(piece) - len(piece.rstrip())
        if ranges and not text[ranges[-1][1] : start].strip():
            ranges[-1][1] = end  # only spaces between: one change
        else:
            ranges.append([start, end])

    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            add(old_ranges, old, pos_a[i1], pos_a[i2])
            add(new_ranges, new, pos_b[j1], pos_b[j2])
    return (
        [Span(start, end, old_style) for start, end in old_ranges],
        [Span(start, end, new_style) for start, end in new_ranges],
    )


@lru_cache(maxsize=1)
def _lexer():
    """The pygments diff lexer, created once (lexers are costly to build)."""
    from pygments.lexers import DiffLexer

    return DiffLexer(stripnl=False, ensurenl=False)
