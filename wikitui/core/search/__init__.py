"""Full-text search: one facade in front of a search backend (DESIGN §5).

What this package owns:

- ``facade``: :class:`~wikitui.core.search.facade.SearchIndex`, what the CLI, the
  TUI and the agent's ``search`` tool call;
- ``results``: what a search returns and what an update did (plain values);
- ``documents``: a vault file turned into the fields a backend indexes, and its
  text read back for snippets (no search engine involved);
- ``whoosh/``: the Whoosh backend (``whoosh-reloaded``), with its fast path in
  ``whoosh/fast/``, the one place that reads Whoosh's internals.

What it may import: ``wikitui.core.vault``, ``errors``, ``record``; Whoosh only
inside ``whoosh/``, and only when a search or an update runs (importing the facade
costs nothing). Never ``changes``, ``agent``, the UI, Textual or Rich.
"""
