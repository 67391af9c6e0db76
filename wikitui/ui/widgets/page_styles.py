"""Theme styles of the page pane: role names of rendered lines turned into Rich styles.

The rendering model names what a piece of text *is* ("heading-2", "code-keyword",
"quote"); each name is a component class of :class:`~wikitui.ui.widgets.page_view.PageView`
(``page-view--heading-2``), so colours come only from the theme and the CSS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from wikitui.ui.markdown.line import Line

if TYPE_CHECKING:
    from textual.widget import Widget

#: The page pane's default look: every colour a theme variable, so any theme works.
#: Themes (or the app's stylesheet) can restyle any class, e.g. with wikitui's own
#: ``$wikitui-link`` variables: ``PageView > .page-view--link { color: $wikitui-link; }``.
PAGE_VIEW_CSS = """
PageView {
    background: $surface;
    color: $foreground;
    padding: 0 1;
    overflow-x: hidden;
    overflow-y: scroll;
    scrollbar-size-vertical: 1;
    & > .page-view--link { color: $text-primary; text-style: underline; }
    & > .page-view--link-unresolved { color: $text-error; text-style: italic; }
    & > .page-view--link-external { color: $text-accent; text-style: underline; }
    & > .page-view--link-selected {
        color: $block-cursor-foreground;
        background: $block-cursor-background;
        text-style: bold;
    }
    &:blur > .page-view--link-selected {
        color: $block-cursor-blurred-foreground;
        background: $block-cursor-blurred-background;
        text-style: none;
    }
    & > .page-view--heading-1 { color: $markdown-h1-color; text-style: bold; }
    & > .page-view--heading-rule { color: $markdown-h1-color; }
    & > .page-view--heading-2 { color: $markdown-h2-color; text-style: bold underline; }
    & > .page-view--heading-3 { color: $markdown-h3-color; text-style: bold; }
    & > .page-view--heading-4 { color: $markdown-h4-color; text-style: bold italic; }
    & > .page-view--heading-5 { color: $markdown-h5-color; text-style: italic; }
    & > .page-view--heading-6 { color: $markdown-h6-color; text-style: italic; }
    & > .page-view--title { color: $markdown-h1-color; text-style: bold; }
    & > .page-view--meta { color: $text-muted; }
    & > .page-view--meta-type { color: $text-secondary; text-style: bold; }
    & > .page-view--meta-tag { color: $text-accent; }
    & > .page-view--warning { color: $text-warning; background: $warning-muted; text-style: bold; }
    & > .page-view--message-title { color: $text-muted; text-style: bold; }
    & > .page-view--code { color: $text-warning; background: $panel; }
    & > .page-view--code-block { background: $panel; }
    & > .page-view--code-gutter { color: $text-muted; background: $panel; }
    & > .page-view--code-keyword { color: $text-accent; text-style: bold; }
    & > .page-view--code-string { color: $text-success; }
    & > .page-view--code-number { color: $text-warning; }
    & > .page-view--code-comment { color: $text-muted; text-style: italic; }
    & > .page-view--code-function { color: $text-primary; }
    & > .page-view--code-builtin { color: $text-secondary; }
    & > .page-view--code-tag { color: $text-primary; }
    & > .page-view--code-attribute { color: $text-secondary; }
    & > .page-view--code-operator { color: $text-accent; }
    & > .page-view--code-inserted { color: $text-success; }
    & > .page-view--code-deleted { color: $text-error; }
    & > .page-view--code-heading { color: $text-primary; text-style: bold; }
    & > .page-view--quote { color: $text-muted; text-style: italic; }
    & > .page-view--quote-bar { color: $primary; }
    & > .page-view--callout { color: $text-primary; text-style: bold; }
    & > .page-view--bullet { color: $text-accent; }
    & > .page-view--rule { color: $text-muted; }
    & > .page-view--table-border { color: $text-muted; }
    & > .page-view--table-header { text-style: bold; }
}
"""

#: Roles with a component class ``page-view--<role>``.
COMPONENT_ROLES = (
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


class LinkStates:
    """How a widget that shows links names the state of link ``index`` for styling.

    Shared by the page pane and the chat's answers; the host provides
    ``selected_link``, ``links``, ``_resolve`` and ``link_target(index)``.
    """

    def _link_state(self, index: int) -> str:
        if index == self.selected_link:  # type: ignore[attr-defined]
            return "link-selected"
        link = self.links[index]  # type: ignore[attr-defined]
        if link.kind == "url":
            return "link-external"
        if self._resolve is not None and self.link_target(index) is None:  # type: ignore[attr-defined]
            return "link-unresolved"
        return "link"


class RoleStyles:
    """Caches the Rich style of each combination of roles for one widget.

    Args:
        widget: The widget whose component classes style the roles.
        prefix: Component class prefix (``"page-view--"``).
    """

    def __init__(self, widget: Widget, prefix: str) -> None:
        self.widget = widget
        self.prefix = prefix
        self.known = {prefix + role for role in COMPONENT_ROLES}
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
                if role in ATTRIBUTE_ROLES:
                    style += ATTRIBUTE_ROLES[role]
                else:
                    name = self.prefix + ROLE_ALIASES.get(role, role)
                    if name in self.known:
                        style += self.component(name)
            if link_state:
                style += self.component(self.prefix + link_state)
            self._cache[key] = style
        return style

    def paint(self, line: Line, width: int, base: Style, link_state) -> Strip:
        """A strip ``width`` cells wide for ``line``; ``link_state(index)`` names a link's look."""
        segments = [
            Segment(text, base + self.get(roles, link_state(link) if link is not None else ""))
            for text, roles, link in line.segments
            if text
        ]
        fill = base + self.get(line.fill) if line.fill else base
        return Strip(Segment.simplify(segments)).adjust_cell_length(width, fill)
