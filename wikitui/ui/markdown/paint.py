"""Rendered lines painted: role names turned into the theme's Rich styles, lines into strips.

The renderer names what a piece of text *is* ("heading-2", "code-keyword", "quote",
"link-selected"); a widget that paints rendered lines declares a component class per
role (``page-view--heading-2``, ``chat-message--heading-2``), so colours come only from
the theme and the CSS. :class:`RoleStyles` looks the styles up once per combination of
roles and paints a :class:`~wikitui.ui.markdown.line.Line` into a Textual ``Strip``;
:class:`LinePainter` keeps the strips painted, so a screen repainted many times a second
(an answer streaming in, a scroll) paints each line once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.strip import Strip

from wikitui.ui.markdown.line import Line
from wikitui.ui.markdown.pictures import PIXEL_ROLE, pixel_style

if TYPE_CHECKING:
    from textual.widget import Widget

#: Every role the renderer gives text that a theme colours: a widget that paints
#: rendered lines has a component class per role (``page-view--heading-2``).
ROLES = (
    "link",
    "link-unresolved",
    "link-external",
    "link-selected",
    *(f"heading-{n}" for n in range(1, 7)),
    "heading-rule",
    "title",
    "meta",
    "meta-type",
    "meta-tag",
    "warning",
    "message-title",
    "code",
    "code-block",
    "code-gutter",
    *(
        f"code-{token}"
        for token in (
            "keyword string number comment function builtin tag attribute operator inserted deleted heading".split()
        )
    ),
    "quote",
    "quote-bar",
    "callout",
    "bullet",
    "mark",
    "math",
    "footnote",
    "tag",
    "rule",
    "table-border",
    "table-header",
)
#: Roles painted with plain text attributes rather than theme colours.
ATTRIBUTE_ROLES = {
    "strong": Style(bold=True),
    "em": Style(italic=True),
    "s": Style(strike=True),
    "summary": Style(italic=True),
}
#: Roles that share another role's component class.
ROLE_ALIASES = {"link-plain": "link", "header-rule": "rule", "html": "meta"}


class RoleStyles:
    """Caches the Rich style of each combination of roles for one widget.

    Args:
        widget: The widget whose component classes style the roles.
        prefix: Component class prefix (``"page-view--"``).
        roles: The roles the widget has a component class for (default: all of :data:`ROLES`).
        aliases: Roles painted with another role's class (default: :data:`ROLE_ALIASES`).
    """

    def __init__(
        self,
        widget: Widget,
        prefix: str,
        roles: Iterable[str] = ROLES,
        aliases: Mapping[str, str] = ROLE_ALIASES,
    ) -> None:
        self.widget = widget
        self.prefix = prefix
        self.known = {prefix + role for role in roles}
        self.aliases = aliases
        self._cache: dict[tuple[str, str], Style] = {}

    def clear(self) -> None:
        """Forget every style (the theme or focus changed)."""
        self._cache.clear()

    def component(self, name: str) -> Style:
        """A component's own colours and attributes, with translucent colours blended.

        The partial style has only what the component sets (so a keyword keeps the code
        block's background) but leaves ``$text-muted``-like colours unblended; the full
        style has them blended over the background. Take the set parts from the full one.
        """
        partial = self.widget.get_component_rich_style(name, partial=True)
        full = self.widget.get_component_rich_style(name)
        return Style(
            color=full.color if partial.color is not None else None,
            bgcolor=full.bgcolor if partial.bgcolor is not None else None,
            bold=partial.bold,
            dim=partial.dim,
            italic=partial.italic,
            underline=partial.underline,
            strike=partial.strike,
            reverse=partial.reverse,
        )

    def get(self, roles: str, link_state: str = "") -> Style:
        """The style of text with ``roles`` (space-separated) inside a link in ``link_state``."""
        key = (roles, link_state)
        style = self._cache.get(key)
        if style is None:
            style = Style()
            for role in roles.split():
                if role.startswith(PIXEL_ROLE):  # a cell of an embedded picture: its own two colours
                    style += pixel_style(role)
                elif role in ATTRIBUTE_ROLES:
                    style += ATTRIBUTE_ROLES[role]
                else:
                    name = self.prefix + self.aliases.get(role, role)
                    if name in self.known:
                        style += self.component(name)
            if link_state:
                style += self.component(self.prefix + link_state)
            self._cache[key] = style
        return style

    def paint(self, line: Line, width: int, base: Style, link_state: Callable[[int], str]) -> Strip:
        """A strip ``width`` cells wide for ``line``; ``link_state(index)`` names a link's look."""
        segments = [
            Segment(text, base + self.get(roles, link_state(link) if link is not None else ""))
            for text, roles, link in line.segments
            if text
        ]
        fill = base + self.get(line.fill) if line.fill else base
        return Strip(Segment.simplify(segments)).adjust_cell_length(width, fill)


class LinePainter:
    """Paints one widget's rendered lines, keeping the strip of each line painted.

    A strip is reused while the same line object is painted at the same place and width;
    the widget forgets strips whose look changed (:meth:`forget`, :meth:`clear`).

    Args:
        widget: The widget whose component classes style the roles.
        prefix: Component class prefix (``"page-view--"``).
        roles: The roles the widget has a component class for.
        aliases: Roles painted with another role's class.
        size: How many strips are kept.
    """

    def __init__(
        self,
        widget: Widget,
        prefix: str,
        roles: Iterable[str] = ROLES,
        aliases: Mapping[str, str] = ROLE_ALIASES,
        size: int = 1024,
    ) -> None:
        self.styles = RoleStyles(widget, prefix, roles, aliases)
        self._strips: LRUCache[int, tuple[Line, Strip]] = LRUCache(size)

    def paint(self, y: int, line: Line, width: int, base: Style, link_state: Callable[[int], str]) -> Strip:
        """The strip of ``line`` shown at ``y``, ``width`` cells wide (see :meth:`RoleStyles.paint`)."""
        cached = self._strips.get(y)
        if cached is not None and cached[0] is line and cached[1].cell_length == width:
            return cached[1]
        strip = self.styles.paint(line, width, base, link_state)
        self._strips[y] = (line, strip)
        return strip

    def forget(self, first: int, last: int) -> None:
        """Paint lines ``first`` to ``last`` again next time (a link on them changed its look)."""
        for y in range(first, last + 1):
            self._strips.discard(y)

    def clear(self) -> None:
        """Paint every line again next time (another text, another width, a link cursor moved)."""
        self._strips.clear()

    def clear_styles(self) -> None:
        """Look the styles up again and paint every line again (the theme or the focus changed)."""
        self.styles.clear()
        self._strips.clear()
