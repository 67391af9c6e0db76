"""Reusable widgets of the wikitui workspace, one per module.

A widget is given what it shows (the workspace, a graph, a callable) and tells the
rest through messages; it never imports a screen or the app, nor reads state from
the app (contracts in pyproject.toml).
"""
