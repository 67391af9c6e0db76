"""Obsidian's defaults in the page pane and the chat: a single newline is a line break,
and a bare ``https://`` URL is a link, a tab stop and an Outgoing entry (DESIGN §3)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace
from wikitui.ui.markdown.document import render_page
from wikitui.ui.screens.dialogs import ConfirmScreen
from wikitui.ui.widgets.chat_message import ChatMessage
from wikitui.ui.widgets.links_panel import LinksPanel
from wikitui.ui.widgets.page_view import PageView

POEM = """# Poem

How doth the little crocodile
Improve his shining tail,
And pour the waters of the Nile
On every golden scale!

- an item
  on two lines
> a quote
> on two lines
"""

LINKS = """# Links

Carroll's text is at https://www.gutenberg.org/ebooks/11, see also [[Alice]].
Not `https://code.example` nor %% https://comment.example %%.
"""


def lines_of(text: str, width: int = 80, **kwargs) -> list[str]:
    return [line.text.rstrip() for line in render_page(text, width, **kwargs).lines]


def test_a_single_newline_is_a_line_break_in_paragraphs_lists_and_quotes():
    lines = lines_of(POEM)
    assert lines[3:7] == [
        "How doth the little crocodile",
        "Improve his shining tail,",
        "And pour the waters of the Nile",
        "On every golden scale!",
    ]
    assert "• an item" in lines and "  on two lines" in lines
    assert lines[-2:] == ["▎ a quote", "▎ on two lines"]


def test_a_bare_url_is_a_link_with_its_tab_stop_and_code_keeps_urls_as_text():
    doc = render_page(LINKS, 100, path="wiki/links.md")
    assert [(k.kind, k.target) for k in doc.links] == [("url", "https://www.gutenberg.org/ebooks/11"), ("wiki", "Alice")]
    shown = ["".join(t for t, _r, link in line.segments if link == 0) for line in doc.lines]
    assert [s for s in shown if s] == ["https://www.gutenberg.org/ebooks/11"]  # the URL itself, not a "⟨…⟩" note
    roles = [r for line in doc.lines for t, r, link in line.segments if "code.example" in t]
    assert roles == ["code"] and not any("comment.example" in line for line in lines_of(LINKS))


class ChatApp(App):
    def compose(self) -> ComposeResult:
        yield ChatMessage("Two lines:\nthe second https://example.org/x here.")


async def test_chat_answers_share_the_line_breaks_and_bare_urls():
    app = ChatApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        message = app.query_one(ChatMessage)
        rows = [message.render_line(y).text.rstrip() for y in range(message.size.height)]
        assert rows[:2] == ["Two lines:", "the second https://example.org/x here."]
        assert [(k.kind, k.target) for k in message.links] == [("url", "https://example.org/x")]


async def test_tab_reaches_a_bare_url_the_outgoing_panel_lists_it_and_enter_asks_first(sample_vault):
    (sample_vault / "wiki" / "links.md").write_text(LINKS, encoding="utf-8")
    urls: list[str] = []
    app = workspace(sample_vault, urls=urls, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/links.md")
        page = app.query_one(PageView)
        await wait_for(pilot, lambda: app.main.current_path == "wiki/links.md", "the page")
        panel = app.query_one(LinksPanel)
        await wait_for(pilot, lambda: panel.counts()["outgoing"] == 2, "the outgoing list")
        panel.tab = "outgoing"
        await pilot.pause()
        assert "https://www.gutenberg.org/ebooks/11" in screen_text(app)
        await pilot.press("tab")
        assert page.selected_link == 0 and page.links[0].target == "https://www.gutenberg.org/ebooks/11"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        await pilot.press("y")
        assert urls == ["https://www.gutenberg.org/ebooks/11"]
