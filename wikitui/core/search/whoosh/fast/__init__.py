"""The Whoosh backend's fast path: the parts that read Whoosh's internals for speed.

Written against ``whoosh-reloaded`` 2.7.5: scoring the common queries straight
from the postings (``scoring``) and importing Whoosh without what it loads and
never uses (``loader``).
"""
