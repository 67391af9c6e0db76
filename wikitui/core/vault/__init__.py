"""The vault on disk: its folders, files, pages and what links them (DESIGN §2).

What this package owns:

- ``layout``: the :class:`~wikitui.core.vault.layout.Vault` (where the wiki, raw/
  and ``.wikitui/`` are; scanning; which paths may be written) and ``statedir``
  (``.wikitui/`` kept out of git); ``create`` lays out a new vault (``wikitui init``);
- ``files``: atomic, confined writes and tolerant reads (every write goes through it);
- ``page`` (+ ``flat_yaml``, ``frontmatter_edit``): one page parsed (frontmatter,
  title, headings, links) and frontmatter edits that keep the other bytes;
- ``links``, ``graph`` (+ ``graph_cache``, ``mentions``): links found, resolved
  and indexed both ways;
- ``catalog`` (index.md), ``log_md`` (log.md), ``lint`` (the deterministic checks, each a
  ``problem``; those reading page text in ``lint_text``: ``contradictions``, ``duplicates``,
  cached by ``text_facts``), ``staleness`` (which sources a page draws on and whether they
  changed since the page was written or reviewed),
  ``natural_order`` (how trees sort);
- ``formats/``: raw sources in any format turned into markdown text.

What it may import: the standard library, ``wikitui.core.base.errors``, ``record`` and
``faults``, and its own modules. Never ``changes``, ``search``, ``agent``, the UI,
Textual or Rich: the other subsystems build on the vault, not the other way round.
"""
