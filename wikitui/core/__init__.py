"""The wikitui core library: one open vault (``workspace``) and the subsystems below it.

``workspace.py`` is the object the command line, the TUI and the tests hold; under it,
``agent/`` (the LLM), ``changes/`` (changesets, the write transaction, undo, git),
``search/`` (the facade and its Whoosh backend), ``outputs/`` (charts, slides) and
``vault/`` (files, pages, links, the graph) — dependencies point down. Beside
them: ``mcp/`` (the vault served over MCP), ``live/`` (a running workspace's
heartbeat and search socket), ``batch/``, ``sync/``, ``eval/`` and ``config/`` (the
user's settings); at the bottom ``base/`` (errors, ``record``, ``words``, ``faults``,
``navigation``), shared by all.

Nothing in this package imports Textual or Rich: it is usable from a script, the
command line, the tests and the UI alike (the import contracts in pyproject.toml,
checked by ``tests/test_contracts.py``).
"""
