"""The page renderer: markdown text painted as terminal lines with followable links.

The page pane (:class:`~wikitui.ui.widgets.page_view.PageView`) and the chat's answers
(:class:`~wikitui.ui.widgets.chat_message.ChatMessage`) draw markdown with it, so an answer
looks like a page. Textual's own ``Markdown`` widget mounts a widget per block and cannot
focus links; this package keeps a page as plain data and paints only the lines in view.

The data path, one module per step::

    markdown text ──chunks──▶ pieces that parse alone (cleaned of control characters)
                  ──parser──▶ markdown-it tokens (CommonMark + tables, [[wikilinks]], bare URLs)
                  ──builder, inline──▶ width-independent blocks (links matched to the core's
                                       tab stops by ``links``, code coloured by ``code``)
                  ──blocks, table, wrap──▶ lines for one width, each with its link spans (``line``)
                  ──paint──▶ Textual strips in the theme's colours

:class:`~wikitui.ui.markdown.document.PageDocument` runs that path lazily, chunk by chunk;
:class:`~wikitui.ui.markdown.stream.StreamedMarkdown` runs it on an answer that is still
arriving; :class:`~wikitui.ui.markdown.link_cursor.LinkCursor` is the keyboard cursor over
the links of either.

What it may import: the core (``wikitui.core``: links and page metadata), markdown-it,
pygments, Rich (cell widths, styles) and Textual's styling pieces (``Strip``, component
styles of the widget that paints). Never the screens, the app or the widgets: they import
this package, not the other way round. The modules are imported by name (this file
imports nothing), so a widget pays only for what it uses.
"""
