"""A running workspace tells others it keeps the search index current (DESIGN §10 "a fast CLI").

* :mod:`.heartbeat`: the ``.wikitui/live`` file (who runs, since when, on which socket);
* :mod:`.server`: the Unix socket that answers ``wikitui search`` from the warm index.
"""
