"""The wiki as it will be once a batch's earlier pending changesets apply (DESIGN §13, "Stacked changesets").

A batch writes its sources one after another, each its own changeset. An
:class:`Overlay` holds what the batch's changesets so far propose, in order, and
answers as the wiki would after they apply: :meth:`Overlay.read`,
:meth:`Overlay.exists`, :meth:`Overlay.pages`, a link graph with the proposed pages
in it (:attr:`Overlay.graph`, for ``links``, ``list_pages`` and citation checks) and
a small word search over the proposed texts (:meth:`Overlay.search`, merged by the
``search`` tool with the index's hits, which only know the disk).

The tools and the changeset builder consult it before the disk. An edit to a page
the overlay holds is recorded against the overlay's text (its ``base_text`` and
``base_hash``), so applying the earlier changeset first makes the later one apply
cleanly, and applying it without the earlier one is merged three-way or refused
as a conflict by :func:`~wikitui.core.changes.apply.apply_changeset`.

Each :meth:`Overlay.add` costs what its own changeset holds (parsing its pages, and
one link resolution of the graph when a page's names change), not what the overlay
already holds.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from wikitui.core.changes.model import Changeset, sha256_bytes
from wikitui.core.vault.files import encode_exact
from wikitui.core.vault.graph import LinkGraph

_WORD = re.compile(r"\w+")
#: A query's field filters and operators, which the word search leaves out.
_OPERATOR = re.compile(r"\b(?:AND|OR|NOT)\b|\b\w+:\S*|[~*\"()^]")


@dataclass(slots=True)
class OverlayHit:
    """A search hit on a proposed page (the attributes of the index's hits)."""

    path: str
    title: str
    score: float
    snippet: str
    line: int | None = None
    kind: str = "page, proposed"


class Overlay:
    """The ordered pending changesets of a batch, as one view of the wiki.

    Args:
        graph: The vault's link graph (the disk's); the overlay's own graph starts as a copy.
    """

    def __init__(self, graph: LinkGraph) -> None:
        self.vault = graph.vault
        #: The link graph of the wiki as it will be (proposed pages in, deleted ones out).
        self.graph = graph.copy()
        self._texts: dict[str, str | None] = {}  # path -> proposed text (None: deleted or moved away)
        self._by: dict[str, str] = {}  # path -> id of the changeset that last proposed it
        self._words: dict[str, Counter] = {}  # path -> its words, folded
        self._index: dict[str, set[str]] = {}  # word -> paths holding it
        #: The changesets added, in order.
        self.changesets: list[str] = []
        self._paths: list[list[str]] = []  # the paths each changeset of ``changesets`` proposed

    # ---------------------------------------------------------------- building
    def add(self, changeset: Changeset) -> None:
        """Take in one more changeset of the batch (after those added before)."""
        texts: dict[str, str | None] = {}
        for fc in changeset.files:
            if fc.binary:
                continue  # a chart's picture: not a page to read, search or link by name
            if fc.action in ("delete", "move"):
                texts[fc.path] = None
            if fc.action != "delete":
                texts[fc.final_path] = fc.new_text
        for rel, text in texts.items():
            self._texts[rel] = text
            self._by[rel] = changeset.id
            self._index_words(rel, text)
        self.graph.set_texts({rel: text for rel, text in texts.items() if rel.lower().endswith(".md")})
        self.changesets.append(changeset.id)
        self._paths.append(list(texts))

    def paths_since(self, count: int) -> list[str]:
        """The paths the changesets added after the first ``count`` propose something for (once each, in order)."""
        return list(dict.fromkeys(p for paths in self._paths[count:] for p in paths))

    def _index_words(self, rel: str, text: str | None) -> None:
        for word in self._words.pop(rel, Counter()):
            self._index.get(word, set()).discard(rel)
        if text is None:
            return
        words = Counter(w.casefold() for w in _WORD.findall(text))
        self._words[rel] = words
        for word in words:
            self._index.setdefault(word, set()).add(rel)

    # ------------------------------------------------------------------- views
    def size(self) -> int:
        """How many paths the batch proposes something for (a text or a deletion)."""
        return len(self._texts)

    def knows(self, path: str) -> bool:
        """Whether the batch proposes something for ``path`` (a text or its deletion)."""
        return path in self._texts

    def read(self, path: str) -> str | None:
        """The text proposed for ``path`` (None: nothing proposed, or deleted; see :meth:`knows`)."""
        return self._texts.get(path)

    def base_hash(self, path: str) -> str | None:
        """The sha256 the proposed text of ``path`` will have on disk (what a later edit is based on)."""
        text = self._texts.get(path)
        return None if text is None else sha256_bytes(encode_exact(text))

    def exists(self, path: str) -> bool:
        """Whether ``path`` will exist: proposed by the batch, or on disk and not deleted by it."""
        if path in self._texts:
            return self._texts[path] is not None
        return (self.vault.root / path).exists()

    def pages(self) -> list[str]:
        """The paths the batch proposes a text for, sorted."""
        return sorted(p for p, t in self._texts.items() if t is not None)

    def gone(self) -> set[str]:
        """The paths the batch deletes or moves away from."""
        return {p for p, t in self._texts.items() if t is None}

    def proposed_by(self, path: str) -> str | None:
        """The id of the changeset that last proposed something for ``path``."""
        return self._by.get(path)

    # ------------------------------------------------------------------ search
    def search(self, query: str, limit: int = 10) -> list[OverlayHit]:
        """The proposed pages holding the query's words: all of them first, then any, most matches first.

        A plain word search (field filters, operators, wildcards left out): the proposed
        pages are few, and a page must be findable before the index knows it.
        """
        words = [w.casefold() for w in _WORD.findall(_OPERATOR.sub(" ", query))]
        if not words:
            return []
        candidates: set[str] = set()
        for word in words:
            candidates |= self._index.get(word, set())
        scored = []
        for rel in candidates:
            counts = self._words[rel]
            found = [w for w in words if counts.get(w)]
            title = self.graph.pages[rel].title if rel in self.graph.pages else rel
            in_title = sum(1 for w in words if w in title.casefold())
            score = len(found) * 10.0 + in_title * 5.0 + min(sum(counts[w] for w in found), 20) * 0.5
            scored.append((len(found) == len(words), score, rel, title, found))
        scored.sort(key=lambda s: (not s[0], -s[1], s[2]))
        return [OverlayHit(rel, title, score, *self._snippet(rel, found))
                for _all, score, rel, title, found in scored[:limit]]

    def _snippet(self, rel: str, found: list[str]) -> tuple[str, int | None]:
        text = self._texts.get(rel) or ""
        for n, line in enumerate(text.splitlines(), 1):
            low = line.casefold()
            if not line.startswith(("---", "title:", "aliases:")) and any(w in low for w in found):
                return line.strip()[:300], n
        return "", None
