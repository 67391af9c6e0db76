"""A Marp deck in the page pane: proposed by the model, applied, then shown slide by slide (DESIGN §9)."""

from __future__ import annotations

from tests.core.test_session import Chat
from tests.fakeserver import text, tool_call
from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace
from wikitui.core.workspace import Workspace
from wikitui.ui.widgets.page_view import PageView

DECK_PATH = "wiki/answers/alice-in-three-slides.md"
DECK = """\
---
title: Alice in three slides
type: answer
summary: The story told as a short deck
marp: true
paginate: true
---

# Down the rabbit hole

- Alice follows the [[White Rabbit]]
- She falls for a long time

---

<!-- _class: lead -->

# The tea party

- The [[Mad Hatter]] and the March Hare
- It is always six o'clock

<!-- Say why time stopped. -->

---

# Sources

- raw/chapter-07.md
"""


async def _propose_and_apply(fake_llm, sample_vault) -> None:
    fake_llm.script(
        tool_call("propose_page", path=DECK_PATH, content=DECK, reason="the deck asked for"),
        text("Proposed a three-slide deck."),
    )
    chat = Chat(sample_vault)
    done = await chat.session.ask("Make me a short slide deck of the story")
    assert done.changeset is not None
    with Workspace.open(sample_vault) as ws:
        ws.load_graph()
        ws.apply(done.changeset)


async def test_a_proposed_deck_is_shown_slide_by_slide_with_left_and_right(fake_llm, sample_vault):
    await _propose_and_apply(fake_llm, sample_vault)
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.screen.navigator.open_path(DECK_PATH)
        page = app.screen.query_one(PageView)
        await wait_for(pilot, lambda: page.slides is not None, "the deck")
        await pilot.pause()
        assert page.border_title == "Alice in three slides · answer · slide 1/3"
        shown = screen_text(app)
        assert "Down the rabbit hole" in shown and "The tea party" not in shown
        assert [link.target for link in page.links] == ["White Rabbit"]  # the tab stops are this slide's

        await pilot.press("right")
        assert page.border_title.endswith("slide 2/3")
        shown = screen_text(app)
        assert "The tea party" in shown and "Down the rabbit hole" not in shown
        assert "_class" not in shown and "Say why time stopped" not in shown  # directives and notes are not text
        await pilot.press("tab", "enter")  # a link of the slide is followed as on any page
        await wait_for(pilot, lambda: app.screen.navigator.display.current_path != DECK_PATH, "following the link")
        assert "hatter" in app.screen.navigator.display.current_path.lower()

        await pilot.press("backspace")
        await wait_for(pilot, lambda: app.screen.navigator.display.current_path == DECK_PATH, "going back")
        await pilot.press("right", "right", "right")  # stops at the last slide
        assert page.border_title.endswith("slide 3/3") and "Sources" in screen_text(app)
        await pilot.press("left")
        assert page.border_title.endswith("slide 2/3")


async def test_a_page_that_is_not_a_deck_has_no_slides(sample_vault):
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.screen.navigator.open_path("wiki/characters/alice.md")
        await pilot.pause()
        page = app.screen.query_one(PageView)
        assert page.slides is None and "slide" not in str(page.border_title)


def test_snapshot_a_slide_in_the_page_pane(sample_vault, snap_compare):
    # Written straight to disk: the agent's path is tested above, and its token counts would be in the picture.
    (sample_vault / DECK_PATH).write_text(DECK, encoding="utf-8")

    from tests.ui.test_workspace_snapshots import _settled

    async def open_second_slide(pilot):
        await _settled(pilot)
        pilot.app.screen.navigator.open_path(DECK_PATH)
        await pilot.pause()
        pilot.app.screen.query_one(PageView).focus()
        await pilot.press("right")
        # The deck's unlinked mentions are counted after it opens: "Unlinked (…)" until then.
        await _settled(pilot)

    app = workspace(sample_vault, watch=False, theme="wikitui-dark")
    assert snap_compare(app, terminal_size=(120, 36), run_before=open_second_slide)


async def test_a_search_hit_a_link_to_a_heading_and_the_outline_open_the_slide_that_holds_it(sample_vault):
    (sample_vault / DECK_PATH).write_text(DECK, encoding="utf-8")
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        navigator = app.screen.navigator
        page = app.screen.query_one(PageView)
        navigator.open_path(DECK_PATH, line=DECK.splitlines().index("# Sources") + 1)  # as a search hit opens it
        await wait_for(pilot, lambda: page.slides is not None, "the deck")
        assert page.border_title.endswith("slide 3/3")
        navigator.open_path(DECK_PATH, anchor="The tea party")  # as [[Alice in three slides#The tea party]]
        await pilot.pause()
        assert page.border_title.endswith("slide 2/3")
        heading = next(h for h in navigator.display.current_info.headings if h.text == "Down the rabbit hole")
        navigator.jump_to_heading(DECK_PATH, heading)  # chosen in the outline (ctrl+o)
        await pilot.pause()
        assert page.border_title.endswith("slide 1/3") and "Down the rabbit hole" in screen_text(app)


async def test_a_deck_edited_on_disk_stays_on_its_slide_and_a_shorter_one_shows_its_last(sample_vault):
    (sample_vault / DECK_PATH).write_text(DECK, encoding="utf-8")
    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        navigator = app.screen.navigator
        navigator.open_path(DECK_PATH)
        page = app.screen.query_one(PageView)
        await pilot.pause()
        page.focus()
        await pilot.press("right")
        (sample_vault / DECK_PATH).write_text(DECK.replace("six o'clock", "tea-time"), encoding="utf-8")
        navigator.redisplay(changed=True)  # what the watcher does when the file changes
        await pilot.pause()
        assert page.border_title.endswith("slide 2/3") and "tea-time" in screen_text(app)
        await pilot.press("right")
        short = DECK.split("\n---\n\n<!-- _class")[0] + "\n"  # the first slide only
        (sample_vault / DECK_PATH).write_text(short, encoding="utf-8")
        navigator.redisplay(changed=True)
        await pilot.pause()
        assert page.border_title.endswith("slide 1/1")
        navigator.open_path("wiki/characters/alice.md")
        await pilot.pause()
        assert page.slides is None and "slide" not in str(page.border_title)
