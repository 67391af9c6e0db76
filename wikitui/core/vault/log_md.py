"""log.md: the chronological, append-only record of operations (DESIGN §2).

Each entry starts ``## [YYYY-MM-DD] op | Title`` and lists the pages touched, the
model, tokens and cost, the changeset id and the git commit, so that
``grep "^## \\[" log.md`` gives a timeline and ``git log --grep <id>`` finds the commit.
Only wikitui writes it, when a changeset is applied; the agent cannot edit it.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable

from wikitui.core.vault.files import append_bytes, read_bytes
from wikitui.core.vault.layout import Vault

#: The operations a log entry may record.
OPS = ("ingest", "query", "lint", "edit", "undo")
LOG_HEADING = "# Log"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _page_link(path: str) -> str:
    """A path-qualified wikilink to a vault-relative path (``.md`` dropped, as Obsidian writes them)."""
    target = path[:-3] if path.lower().endswith(".md") else path
    return f"[[{target}]]"


def _format_tokens(tokens: int | str | dict) -> str:
    if isinstance(tokens, dict):
        return ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in tokens.items())
    if isinstance(tokens, int):
        return f"{tokens:,}"
    return _one_line(tokens)


def _format_cost(cost: float | str) -> str:
    if isinstance(cost, (int, float)):
        return f"${cost:.4f}"
    return _one_line(cost)


def _format_hunks(hunks: Iterable[str] | int | str) -> str:
    if isinstance(hunks, (int, str)):
        return _one_line(str(hunks))
    return ", ".join(_one_line(h) for h in hunks)


def format_log_entry(
    op: str,
    title: str,
    pages: Iterable[str],
    *,
    model: str | None = None,
    tokens: int | str | dict | None = None,
    cost: float | str | None = None,
    changeset: str | None = None,
    commit: str | None = None,
    hunks: Iterable[str] | int | str | None = None,
    date: _dt.date | str | None = None,
    review: str | None = None,
    author: str | None = None,
    evidence: str | None = None,
) -> str:
    """Format one log.md entry (ending with a newline).

    Args:
        op: One of :data:`OPS`.
        title: What the operation was about (a source's title, a question).
        pages: Vault-relative paths of the pages touched, written as wikilinks.
        model: The model that proposed the change.
        tokens: Tokens spent (an int, or a mapping such as ``{"in": 1200, "out": 300}``).
        cost: Cost in US dollars.
        changeset: The changeset id (also in the git commit message).
        commit: The git commit, when the vault is a repository.
        hunks: The hunks applied (ids, or a description such as ``"5 of 7"``).
        date: The entry's date; today (local time) by default.
        review: The second reviewer's model, tokens and cost (:func:`review_usage`), logged apart.
        author: Who made or accepted the change (the config's ``author``, else git's ``user.name``).
        evidence: What the applied claims drew on, in one line (DESIGN §11 "Evidence").

    Raises:
        ValueError: ``op`` is not one of :data:`OPS`.
    """
    if op not in OPS:
        raise ValueError(f"unknown log operation {op!r}; expected one of {', '.join(OPS)}")
    if date is None:
        date = _dt.date.today()
    day = date.isoformat()[:10] if isinstance(date, (_dt.date, _dt.datetime)) else _one_line(date)
    lines = [f"## [{day}] {op} | {_one_line(title) or '(untitled)'}", ""]
    page_list = list(pages)
    lines.append("- pages: " + (", ".join(_page_link(p) for p in page_list) if page_list else "none"))
    if author:
        lines.append(f"- author: {_one_line(author)}")
    if model:
        lines.append(f"- model: {_one_line(model)}")
    if tokens is not None:
        lines.append(f"- tokens: {_format_tokens(tokens)}")
    if cost is not None:
        lines.append(f"- cost: {_format_cost(cost)}")
    if review:
        lines.append(f"- review: {_one_line(review)}")
    if changeset:
        lines.append(f"- changeset: {_one_line(changeset)}")
    if hunks is not None:
        lines.append(f"- hunks: {_format_hunks(hunks)}")
    if evidence:
        lines.append(f"- evidence: {_one_line(evidence)}")
    if commit:
        lines.append(f"- commit: {_one_line(commit)}")
    return "\n".join(lines) + "\n"


def review_usage(review: dict | None) -> str | None:
    """``model, N tokens, $x`` for a changeset's second review (None when there was none)."""
    if not isinstance(review, dict) or not review.get("model"):
        return None
    tokens = review.get("tokens")
    total = sum(v for v in tokens.values() if isinstance(v, int)) if isinstance(tokens, dict) else tokens
    cost = review.get("cost")
    cost_text = f", {_format_cost(cost)}" if isinstance(cost, (int, float)) else ""
    return f"{review['model']}, {total if isinstance(total, int) else 0:,} tokens{cost_text}"


def newline_of(data: bytes) -> bytes:
    """A file's dominant line ending, as bytes: CRLF when most lines end with it."""
    crlf = data.count(b"\r\n")
    return b"\r\n" if crlf and crlf * 2 >= data.count(b"\n") else b"\n"


def log_chunk(current: bytes | None, entry: str) -> bytes:
    """The bytes to append to log.md to add ``entry``, given its bytes now (None: no file yet).

    The old bytes stay as they are (BOM, line endings, even invalid UTF-8): the
    chunk only adds what separates the new entry from them (a line end, a blank
    line) and the entry in the file's own line endings. A missing log.md starts
    with ``# Log``.
    """
    nl = newline_of(current or b"")
    chunk = b""
    if current is None:
        chunk = LOG_HEADING.encode("ascii") + nl
    tail = (current or b"")[-4:] + chunk
    if tail and not tail.endswith(b"\n"):
        chunk += nl
        tail += nl
    if (current or b"").strip() or chunk.strip():
        if not (tail.endswith(b"\n\n") or tail.endswith(b"\n\r\n")):
            chunk += nl
    body = entry if entry.endswith("\n") else entry + "\n"
    return chunk + body.replace("\r\n", "\n").replace("\n", nl.decode("ascii")).encode("utf-8", "replace")


def append_log(vault: Vault, entry: str) -> None:
    """Append ``entry`` to the vault's log.md, creating it with ``# Log`` if missing.

    The existing bytes are kept as they are; one blank line separates entries.
    (An apply appends through its journal instead, so a crash can take the entry back.)
    """
    path = vault.root / vault.log_path
    try:
        current: bytes | None = read_bytes(path)
    except FileNotFoundError:
        current = None
    append_bytes(path, log_chunk(current, entry))
