"""The Textual user interface of wikitui (the only package that imports Textual)."""
