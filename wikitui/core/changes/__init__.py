"""Changes to the wiki: proposed, reviewed, written all-or-nothing, and undone (DESIGN §4, §8).

What this package owns:

- ``model``: a :class:`~wikitui.core.changes.model.Changeset` of file changes and
  their hunks; ``builder`` collects what the agent's ``propose_*`` tools ask for
  (with ``text_edits``, ``relink`` for moves and ``updated`` for the date hunk);
- ``diffs`` (+ ``hunk_groups``): hunks computed, chosen, written as a patch, merged
  three-way; ``disk_status``: whether a pending change still applies;
- ``assets`` + ``asset_proposals``: files that are not pages (a chart's picture, a
  binary file change: one hunk, never merged, git's binary patch; and its sidecar);
- ``pending``: changesets waiting for review, on disk;
- ``apply`` and ``undo``: the two ways pages are written, both through
  ``transaction`` (the write transaction), ``journal`` (all-or-nothing),
  ``recovery`` (a crashed step finished or rolled back), ``replace`` + ``exchange``
  + ``file_merge`` (compare before replace), ``lock`` (one writer per vault) and
  ``git`` (one commit per apply).

What it may import: ``wikitui.core.vault`` (and through it the files, pages and
graph), ``errors``, ``record``, ``faults``. Never ``search`` or ``agent`` (callers
update the search index after an apply), the UI, Textual or Rich.
"""
