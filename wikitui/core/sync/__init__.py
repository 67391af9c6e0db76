"""Sync through git: the vault's upstream brought in and ours pushed, with wikitui's own merge (DESIGN §14).

Git is the engine (fetch, commits, push); wikitui decides how two sides' files
combine: pages three-way with the merge changesets are applied with (a conflict is
never written as markers: it is kept for the person to resolve, and nothing is
pushed until it is), log.md by the union of both sides' entries in date order,
index.md regenerated below its marker rather than merged. ``.wikitui/`` never
travels.

- :mod:`.repo`: the git plumbing (upstream, fetch, blobs, commits, push).
- :mod:`.combine`: how one path's three versions combine (pages, log.md, index.md).
- :mod:`.state`: conflicts waiting for the person, and their resolutions (``.wikitui/sync.json``).
- :mod:`.run`: one sync, start to end.
"""
