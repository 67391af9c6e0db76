"""Slide mode of the page pane: a Marp deck (``marp: true``) shown one slide at a time (DESIGN §9).

The deck is split by the core (:func:`wikitui.core.outputs.slides.parse_deck`: ``---``
at the top level separates slides, the frontmatter is not a slide, directive comments
and presenter notes are taken out). The page view shows the current slide's markdown
as a page of its own, so its links are the tab stops and ``enter`` follows them;
``left`` and ``right`` move between slides, and the pane's border counts them
("slide 3/12"). This module keeps which slide shows; the page display shows it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from wikitui.core.outputs.slides import Deck, Slide, is_deck, parse_deck
from wikitui.ui.markdown.anchors import normalize_anchor

_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


class SlideMode:
    """A deck and the slide on show.

    Args:
        deck: The parsed deck (at least one slide).
        show: Called with the slide to show whenever the slide changes.
        index: The slide to start on (0-based; clamped to the deck).
        path: The deck's vault-relative path.
    """

    def __init__(self, deck: Deck, show: Callable[[Slide], None], index: int = 0, path: str = "") -> None:
        self.deck = deck
        self.path = path
        self._show = show
        self.index = max(0, min(index, len(deck.slides) - 1))

    @classmethod
    def for_text(cls, text: str, show: Callable[[Slide], None], index: int = 0, path: str = "") -> SlideMode | None:
        """Slide mode for a page's text, or None when the page is not a deck."""
        if not is_deck(text):
            return None
        deck = parse_deck(text)
        return cls(deck, show, index, path) if deck.slides else None

    @property
    def current(self) -> Slide:
        """The slide on show."""
        return self.deck.slides[self.index]

    @property
    def counter(self) -> str:
        """``slide 3/12``, for the pane's border."""
        return f"slide {self.index + 1}/{len(self.deck.slides)}"

    def step(self, delta: int) -> bool:
        """Move ``delta`` slides (stopping at the first and the last); whether the slide changed."""
        return self.go_to(self.index + delta)

    def go_to(self, index: int) -> bool:
        """Show slide ``index`` (0-based, clamped); whether the slide changed."""
        target = max(0, min(index, len(self.deck.slides) - 1))
        if target == self.index:
            return False
        self.index = target
        self._show(self.current)
        return True

    def index_for(self, *, line: int | None = None, anchor: str | None = None) -> int | None:
        """The slide holding file line ``line`` (1-based) or the heading ``anchor``; None when none does."""
        slides = self.deck.slides
        if line is not None:
            before = [i for i, slide in enumerate(slides) if slide.line <= line]
            return before[-1] if before else 0
        if anchor:
            wanted = normalize_anchor(anchor)
            for i, slide in enumerate(slides):
                if any(normalize_anchor(m.group(1)) == wanted for m in _HEADING.finditer(slide.text)):
                    return i
        return None


def show_slide(page, slide: Slide, path: str, resolve, title: str) -> None:
    """Show one slide in a page view (its markdown alone: its links are the tab stops), counted in the border.

    Args:
        page: The :class:`~wikitui.ui.widgets.page_view.PageView`.
        slide: The slide.
        path: The deck's vault-relative path (links resolve from it).
        resolve: Resolves a link to its target path (None when there is no graph yet).
        title: The deck's title for the border.
    """
    page.show(slide.text, path=path, resolve=resolve)
    counter = page.slides.counter if page.slides is not None else ""
    page.border_title = f"{title} · {counter}" if counter else title


def slide_or_scroll(page, delta: int) -> None:
    """``left``/``right`` in a page view: the previous/next slide of a deck, else scroll sideways."""
    if page.slides is not None:
        page.slides.step(delta)
    else:
        page.scroll_relative(x=delta, animate=False, immediate=True)
