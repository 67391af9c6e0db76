"""The inbox (DESIGN §9): feed items and the exports people already have, brought into ``raw/inbox/``.

Each item becomes a clipped source (frontmatter ``title``, ``source_url``, ``author``,
``date``, ``clipped``) added through clip's writer, which only ever adds files to raw/.
An item already brought in (by its address, then by its text's hash, remembered in
``.wikitui/inbox-seen.json``) is never brought in again.

- :mod:`~wikitui.core.inbox.feeds`: RSS and Atom feeds (feedparser), fetched with a total deadline.
- :mod:`~wikitui.core.inbox.detect`: which export a file or a folder is, from its content.
- :mod:`~wikitui.core.inbox.bookmarks`, :mod:`~wikitui.core.inbox.tables`, :mod:`~wikitui.core.inbox.mail`,
  :mod:`~wikitui.core.inbox.chat`, :mod:`~wikitui.core.inbox.transcripts`: the export readers.
- :mod:`~wikitui.core.inbox.ledger`: what was brought in already; :mod:`~wikitui.core.inbox.writer`: the files.
- :mod:`~wikitui.core.inbox.run`: a run (the feeds, or one import) and its report.
"""
