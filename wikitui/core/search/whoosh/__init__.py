"""The Whoosh search backend: schema and analysis, the index on disk, queries, snippets.

Every module here imports Whoosh; the facade imports them only when a search or an
update runs. Whoosh's private attributes are read only in ``fast/``, which checks
the installed version first.
"""
