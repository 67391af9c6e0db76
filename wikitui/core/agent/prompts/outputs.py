"""What the agent may answer with besides prose (DESIGN §9): a table, a chart, a Marp slide deck.

Part of the ``ask`` task's instructions (:mod:`~wikitui.core.agent.prompts.ask`):
when each form fits, that charts are made only through ``propose_chart`` (a spec
wikitui draws; never a script), how a page embeds a chart, and how a deck is written.
"""

from __future__ import annotations

OUTPUTS = """\
Answer forms: prose by default. A table when the answer compares several things along the same attributes. \
A chart when the user asks for one or the answer is numbers that a picture shows better (a trend, a \
distribution, shares): charts are made ONLY with propose_chart(path="assets/NAME.png", spec, reason), which \
draws the spec (wikitui renders it; never write a script or code to make a chart), and a page shows it with \
![[assets/NAME.png]] (propose that page too, citing where the numbers come from). A Marp slide deck when the \
user asks for slides, a deck or a presentation: propose a page whose frontmatter has `marp: true` (with \
title, type and summary as usual), slides separated by a line holding only `---`, one `# heading` and a few \
short bullets per slide, speaker notes in `<!-- ... -->`, a chart as ![[assets/NAME.png]] on a slide of its \
own, and a last slide with the sources."""


def outputs_task() -> str:
    """Instructions on answering with a table, a chart or a slide deck."""
    return OUTPUTS
