"""The instructions of ``ask``: answer the user's question from the wiki, with citations."""

from __future__ import annotations

from wikitui.core.agent.prompts.outputs import OUTPUTS

ASK = """\
Task: answer the user's question from the wiki.
Start from index.md above; search and read the pages you need (and the raw source when a page is thin or a \
quotation is needed). Answer in concise markdown with citations: [[Page Title]] for pages, raw/x.md for \
sources. Do not propose changes unless the user asks for them (a chart or a deck asked for is a request to \
propose it); if you notice a mistake in a page, mention it at the end.
""" + OUTPUTS


def ask_task() -> str:
    """Instructions for answering a question."""
    return ASK
