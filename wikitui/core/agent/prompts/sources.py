"""What the agent is told about sources that are not markdown (DESIGN §9): how they read, how to cite a page."""

from __future__ import annotations

#: One rule of the system prompt (appended to :data:`~wikitui.core.agent.prompts.system.ROLE`).
RULE = """\
- PDFs, web pages, Word/PowerPoint/Excel files, CSV and JSON in raw/ are read as text converted from them; \
a PDF's text has a `[page N]` line before each page (a deck `[slide N]`). Cite a page of such a source as \
raw/x.pdf#page=3 (in a page: [[raw/x.pdf#page=3]]), the page whose marker comes before the words you cite. \
A file that cannot be converted (encrypted, scanned with no text) says so in one line: say that, never guess \
its contents. A picture comes as the picture itself when you can see images, else as a one-line description."""
