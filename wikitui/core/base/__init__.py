"""What every layer of the core may use: it imports nothing of wikitui outside itself.

* :mod:`.errors`: the one small error hierarchy;
* :mod:`.record`: a base for small value classes;
* :mod:`.words`: counts in words (``1 hunk``, ``2 hunks``);
* :mod:`.faults`: fault injection for the crash tests;
* :mod:`.navigation`: back/forward history.
"""
