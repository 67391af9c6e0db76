"""Outputs: what wikitui makes from the wiki for people to look at (DESIGN §9).

What this package owns:

- ``chart_spec``: the chart spec of the ``propose_chart`` tool, validated into a
  normal form, and the rule for where a chart may be written (``wiki/assets/*.png``);
- ``charts``: rendering a spec to PNG bytes with matplotlib (Agg, imported on first
  use), plus the sidecar ``<name>.chart.json`` that holds the spec; a spec is data,
  never code: no model-written code runs;
- ``slides``: a ``marp: true`` page split into slides, and ``export`` of a deck
  (marp-cli when it is on PATH, else ``deck_html``'s self-contained HTML deck);
- ``jsonstream``: JSON written as it is produced, for outputs that can be large
  (``lint --json``, ``links --json``).

What it may import: the standard library, ``wikitui.core.base.errors``, ``record``,
``vault.files``, ``vault.page`` and ``vault.visible_text`` (frontmatter), markdown-it-py; matplotlib only inside the
functions that render. Never Textual or Rich; never the agent or the UI. The files
it makes are returned as bytes/text (charts) or written where the user asked
(exports): putting a chart into a changeset is the caller's job.
"""
