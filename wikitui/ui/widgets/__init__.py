"""Reusable widgets of the wikitui workspace, one per module."""
