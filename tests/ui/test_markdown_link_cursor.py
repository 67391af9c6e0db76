"""The link cursor shared by the page pane and the chat's answers, on its own (no app).

The page view and every chat message hold one :class:`LinkCursor`: which link is
selected, where each link leads (resolved once), and the role each link is painted with.
The last test checks both widgets paint the same text's links alike through it.
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from wikitui.core.vault.links import extract_links
from wikitui.ui.markdown.link_cursor import LinkCursor
from wikitui.ui.widgets.chat_message import ChatMessage
from wikitui.ui.widgets.page_view import PageView

TEXT = "See [[White Rabbit]], [[Nowhere Land]], [the book](https://example.com/alice) and [[Hatter#Tea|tea]].\n"
PAGES = {"White Rabbit": "wiki/white-rabbit.md", "Hatter": "wiki/hatter.md"}


class CountingResolver:
    """Resolves links against :data:`PAGES` and counts how often it is asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.pages = dict(PAGES)

    def __call__(self, link) -> str | None:
        self.asked.append(link.target)
        return self.pages.get(link.target)


def cursor(resolve=None) -> LinkCursor:
    return LinkCursor(extract_links(TEXT), resolve)


def test_each_link_gets_the_look_of_its_state():
    c = cursor(CountingResolver())
    assert [c.state(i) for i in range(4)] == ["link", "link-unresolved", "link-external", "link"]
    c.selected = 1
    assert c.state(1) == "link-selected"  # the cursor's look wins over unresolved
    c.selected = 2
    assert c.state(2) == "link-selected"  # and over external
    assert c.state(1) == "link-unresolved"


def test_without_a_resolver_every_wiki_link_counts_as_resolved_to_its_target():
    c = cursor()
    assert [c.state(i) for i in range(4)] == ["link", "link", "link-external", "link"]
    assert [c.target(i) for i in range(4)] == ["White Rabbit", "Nowhere Land", "https://example.com/alice", "Hatter"]


def test_targets_are_resolved_once_until_relinked():
    resolve = CountingResolver()
    c = cursor(resolve)
    assert c.target(0) == "wiki/white-rabbit.md" and c.target(1) is None
    assert c.target(2) == "https://example.com/alice"  # a URL is its own target: no lookup
    for i in range(4):
        c.state(i)
        c.target(i)
    assert resolve.asked == ["White Rabbit", "Nowhere Land", "Hatter"]

    resolve.pages = {**PAGES, "Nowhere Land": "wiki/nowhere-land.md"}  # the page was written since
    assert c.target(1) is None  # remembered
    c.relink()
    assert c.target(1) == "wiki/nowhere-land.md"
    assert c.state(1) == "link"


def test_another_text_clears_the_selection_a_grown_text_keeps_it():
    c = cursor(CountingResolver())
    c.selected = 3
    c.relink(extract_links(TEXT + "More about [[Alice]].\n"))  # an answer that grew
    assert c.selected == 3 and len(c.links) == 5
    c.reset(extract_links("Only [[Alice]].\n"), None)
    assert c.selected is None and [link.target for link in c.links] == ["Alice"]
    assert c.state(0) == "link" and c.target(0) == "Alice"


def test_stepping_wraps_around_both_ways():
    c = cursor()
    assert c.step(1) is None  # nothing selected: the widget decides where to start
    c.selected = 3
    assert c.step(1) == 0
    c.selected = 0
    assert c.step(-1) == 3
    assert c.step(2) == 2
    assert LinkCursor([], None).step(1) is None


@pytest.mark.parametrize("index", [4, -1, 100])
def test_a_link_that_does_not_exist_cannot_be_selected(index):
    with pytest.raises(IndexError, match=f"no link {index} on this page \\(4 links\\)"):
        cursor().check(index)
    cursor().check(None)
    cursor().check(3)


def test_links_found_later_are_seen_without_a_new_cursor():
    links = extract_links(TEXT)
    c = LinkCursor(links, None)
    links.extend(extract_links("\n\n[[Later]]\n"))  # a huge page appends links as it is laid out
    assert c.state(4) == "link" and c.target(4) == "Later"
    c.check(4)


class BothApp(App):
    def compose(self) -> ComposeResult:
        yield PageView()
        yield ChatMessage(TEXT, resolve=lambda link: PAGES.get(link.target))


async def test_the_page_and_an_answer_paint_the_same_links_alike():
    app = BothApp()
    async with app.run_test(size=(100, 30)) as pilot:
        page, answer = app.query_one(PageView), app.query_one(ChatMessage)
        page.show(TEXT, path="wiki/t.md", resolve=lambda link: PAGES.get(link.target))
        await pilot.pause()
        assert page.links == answer.links
        states = [page.link_cursor.state(i) for i in range(len(page.links))]
        assert states == [answer.link_cursor.state(i) for i in range(len(answer.links))]
        assert states == ["link", "link-unresolved", "link-external", "link"]
        page.select_link(1)
        answer.select_link(1)
        assert page.link_cursor.state(1) == answer.link_cursor.state(1) == "link-selected"
        with pytest.raises(IndexError):
            answer.select_link(9)
        with pytest.raises(IndexError):
            page.select_link(9)
