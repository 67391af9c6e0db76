"""The catalog a turn's first request carries when index.md is bigger than its share (DESIGN §13).

Cut at a line, a catalog of thousands of pages loses its tail: the model never sees the
pages late in the alphabet. So when index.md does not fit, the request carries instead:

- the user's text above the marker (cut to a third of the share when longer);
- the catalog's shape: each type with its page count;
- the entries most relevant to the turn, in catalog format (``- [[Title]] — summary``,
  grouped by type): the pages a lint's plan names, then the best matches of one search of
  the question or the source (its title, headings and first words) over titles, aliases
  and summaries, then the most-linked pages, until the share is full;
- a line saying how many pages are left out and how to find them (``search``, ``list_pages``).

An index.md without the marker is the user's own: its headings are kept, and its other
lines are chosen by the relevant pages they link, shown in their own order. index.md on
disk is never changed. No page is read: the link graph has every title and summary, and
the search reads no file for a ranking.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from wikitui.core.vault.catalog import INDEX_MARKER, catalog_lines, catalog_shape, catalog_sorted

#: Characters of a source read for its title, headings and first words.
SOURCE_HEAD = 16 * 1024
#: Words of a source's body (after its title and headings) searched for.
SOURCE_WORDS = 80
#: Most hits asked of the search (a 128k window holds about that many entries).
MAX_HITS = 2000
#: Characters of the search's query (the search refuses more than 1,000).
QUERY_CHARS = 990
_WORD = re.compile(r"\w+")
#: Link targets in a line of a hand-kept index: ``[[Target|...]]`` and ``[label](target)``.
_TARGETS = re.compile(r"\[\[([^\]|#\n]+)|\]\(([^)\s#]+)")
#: Words that say nothing about a page (the search drops them too; here they would only use up the query).
_COMMON = frozenset(
    "the and for are but not you all any can had her was one our out has his how its may new now see two who "
    "did get him let say she too use what when where which with this that from have they will would there their "
    "been into more some than then them these those about after also could other over such what your ingest "
    "question answer page pages wiki".split())


@dataclass(frozen=True, slots=True)
class Focus:
    """What a turn is about, for choosing its catalog entries.

    Attributes:
        text: Searched over titles, aliases and summaries (a question; a source's title, headings, first words).
        paths: Pages listed first, in order (a lint's stale, then most-linked pages).
    """

    text: str = ""
    paths: tuple[str, ...] = ()


def source_focus(vault, rel: str) -> Focus:
    """A source's title (its first heading, else its file name), its headings and its first words."""
    from wikitui.core.vault.formats import needs_conversion, source_text

    try:
        if needs_conversion(rel):  # converted when the ingest began: this reads the cached text
            conversion = source_text(vault, rel)
            text = conversion.text[:SOURCE_HEAD] if conversion.ok else ""
        else:  # only its head, however long the source
            with (vault.root / rel).open(encoding="utf-8-sig", errors="replace") as f:
                text = f.read(SOURCE_HEAD)
    except (OSError, ValueError):
        text = ""
    lines = text.splitlines()
    headings = [ln.lstrip("#").strip() for ln in lines if ln.startswith("#")]
    body = " ".join(ln for ln in lines if not ln.startswith("#"))
    name = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0].replace("-", " ").replace("_", " ")
    first = " ".join(body.split()[:SOURCE_WORDS])
    return Focus(" ".join([name, *headings, first]))


def turn_focus(vault, turn) -> Focus:
    """An ask's question, an ingest's source (both phases); nothing for other turns."""
    if turn.op == "ingest" and turn.source:
        return source_focus(vault, turn.source)
    if turn.op == "ask":
        return Focus(turn.prompt)
    return Focus()


def lint_focus(vault, graph, report) -> Focus:
    """A health check's pages: the stale ones, then the most-linked (the reading plan's order)."""
    from wikitui.core.agent.lint_plan import pages_to_read

    stale, linked = pages_to_read(vault, graph, report)
    return Focus(paths=tuple(stale + [p for _n, p in linked]))


def query_words(text: str) -> list[str]:
    """The words of ``text`` worth searching for, in order, each once."""
    words = []
    for w in _WORD.findall(text.casefold()):
        if (len(w) >= 3 or w.isdigit()) and w not in _COMMON and "_" not in w:
            words.append(w)
    return list(dict.fromkeys(words))


def search_query(words: list[str]) -> str:
    """One query for any of ``words`` in a title, an alias or a summary, as many words as the query may hold."""
    query = ""
    for n in range(1, len(words) + 1):
        group = " OR ".join(words[:n])
        candidate = f"title:({group}) OR aliases:({group}) OR summary:({group})"
        if len(candidate) > QUERY_CHARS:
            break
        query = candidate
    return query


class TurnCatalog:
    """The catalog entries for one turn, ranked once, fitted to whatever share the request leaves.

    Args:
        vault: The vault.
        graph: Its link graph (every page's title, type and summary).
        search_index: The vault's ``SearchIndex``, or None (the graph's titles, aliases and summaries are
            matched instead; so they are when the search fails or finds nothing).
        focus: What the turn is about.
    """

    def __init__(self, vault, graph, search_index, focus: Focus) -> None:
        self.vault = vault
        self.graph = graph
        self.search_index = search_index
        self.focus = focus
        self._ranked: list[str] | None = None
        self._counted: tuple[tuple[int, int, int], float | None] | None = None
        #: How the relevant pages were found: "search", "titles" (the graph), or "" (nothing matched).
        self.found_by = ""

    def too_big(self, index: str, share: int, count: Callable[[str], int]) -> float | None:
        """index.md's characters per token when it is bigger than ``share`` tokens, else None.

        Only a head of it is counted (eight characters a token, more than any tokenizer packs in prose):
        when the head alone is past the share, so is the whole, and counting 10,000 pages' catalog
        would take longer than choosing from it.
        """
        head = index[: max(share, 1) * 8]
        key = (len(index), hash(index), share)
        if self._counted is None or self._counted[0] != key:
            tokens = count(head) if head else 0
            if len(head) < len(index) and tokens <= share:
                head, tokens = index, count(index)
            self._counted = (key, len(head) / tokens if tokens > share else None)
        return self._counted[1]

    # --------------------------------------------------------------- ranking
    def pages(self) -> list[str]:
        """The catalog's pages (index.md and log.md left out)."""
        special = {self.vault.index_path, self.vault.log_path}
        return [p for p in self.graph.pages if p not in special]

    def ranked(self, want: int) -> list[str]:
        """Pages, most relevant first: the focus's, then search hits, then the most-linked (computed once)."""
        if self._ranked is not None:
            return self._ranked
        pages = set(self.pages())
        order = [p for p in self.focus.paths if p in pages]
        words = query_words(self.focus.text)
        hits = self._search(words, want) if words else []
        if hits:
            self.found_by = "search"
        elif words:
            hits = self._match_titles(words, pages)
            self.found_by = "titles" if hits else ""
        order += [p for p in hits if p in pages]
        order = list(dict.fromkeys(order))
        if len(order) < want:
            from wikitui.core.agent.lint_plan import pages_to_read

            _stale, linked = pages_to_read(self.vault, self.graph, None)
            order = list(dict.fromkeys(order + [p for _n, p in linked]))
        if len(order) < want:  # the rest in the catalog's own order, for the room left
            order = list(dict.fromkeys(order + self._catalog_order(pages)))
        self._ranked = order
        return order

    def _catalog_order(self, pages: set[str]) -> list[str]:
        return [info.path for info in catalog_sorted([self.graph.pages[p] for p in pages])]

    def _search(self, words: list[str], want: int) -> list[str]:
        if self.search_index is None:
            return []
        query = search_query(words)
        try:
            hits = self.search_index.search(query, "wiki", min(MAX_HITS, max(want, 20)), snippets=False)
        except Exception:  # an index that cannot answer now: the graph's titles serve instead
            return []
        return [h.path for h in hits]

    def _match_titles(self, words: list[str], pages: set[str]) -> list[str]:
        """Pages whose title, aliases or summary hold the words, best first (title words count most)."""
        wanted = set(words)
        scored = []
        for path in pages:
            info = self.graph.pages[path]
            title = wanted.intersection(_WORD.findall(info.title.casefold()))
            alias = wanted.intersection(_WORD.findall(" ".join(map(str, info.aliases)).casefold()))
            summary = wanted.intersection(_WORD.findall(info.summary.casefold()))
            score = 5 * len(title) + 4 * len(alias) + 2 * len(summary)
            if score:
                scored.append((-score, path))
        scored.sort()
        return [p for _s, p in scored]

    # --------------------------------------------------------------- fitting
    def fit(self, index: str, budget: int, count: Callable[[str], int], chars_per_token: float) -> tuple[str, int]:
        """(the chosen catalog, its tokens) for ``index`` (index.md's text) in ``budget`` tokens."""
        from wikitui.core.agent.prompts.system import cut_to_tokens

        managed = INDEX_MARKER in index
        if managed:
            at = index.index(INDEX_MARKER)
            eol = index.find("\n", at)
            head = index[: eol + 1] if eol != -1 else index + "\n"
        else:
            head = ""
        head, _tokens, note = cut_to_tokens(head, budget // 3, count, self.vault.index_path)
        if note:
            head += note + "\n"
        pages = self.pages()
        shape = catalog_shape(self.graph.pages[p] for p in pages)
        named = ", ".join(f"{heading} {n:,}" for heading, n in shape)
        shape_line = (f"The catalog lists {len(pages):,} pages ({named}); only entries chosen for this turn "
                      "(those about it, then the most-linked) are shown.")
        if managed:
            text, tokens = self._fit_entries(head, shape_line, budget, count, chars_per_token, pages)
        else:
            text, tokens = self._fit_lines(index, shape_line, budget, count, chars_per_token)
        if tokens > budget:  # a share too small even for the shape and the last line: what a cut keeps
            text, tokens, _note = cut_to_tokens(index, budget, count, self.vault.index_path)
        return text, tokens

    def _fit_entries(self, head: str, shape_line: str, budget: int, count, chars_per_token: float,
                     pages: list[str]) -> tuple[str, int]:
        average = 24 + sum(len(self.graph.pages[p].summary) for p in pages[:200]) / max(1, min(200, len(pages)))
        want = int(budget * chars_per_token / average) + 20
        ranked = self.ranked(want)[: want * 2]

        def render(k: int) -> str:
            lines = catalog_lines(self.graph, (self.graph.pages[p] for p in ranked[:k]))
            rest = len(pages) - k
            tail = (f"{rest:,} more pages are not listed here: find them with search(query) or "
                    "list_pages(type=...).") if rest else ""
            parts = [head.rstrip("\n"), shape_line, "\n".join(lines), tail]
            return "\n\n".join(part for part in parts if part) + "\n"

        return _largest_fitting(render, len(ranked), budget, count, chars_per_token)

    def _fit_lines(self, index: str, shape_line: str, budget: int, count,
                   chars_per_token: float) -> tuple[str, int]:
        """A hand-kept index.md: its headings, and the lines that link the most relevant pages."""
        lines = index.splitlines()
        headings = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("#")]
        ranked = self.ranked(int(budget * chars_per_token / 40) + 20)[:MAX_HITS * 2]
        rank = {p: r for r, p in enumerate(ranked)}
        chosen = []
        for i, line in enumerate(lines):
            if i in headings or not line.strip():
                continue
            best = None
            for wiki, md in _TARGETS.findall(line):
                path = self.graph.find_page((wiki or md).strip())
                if path in rank and (best is None or rank[path] < best):
                    best = rank[path]
            if best is not None:
                chosen.append((best, i))
        chosen.sort()
        heading_set = set(headings)
        listed = len(lines) - len(heading_set) - sum(1 for ln in lines if not ln.strip())

        def render(k: int) -> str:
            keep = heading_set | {i for _r, i in chosen[:k]}
            body = [lines[i] for i in sorted(keep)]
            rest = listed - min(k, len(chosen))
            tail = (f"{rest:,} more lines of {self.vault.index_path} are not shown here: find pages with "
                    "search(query) or list_pages(type=...).") if rest else ""
            return "\n\n".join(part for part in (shape_line, "\n".join(body), tail) if part) + "\n"

        return _largest_fitting(render, len(chosen), budget, count, chars_per_token)


def _largest_fitting(render: Callable[[int], str], most: int, budget: int, count: Callable[[str], int],
                     chars_per_token: float) -> tuple[str, int]:
    """(render(k), its tokens) for about the largest k <= ``most`` that fits ``budget`` (a few counts)."""
    full = render(most)
    if len(full) <= budget * chars_per_token * 1.2:
        tokens = count(full)
        if tokens <= budget:
            return full, tokens
    k = min(most, int(most * budget * chars_per_token / max(len(full), 1) * 0.97))
    fits: tuple[int, str, int] | None = None
    over = most
    for _ in range(8):
        text = render(k)
        tokens = count(text)
        if tokens <= budget:
            fits = (k, text, tokens)
            if over - k <= max(1, most // 200):
                break
            k = (k + over) // 2
        else:
            over = k
            k = (fits[0] + k) // 2 if fits else max(0, int(k * budget / max(tokens, 1) * 0.95))
            if fits and k == fits[0]:
                break
    if fits is None:
        text = render(0)
        return text, count(text)
    return fits[1], fits[2]
