"""The page pane in a running app: link cursor, following, scrolling, big and broken pages."""

from __future__ import annotations

import textwrap

import pytest
from textual.app import App, ComposeResult

from wikitui.core.vault.links import Link
from wikitui.ui.widgets.page_view import PageView

#: Targets that exist in the pretend vault; everything else is unresolved.
KNOWN = {
    "white rabbit": "wiki/characters/white-rabbit.md",
    "mad hatter": "wiki/characters/mad-hatter.md",
    "march hare": "wiki/characters/march-hare.md",
    "dormouse": "wiki/characters/dormouse.md",
    "chapter 7: a mad tea-party": "wiki/sources/chapter-07.md",
    "../characters/alice.md": "wiki/characters/alice.md",
    "time": "wiki/themes/time.md",
}

TEA_PARTY = textwrap.dedent(
    """\
    ---
    title: "The March Hare's House"
    type: place
    tags: [tea, chapter-7]
    summary: "Where it is always six o'clock and always tea-time."
    ---

    # The March Hare's House

    The [[Mad Hatter]], the [[March Hare|Hare]] and the [[Dormouse]] keep a tea-table
    here that never gets cleared, because [[Time]] stopped at six o'clock
    ([[Chapter 7: A Mad Tea-Party#The riddle|Chapter 7]]). [Alice](../characters/alice.md)
    arrives uninvited; the [original text](https://www.gutenberg.org/ebooks/11) has it all.

    ## The riddle

    > "Why is a raven like a writing-desk?" The [[Raven and Writing-Desk]] riddle has no answer.

    1. The Hatter's watch is **two days wrong**
    2. The Dormouse is put *into the teapot*
       - with `butter` that was "the best butter"

    | Guest | Seat | Cups |
    |:------|:----:|-----:|
    | [[Mad Hatter]] | head | 12 |
    | [[Dormouse]] | middle | 1 |

    ```python
    def six_oclock(time: int) -> bool:
        return True  # always tea-time
    ```

    ![[tea-table.png]]
    """
)


def resolve(link: Link) -> str | None:
    return KNOWN.get(link.target.lower())


class PageApp(App):
    """One PageView, recording the messages it posts."""

    def __init__(self, text: str = TEA_PARTY, path: str = "wiki/places/march-hares-house.md", **show) -> None:
        super().__init__()
        self.text, self.path, self.show_kwargs = text, path, show
        self.activated: list[PageView.LinkActivated] = []
        self.highlighted: list[PageView.LinkHighlighted] = []

    def compose(self) -> ComposeResult:
        yield PageView()

    def on_mount(self) -> None:
        view = self.query_one(PageView)
        view.show(self.text, path=self.path, resolve=resolve, **self.show_kwargs)
        view.focus()

    def on_page_view_link_activated(self, message: PageView.LinkActivated) -> None:
        self.activated.append(message)

    def on_page_view_link_highlighted(self, message: PageView.LinkHighlighted) -> None:
        self.highlighted.append(message)


def screen_lines(view: PageView) -> list[str]:
    """What the view shows, one string per row."""
    return ["".join(seg.text for seg in view.render_line(y)).rstrip() for y in range(view.size.height)]


def long_page(sections: int) -> str:
    return "".join(
        f"## Part {n}\n\nParagraph {n} links [[Page {n}a]] and [[Page {n}b]].\n\n" + "Filler line.\n\n" * 6
        for n in range(sections)
    )


async def test_tab_walks_the_links_in_reading_order_and_wraps():
    app = PageApp()
    async with app.run_test(size=(100, 60)) as pilot:
        view = app.query_one(PageView)
        assert view.selected_link is None  # the cursor starts on no link
        count = len(view.links)
        assert count == 11
        for _ in range(count + 1):
            await pilot.press("tab")
        await pilot.pause()
        assert [m.link_index for m in app.highlighted] == [*range(count), 0]
        assert [m.link.target for m in app.highlighted[:3]] == ["Mad Hatter", "March Hare", "Dormouse"]
        await pilot.press("shift+tab")
        await pilot.pause()
        assert view.selected_link == count - 1
        assert app.highlighted[-1].link is view.links[-1]


async def test_the_selected_link_is_painted_differently():
    app = PageApp()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(PageView)
        row = view.document.link_first[0]
        (_, x0, _x1), *_ = view.document.lines[row].link_spans()

        def style_at_link() -> object:
            x = 0
            for seg in view.render_line(row):
                if x >= x0:
                    return seg.style
                x += len(seg.text)

        before = style_at_link()
        await pilot.press("tab")
        await pilot.pause()
        assert view.selected_link == 0
        assert style_at_link() != before


async def test_resolved_unresolved_and_external_links_look_different():
    app = PageApp()
    async with app.run_test(size=(100, 40)):
        view = app.query_one(PageView)
        states = {view.link_cursor.state(i) for i in range(len(view.links))}
        assert states == {"link", "link-unresolved", "link-external"}
        kinds = {}
        for i, state in enumerate(view.link_cursor.state(i) for i in range(len(view.links))):
            kinds.setdefault(state, i)
        styles = {state: view._painter.styles.get("", state) for state in kinds}
        assert len(set(styles.values())) == 3
        assert view.link_target(kinds["link-unresolved"]) is None
        assert view.links[kinds["link-unresolved"]].target == "Raven and Writing-Desk"


async def test_first_tab_takes_the_first_link_at_or_below_the_top_after_scrolling():
    app = PageApp(long_page(40), path="wiki/long.md")
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(PageView)
        for _ in range(5):
            await pilot.press("pagedown")
        await pilot.pause()
        top = view.scroll_offset.y
        assert top > 0
        await pilot.press("tab")
        await pilot.pause()
        chosen = view.selected_link
        first = view.document.link_first
        assert first[chosen] >= top
        assert all(first[i] < top for i in range(chosen))
        assert view.scroll_offset.y == top  # the link was already in view


async def test_shift_tab_from_no_link_takes_the_last_link_above_the_bottom():
    app = PageApp(long_page(40), path="wiki/long.md")
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(PageView)
        bottom = view.scroll_offset.y + view.scrollable_content_region.height
        await pilot.press("shift+tab")
        await pilot.pause()
        chosen = view.selected_link
        first = view.document.link_first
        assert first[chosen] < bottom <= first[chosen + 1]


async def test_the_view_scrolls_to_keep_the_selected_link_visible():
    app = PageApp(long_page(40), path="wiki/long.md")
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(PageView)
        height = view.scrollable_content_region.height
        for _ in range(12):
            await pilot.press("tab")
            await pilot.pause()
            row = view.document.link_first[view.selected_link]
            assert view.scroll_offset.y <= row < view.scroll_offset.y + height
        assert view.scroll_offset.y > 0
        await pilot.press("shift+tab", "shift+tab")
        await pilot.pause()
        row = view.document.link_first[view.selected_link]
        assert view.scroll_offset.y <= row < view.scroll_offset.y + height
        assert f"Page {view.selected_link // 2}" in screen_lines(view)[row - view.scroll_offset.y]


async def test_enter_follows_the_selected_link():
    app = PageApp()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(PageView)
        await pilot.press("enter")  # no link selected: nothing to follow
        await pilot.press("tab", "tab", "enter")
        await pilot.pause()
        assert len(app.activated) == 1
        message = app.activated[0]
        assert message.link_index == 1
        assert message.link is view.links[1]
        assert (message.link.target, message.link.label) == ("March Hare", "Hare")
        assert message.control is view


async def test_clicking_a_link_selects_and_follows_it():
    app = PageApp()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(PageView)
        index = next(i for i, link in enumerate(view.links) if link.target == "Time")
        row = view.document.link_first[index]
        (_, x0, _x1), *_ = [s for s in view.document.lines[row].link_spans() if s[0] == index]
        left = view.styles.padding.left
        assert await pilot.click(PageView, offset=(left + x0 + 1, row - view.scroll_offset.y))
        await pilot.pause()
        assert view.selected_link == index
        assert [m.link_index for m in app.activated] == [index]
        assert await pilot.click(PageView, offset=(left, view.size.height - 1))  # empty space
        await pilot.pause()
        assert len(app.activated) == 1


async def test_scroll_to_anchor_and_line():
    app = PageApp(long_page(40), path="wiki/long.md")
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(PageView)
        assert view.scroll_to_anchor("part 30")
        await pilot.pause()
        assert screen_lines(view)[0] == "Part 30"
        assert not view.scroll_to_anchor("No Such Heading")
        assert view.scroll_to_line(1)
        await pilot.pause()
        assert view.scroll_offset.y == 0
        assert not view.scroll_to_line(10**6)


async def test_show_can_open_at_an_anchor():
    app = PageApp(long_page(40), path="wiki/long.md", anchor="Part 12")
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        assert screen_lines(app.query_one(PageView))[0] == "Part 12"


async def test_show_can_restore_a_remembered_scroll_position():
    app = PageApp(long_page(40), path="wiki/long.md", scroll_y=37)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        assert app.query_one(PageView).scroll_offset.y == 37


async def test_switching_theme_repaints_links_in_the_new_colours():
    app = PageApp()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(PageView)
        row = view.document.link_first[0]

        def link_color() -> object:
            return next(seg.style.color for seg in view.render_line(row) if seg.text == "Mad Hatter")

        before = link_color()
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        assert link_color() != before


async def test_resizing_rewraps_and_keeps_the_place():
    app = PageApp(long_page(40), path="wiki/long.md")
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(PageView)
        view.scroll_to_anchor("Part 20")
        await pilot.pause()
        await pilot.resize_terminal(30, 20)
        await pilot.pause()
        lines = screen_lines(view)
        assert lines[0] == "Part 20"
        assert max(len(line) for line in lines) <= 30


GEWERBE = textwrap.dedent(
    """\
    ---
    tags: [einkommensteuer, estg, gewerbebetrieb]
    ---

    # Gewerbebetrieb

    Ein Gewerbebetrieb ist nach § 15 Abs. 2 EStG eine selbständige nachhaltige Betätigung
    ([[Gewinnerzielungsabsicht]]), siehe [[Gewerblich geprägte Personengesellschaft]].
    """
)


@pytest.mark.parametrize("columns", [14, 17, 24, 40])
async def test_a_narrow_pane_shows_every_character_of_a_long_word(columns):
    # At 14 columns (a squeezed page pane) "Gewerbebetrieb" showed as "Gewerbebetr|eb":
    # lines were laid out 12 cells wide in an 11-cell view, and the edge cut the 12th.
    app = PageApp(GEWERBE, path="wiki/concepts/gewerbebetrieb.md")
    async with app.run_test(size=(columns, 60)) as pilot:
        await pilot.pause()
        view = app.query_one(PageView)
        lines = screen_lines(view)
        joined = "".join(line.strip() for line in lines)
        for word in ("#einkommensteuer", "#gewerbebetrieb", "Gewerbebetrieb", "Gewinnerzielungsabsicht",
                     "Personengesellschaft", "selbständige", "Betätigung"):
            assert word in joined, (word, lines)
        assert len(view.document.lines) < 60  # the whole page was on screen


async def test_a_5mb_page_shows_its_first_screen_without_freezing():
    big = long_page(1)
    big = big * (5_000_000 // len(big) + 1)
    app = PageApp("", path="wiki/big.md")
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(PageView)
        view.show(big, path="wiki/big.md", resolve=resolve)  # bench/page_view.py times it
        await pilot.pause()
        assert not view.document.complete  # the rest is laid out in the background
        assert screen_lines(view)[0] == "Part 0"
        await pilot.press("tab")
        assert view.selected_link == 0
        await pilot.press("end")
        assert view.scroll_offset.y > 0


def one_paragraph(size: int) -> str:
    """A page that is a single paragraph of about ``size`` characters, with a link every ~200."""
    return "".join(
        "The Hatter's watch ran two days slow, and tea went on at the long table;\n"
        f"[[Page {n}|guest {n}]] came in, *sat down* and asked for butter, then\n"
        "left before the Dormouse woke. Nobody minded: it was always six.\n"
        for n in range(size // 200 + 1)
    )


@pytest.mark.timeout(90)
@pytest.mark.parametrize("shape", ["soft-wrapped lines", "one line"])
async def test_a_5mb_single_paragraph_page_shows_its_top_and_end_then_home_work(shape):
    big = one_paragraph(5_000_000)
    if shape == "one line":
        big = big.replace("\n", " ")
    app = PageApp("", path="wiki/big.md")
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(PageView)
        view.show(big, path="wiki/big.md", resolve=resolve)  # bench/page_view.py times it
        await pilot.pause()
        top = screen_lines(view)
        if shape == "one line":  # readable, and it says what is missing
            assert top[0] == "⚠ 1 line longer than 10,000 characters is shown cut short"
            assert top[2].startswith("The Hatter's watch ran two days slow")
        else:
            assert top[0] == "The Hatter's watch ran two days slow, and tea went on at the long table;"
            assert top[1].startswith("guest 0 came in")  # a single newline is a line break
            assert not view.document.complete  # the rest is laid out piece by piece
        await pilot.press("end")
        assert view.scroll_offset.y > 0
        await pilot.press("home")  # handled between layout slices (bench/page_view.py: the loop's stalls)
        await pilot.pause()
        assert view.scroll_offset.y == 0 and screen_lines(view) == top
        await pilot.press("tab")
        assert view.selected_link == 0


async def test_broken_frontmatter_shows_a_visible_warning():
    app = PageApp("---\ntitle: [oops\n---\n\nStill readable, with [[Dormouse]].\n", path="wiki/bad.md")
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        lines = screen_lines(app.query_one(PageView))
        assert lines[0].startswith("⚠ The frontmatter does not parse")
        assert "Still readable, with Dormouse." in lines


async def test_a_raw_file_is_shown_as_numbered_source():
    app = PageApp("def f():\n    return 1\n", path="raw/code.py", read_only_source="python")
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        view = app.query_one(PageView)
        assert screen_lines(view)[:2] == ["1 │ def f():", "2 │     return 1"]
        assert view.links == []


ALICE = (
    "# CHAPTER I. Down the Rabbit-Hole\n\n"
    "Alice was beginning to get very tired of sitting by her sister on the\n"
    "bank, and of having nothing to do: once or twice she had peeped into the\n"
    "book her sister was reading, but it had no pictures or conversations in\n\n"
    "picking the daisies, when suddenly a White Rabbit with pink eyes ran\n"
    "    an indented line that is long enough to wrap somewhere in the middle\n"
)


def source_rows(lines: list[str]) -> dict[int, list[str]]:
    """The numbered source view's rows: line number -> its pieces (the gutter removed)."""
    rows: dict[int, list[str]] = {}
    number = 0
    for line in lines:
        if "│" not in line:
            continue
        gutter, _, text = line.partition("│")
        text = text[1:]  # the space after the bar
        if gutter.strip():
            number = int(gutter)
            rows[number] = []
        rows[number].append(text)
    return rows


async def test_the_raw_source_view_wraps_at_word_boundaries_and_rewraps_on_resize():
    # It broke words at a fixed width: "onc|e", "W|hite Rabbit".
    app = PageApp(ALICE, path="raw/chapter-01.md", read_only_source="markdown")
    async with app.run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        view = app.query_one(PageView)
        for columns in (60, 37, 44, 23):
            await pilot.resize_terminal(columns, 40)
            await pilot.pause()
            lines = screen_lines(view)
            rows = source_rows(lines)
            assert len(rows) == len(ALICE.split("\n"))
            for number, source in enumerate(ALICE.split("\n"), 1):
                pieces = rows[number]
                assert " ".join(pieces).split() == source.split(), (columns, pieces)
                assert all(len(piece) <= view.scrollable_content_region.width for piece in pieces)
            assert max(len(line) for line in lines) <= view.scrollable_content_region.width
            assert any(len(pieces) > 1 for pieces in rows.values()), columns  # it did wrap
            assert rows[8][0].startswith("    an indented")  # indentation is kept


async def test_show_message_replaces_the_page_and_clears_the_cursor():
    app = PageApp()
    async with app.run_test(size=(80, 12)) as pilot:
        view = app.query_one(PageView)
        await pilot.press("tab")
        view.show_message("Page deleted", "wiki/places/march-hares-house.md no longer exists.")
        await pilot.pause()
        text = "\n".join(screen_lines(view))
        assert "Page deleted" in text and "no longer exists" in text
        assert view.links == [] and view.selected_link is None
        assert app.highlighted[-1].link is None
        await pilot.press("tab", "enter")
        assert app.activated == []


def test_snapshot_page_80x24_with_a_link_selected(snap_compare):
    assert snap_compare(PageApp(), terminal_size=(80, 24), press=["tab", "tab"])


def test_snapshot_page_120x40_with_a_link_selected(snap_compare):
    assert snap_compare(PageApp(), terminal_size=(120, 40), press=["tab", "tab", "tab", "tab", "tab"])
