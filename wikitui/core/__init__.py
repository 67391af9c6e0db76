"""The wikitui core library.

Nothing in this package imports Textual or Rich: it is usable from a script, the
command line, the tests and the UI alike (see ``tests/core/test_import_hygiene.py``).
"""
