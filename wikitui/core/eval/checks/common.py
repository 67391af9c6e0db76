"""What every eval check shares: the check type, forgiving text comparison, page names, added lines."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable

from wikitui.core.eval.outcome import Outcome

Check = Callable[[Outcome], "str | None"]


def fold(text: str) -> str:
    """``text`` for a forgiving comparison: case, curly quotes, dashes and spacing evened out."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.translate(str.maketrans("\u2018\u2019\u201c\u201d\u2013\u2014_", "''\"\"-- ", "*"))
    return " ".join(text.split())


def title(o: Outcome, path: str) -> str:
    """A page's title after the apply (its path when it is no page)."""
    info = o.graph.pages.get(path) if o.graph is not None else None
    return info.title if info is not None else path


def names(paths: list[str], o: Outcome) -> str:
    """``[[Title]], [[Title]]`` for the pages at ``paths``."""
    return ", ".join(f"[[{title(o, p)}]]" for p in paths)


def is_content_page(o: Outcome, path: str) -> bool:
    """Whether ``path`` is a page after the apply, index.md and log.md aside."""
    return path in o.graph.pages and path not in (o.vault.index_path, o.vault.log_path)


def added_lines(o: Outcome, path: str) -> list[str]:
    """Lines of ``path`` after the apply that were not there before (as a multiset difference)."""
    before = Counter((o.text_before(path) or "").splitlines())
    out = []
    for line in (o.text_after(path) or "").splitlines():
        if before[line] > 0:
            before[line] -= 1
        else:
            out.append(line)
    return out
