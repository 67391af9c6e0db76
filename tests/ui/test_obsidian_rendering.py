"""Pages render as Obsidian shows them (issue 24.5): math verbatim, highlights, footnotes, block and section
embeds, folded callouts that ``enter`` opens, task markers, inline #tags, image sizes, images in tables, and
wide tables that wrap at spaces. Each is checked on the screen a person sees, after the keys they press.
"""

from __future__ import annotations

import pytest

from tests.ui.test_pictures import make_picture
from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace
from wikitui.ui.widgets.page_view import PageView

RENDERING = r"""---
title: Obsidian Rendering
type: note
---

# Obsidian Rendering

Math inline $a \\ b_{1}$ and money $5 or $6.

$$
a & b\\
c \_ d
$$

A ==highlighted *phrase*== in a line. Tagged #camelCase and #area/sub, but #123 is an issue.

A claim[^1] and another[^note].

> [!faq]- Why is this folded?
> Because the answer is long.
> It has a second line.

- [ ] open task
- [x] done task
- [?] question task
- [-] cancelled task
- [/] half-done task
- [>] forwarded task

Block: ![[Embed Source#^key-point]]

Section: ![[Embed Source#Details]]

![[bands.png|40]]

| Name | Picture |
|---|---|
| Bands | ![[bands.png\|100x145]] |

| Approach | Context-efficiency | Notes |
|---|---|---|
| Retrieval | Context-efficiency is high when chunks are small | Works well for long documents |

[^1]: The *first* footnote.
[^note]: The second footnote.
"""

EMBED_SOURCE = """---
title: Embed Source
type: note
---

# Embed Source

Opening words.

The key point is that blocks embed. ^key-point

## Details

Details line one.

## After

Not part of the details. Loop: ![[Embed Loop#^loop]]
"""

EMBED_LOOP = """# Embed Loop

This embeds itself: ![[Embed Loop#^loop]] ^loop
"""


def rendering_vault(vault):
    """``vault`` with wiki/obsidian-rendering.md, the pages it embeds, and raw/bands.png (320x200)."""
    make_picture(vault / "raw" / "bands.png")
    (vault / "wiki" / "obsidian-rendering.md").write_text(RENDERING, encoding="utf-8")
    (vault / "wiki" / "embed-source.md").write_text(EMBED_SOURCE, encoding="utf-8")
    (vault / "wiki" / "embed-loop.md").write_text(EMBED_LOOP, encoding="utf-8")
    return vault


@pytest.fixture(autouse=True)
def half_blocks(monkeypatch):
    monkeypatch.setenv("WIKITUI_PICTURES", "halfcell")


async def open_rendering(pilot, app, path="wiki/obsidian-rendering.md") -> PageView:
    """Open the page and wait until its embeds (parts of pages, pictures) are drawn."""
    await wait_ready(pilot)
    app.main.open_path(path)
    page = app.query_one(PageView)
    await wait_for(pilot, lambda: len(page.document.pictures) >= 3, "the embeds to be drawn", timeout=20)
    await pilot.pause()
    page.focus()
    await pilot.pause()
    return page


def page_lines(page: PageView) -> list[str]:
    page.document.ensure_all()
    return [line.text for line in page.document.lines]


def roles_of(page: PageView, text: str) -> set[str]:
    """The roles of the pieces of the page whose text holds ``text``."""
    return {r for line in page.document.lines for t, roles, _ in line.segments if text in t for r in roles.split()}


async def test_math_is_shown_verbatim_inline_and_as_a_block(sample_vault):
    app = workspace(rendering_vault(sample_vault), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        page = await open_rendering(pilot, app)
        lines = page_lines(page)
        assert any("Math inline a \\\\ b_{1} and money $5 or $6." in t for t in lines)
        assert "a & b\\\\" in lines and "c \\_ d" in lines  # no markdown escape applied inside math
        assert "math" in roles_of(page, "a & b") and "math" in roles_of(page, "b_{1}")
        assert "a & b\\\\" in screen_text(app)


async def test_highlights_footnotes_tasks_and_tags(sample_vault):
    app = workspace(rendering_vault(sample_vault), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        page = await open_rendering(pilot, app)
        lines = page_lines(page)
        assert any("A highlighted phrase in a line." in t for t in lines)
        assert "mark" in roles_of(page, "highlighted") and {"mark", "em"} <= roles_of(page, "phrase")
        assert any("A claim[1] and another[2]." in t for t in lines)
        assert "footnote" in roles_of(page, "[1]")
        assert "[1] The first footnote." in lines and "[2] The second footnote." in lines
        for box, task in [("☐", "open"), ("☑", "done"), ("?", "question"), ("☒", "cancelled"), ("◐", "half-done"),
                          ("➤", "forwarded")]:
            assert f"{box} {task} task" in lines
        assert "tag" in roles_of(page, "#camelCase") and "tag" in roles_of(page, "#area/sub")
        assert "tag" not in roles_of(page, "#123")
        shown = screen_text(app)
        assert "A claim[1] and another[2]." in shown and "☒ cancelled task" in shown


async def test_a_block_and_a_section_embed_show_their_text_and_a_loop_stops(sample_vault):
    app = workspace(rendering_vault(sample_vault), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        page = await open_rendering(pilot, app)
        lines = page_lines(page)
        block = next(i for i, t in enumerate(lines) if "⧉ Embed Source > ^key-point" in t)
        assert lines[block + 1] == "┃ The key point is that blocks embed."  # the block, its ^id hidden
        section = next(i for i, t in enumerate(lines) if "⧉ Embed Source > Details" in t)
        shown = lines[section + 1 : section + 8]
        assert any("Details" in t for t in shown) and "┃ Details line one." in shown
        assert not any("Not part of the details" in t for t in lines)
        await pilot.press("end")
        await pilot.pause()
        app.main.open_path("wiki/embed-loop.md")
        await wait_for(pilot, lambda: page.document.pictures, "the loop's embed", timeout=20)
        loop = page_lines(page)
        embedded = [t for t in loop if t.startswith("┃")]
        assert sum("This embeds itself" in t for t in embedded) == 1  # shown once: the loop is not followed


async def test_a_folded_callout_shows_its_title_and_enter_opens_and_folds_it(sample_vault):
    app = workspace(rendering_vault(sample_vault), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        page = await open_rendering(pilot, app)
        shown = screen_text(app)
        assert "▸ Faq Why is this folded?" in shown
        assert "Because the answer is long." not in shown
        for _ in range(10):  # tab to the callout: links and fold titles are stops in reading order
            await pilot.press("tab")
            if page.selected_fold is not None:
                break
        assert page.selected_fold is not None and page.selected_link is None
        await pilot.press("enter")
        await pilot.pause()
        shown = screen_text(app)
        assert "▾ Faq Why is this folded?" in shown
        assert "Because the answer is long." in shown and "It has a second line." in shown
        await pilot.press("enter")
        await pilot.pause()
        shown = screen_text(app)
        assert "▸ Faq Why is this folded?" in shown and "Because the answer is long." not in shown
        await pilot.press("tab")  # on to the next stop: a link again
        assert page.selected_fold is None and page.selected_link is not None


async def test_an_image_s_size_is_honoured_and_an_image_in_a_table_stays_in_its_cell(sample_vault):
    app = workspace(rendering_vault(sample_vault), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        page = await open_rendering(pilot, app)
        lines = page_lines(page)
        sized = next(i for i, t in enumerate(lines) if t.strip() == "⧉ bands.png")
        assert set(lines[sized + 1].strip()) == {"▀"}
        assert len(lines[sized + 1].strip()) == 4  # |40 px at 10 px a cell: 4 columns (320 px unsized: 72)
        cell = next(i for i, t in enumerate(lines) if "│ Bands │" in t)
        assert "⧉ bands.png" in lines[cell] and lines[cell + 1].startswith("└")  # no picture between the rows
        assert not any("▀" in t for t in lines[cell - 3 : cell + 2])


async def test_a_wide_table_wraps_its_cells_at_spaces_and_hyphens_not_inside_words(sample_vault):
    import re

    app = workspace(rendering_vault(sample_vault), watch=False, index=False)
    async with app.run_test(size=(80, 24)) as pilot:
        page = await open_rendering(pilot, app)
        lines = page_lines(page)
        start = next(i for i, t in enumerate(lines) if "│ Approach" in t)
        rows = [t for t in lines[start : start + 14] if t.startswith("│")]
        source = "Approach Context-efficiency Notes Retrieval Context-efficiency is high when chunks are small " \
                 "Works well for long documents"
        whole = set(re.findall(r"[^\s-]*-+|[^\s-]+", source))  # the words, and the parts before and after a hyphen
        pieces = [p for row in rows for p in row.replace("│", " ").split()]
        assert len(rows) > 4  # it did wrap (the pane is narrower than the table)
        assert set(pieces) <= whole, set(pieces) - whole  # no word cut in the middle (no "Context-effici")
        assert "Context-" in pieces and "efficiency" in pieces


@pytest.mark.parametrize("where", ["top", "end"])
@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_snapshot_of_a_page_holding_every_obsidian_rendering(snap_compare, sample_vault, size, where):
    """The page alone on screen (side columns hidden), from its top and from its end."""
    rendering_vault(sample_vault)

    async def before(pilot):
        page = await open_rendering(pilot, pilot.app)
        await pilot.press("ctrl+b")  # the left column (below 110 columns the links panel and agent are hidden already)
        if size[0] >= 110:
            await pilot.press("ctrl+l", "ctrl+a")
        page.focus()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if where == "end":
            await pilot.press("end")
        await pilot.pause()

    assert snap_compare(workspace(sample_vault, watch=False, index=False), terminal_size=size, run_before=before)


def test_a_size_in_pixels_becomes_cells_by_the_terminal_s_cell_size():
    from wikitui.ui.markdown.pictures import MAX_COLUMNS, MAX_ROWS, picture_box, picture_size

    assert picture_box("100x145", (10, 20)) == (10, 8)  # 145 px high: 7.25 cells, rounded up
    assert picture_box("100", (8, 16)) == (13, MAX_ROWS)  # a width only: as tall as the shape makes it
    assert picture_box("a caption") == picture_box("") == (MAX_COLUMNS, MAX_ROWS)
    assert picture_box("9999x9999") == (MAX_COLUMNS, MAX_ROWS)  # never larger than a page draws
    assert picture_size("100x145", "wiki") == "100x145" and picture_size("Bands|100", "md") == "100"
    assert picture_size("Bands", "md") == ""


async def test_a_link_chosen_inside_a_folded_callout_opens_the_callout(sample_vault):
    rendering_vault(sample_vault)
    page_text = "# Folds\n\n> [!tip]- Hidden link\n> See [[Embed Source]] here.\n\nAfter [[Embed Loop]].\n"
    (sample_vault / "wiki" / "folds.md").write_text(page_text, encoding="utf-8")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/folds.md")
        page = app.query_one(PageView)
        await wait_for(pilot, lambda: "▸ Tip Hidden link" in screen_text(app), "the folded callout")
        page.focus()
        await pilot.press("tab")  # the fold's title first
        assert page.selected_fold is not None
        await pilot.press("tab")  # then the link after it: the hidden link is skipped
        assert page.selected_link is not None and page.links[page.selected_link].target == "Embed Loop"
        assert "See Embed Source here." not in screen_text(app)
        page.select_link(0)  # chosen from elsewhere (the links panel): its callout opens
        await pilot.pause()
        assert "▾ Tip Hidden link" in screen_text(app) and "See Embed Source here." in screen_text(app)
