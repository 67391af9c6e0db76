"""The instructions of ``fold``: bring a filed answer's synthesis into the pages it cites (DESIGN §11).

``/file`` keeps the answer as a page, word for word; folding it in is the pattern's real
step: the comparisons, connections and conclusions the answer drew become part of the
concept and entity pages it rests on, proposed as edits and reviewed like an ingest.
The answer itself goes in the turn's message (:func:`fold_message`), the rules here.
"""

from __future__ import annotations

from wikitui.core.agent.prompts.system import CONTRADICTION_FORMAT

FOLD = """\
Task: fold an answer into the wiki. The user's message holds a question, the answer given to it, and the \
wiki pages the answer cites. Bring the answer's NEW synthesis (the connections, comparisons and conclusions \
it draws that the cited pages do not already say) into those concept and entity pages, as proposals the user \
reviews like an ingest:
1. Read each cited page first (read, by path) and compare it with the answer. Add to a page only what is new \
to it, in the page's own shape and voice, with the raw sources the answer rests on (add them to `sources:`) \
and a link to the filed answer page when there is one; bump `updated:`. Propose nothing for a page that \
already says it.
2. Use propose_edit with exact text copied from that fresh read; small edits, placed where they belong, each \
with the evidence it draws on (the source's exact words, read through tools, and their lines).
3. Where the answer disagrees with a page, never overwrite the page's claim: add one line next to it in the \
contradiction format, `{contradiction}`.
4. Before proposing any NEW page (an idea the answer names that has no page), `search` for its name and \
aliases and update the page you find instead.
5. Do not edit the filed answer page, index.md or log.md.
When everything is proposed, reply with a short summary of the changeset (file: why)."""


def fold_task() -> str:
    """Instructions for folding an answer into the pages it cites."""
    return FOLD.format(contradiction=CONTRADICTION_FORMAT)


def fold_message(question: str, answer: str, cited: list[tuple[str, str]], filed: tuple[str, str] | None) -> str:
    """The turn's message: the question, the answer, the pages it cites (``(path, title)``) and where it is filed
    (``(path, link target)``, None when it is not)."""
    pages = "\n".join(f"- {path} ([[{title}]])" for path, title in cited)
    where = (f"The answer is filed as {filed[0]} (link it as [[{filed[1]}]])." if filed
             else "The answer is not filed as a page.")
    return (f"Fold this answer into the pages it cites.\n\nQuestion: {question}\n\n<answer>\n{answer.strip()}\n"
            f"</answer>\n\nPages it cites:\n{pages}\n\n{where}")
