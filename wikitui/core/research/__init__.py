"""Research: web search for sources, proposed as URLs the person accepts or rejects (DESIGN §9).

:mod:`~wikitui.core.research.provider` reaches the search engine (SearXNG or the Brave
Search API) with a total deadline; :mod:`~wikitui.core.research.proposals` keeps what a
turn proposed until the person decides, and clips only the URLs accepted.
"""
