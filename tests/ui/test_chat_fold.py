"""``/file`` then ``/fold`` in the chat (issue 25 point 5): the answer filed, then folded into the pages it cites.

The fold is a model turn of its own: the agent reads the cited page and proposes the edit
that brings the answer's synthesis into it; the chat shows its card, as after an ingest.
"""

from __future__ import annotations

from tests.fakeserver import text, tool_call, tool_calls
from tests.ui.test_chat import ChatHost, notes, turn

ANSWER = "The Caucus-race parodies procedure: the [[Dodo]] runs it so that everybody wins (raw/chapter-03.md)."
OLD = "all procedure and no point (see [[Nonsense and Logic]])."
NEW = "all procedure and no point (see [[Nonsense and Logic]]), the first of the book's mock institutions."


async def test_file_offers_fold_and_fold_proposes_edits_to_the_cited_page(fake_llm, sample_vault):
    fake_llm.script(
        text(ANSWER),
        tool_call("read", path="wiki/characters/dodo.md"),
        tool_calls(("propose_edit", {"path": "wiki/characters/dodo.md", "reason": "the answer's synthesis",
                                     "edits": [{"old": OLD, "new": NEW}]})),
        text("wiki/characters/dodo.md: the race as the first mock institution."),
    )
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await turn(pilot, "What does the Caucus-race parody?")
        await turn(pilot, "/file")
        assert any("/fold folds the answer into the pages it cites" in n for n in notes(pane, "plan"))
        assert len(fake_llm.requests) == 1  # filing needs no model call
        await turn(pilot, "/fold")
        assert fake_llm.remaining == 0
        filed, folded = pane.chat_log.cards.values()
        assert filed.changeset.files[0].path.startswith("wiki/answers/")
        (change,) = folded.changeset.files
        assert change.path == "wiki/characters/dodo.md" and "mock institutions" in change.new_text
        assert folded.changeset.title.startswith("Fold in: What does the Caucus-race parody?")
        message = fake_llm.requests[1]["messages"][-1]["content"]
        assert ANSWER in message and filed.changeset.files[0].path in message
        await pilot.press("ctrl+r")  # reviewed like any ingest
        await pilot.pause()
        assert type(app.screen).__name__ == "ReviewScreen"
