"""wikitui: a terminal workspace for an LLM-maintained markdown wiki."""

__version__ = "0.1.0"
