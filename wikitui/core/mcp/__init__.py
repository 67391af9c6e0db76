"""``wikitui mcp``: the vault served to other agents over MCP (DESIGN §10).

* :mod:`.session`: what is served (tools, resources, the session's changeset), plain Python;
* :mod:`.early`: the first requests answered before the SDK has loaded;
* :mod:`.server`: the glue onto the official ``mcp`` SDK (the only module that imports it).
"""
