"""Batches: many sources ingested one after another through a queue that survives (DESIGN §13).

- :mod:`.queue`: the persistent queue, ``.wikitui/batches/<id>.json``, and its recovery.
- :mod:`.select`: which sources a folder, a glob or ``--new`` names, and which are skipped.
- :mod:`.estimate`: tokens and cost before the batch starts.
- :mod:`.runner`: the headless run: one pending changeset per source, caps, pauses, ctrl+c.
"""
