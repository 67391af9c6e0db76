"""The page pane's default look: one rule per role of the rendered lines.

The renderer names what a piece of text *is* ("heading-2", "code-keyword", "quote";
:data:`wikitui.ui.markdown.paint.ROLES`); each name is a component class of
:class:`~wikitui.ui.widgets.page_view.PageView` (``page-view--heading-2``), styled here
with theme variables only, so any theme colours the page.
"""

from __future__ import annotations

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
    & > .page-view--mark { background: $warning-muted; }
    & > .page-view--math { color: $text-secondary; }
    & > .page-view--footnote { color: $text-accent; }
    & > .page-view--tag { color: $text-accent; }
    & > .page-view--rule { color: $text-muted; }
    & > .page-view--table-border { color: $text-muted; }
    & > .page-view--table-header { text-style: bold; }
}
"""
