"""`g` opens the open page's graph: arrows along edges, `enter` opens a node's page, `+`/`-` rings, `f` filters,
`w` the whole wiki (issue 27.1)."""

from __future__ import annotations

from tests.core.graph_util import graph_vault
from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace
from wikitui.ui.screens.graph import GraphScreen
from wikitui.ui.widgets.graph_canvas import GraphCanvas
from wikitui.ui.widgets.page_view import PageView

T = "wiki/concepts/transformer.md"
SA, QKV, BERT, GPT = ("wiki/concepts/self-attention.md", "wiki/concepts/query-key-value.md", "wiki/models/bert.md",
                      "wiki/models/gpt.md")
ARROWS = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}


async def open_graph(pilot, path: str = T) -> GraphScreen:
    app = pilot.app
    await wait_ready(pilot)
    app.main.open_path(path)
    await pilot.pause()
    await pilot.press("g")
    await wait_for(pilot, lambda: isinstance(app.screen, GraphScreen) and app.screen.model is not None, "the graph")
    await pilot.pause()
    return app.screen


async def test_g_shows_the_page_in_the_middle_with_its_links_and_backlinks(tmp_path):
    app = workspace(graph_vault(tmp_path / "v"), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_graph(pilot)
        text = screen_text(app)
        assert "Graph · Transformer · depth 1 · 5 neighbours · 6 links" in text
        for label in ("Self-Attention", "BERT", "Encoder", "Missing Idea", "Index"):
            assert label in text
        assert "Query Key Value" not in text  # two steps away: not at depth 1
        canvas = screen.query_one(GraphCanvas)
        picture = canvas.picture
        assert canvas.selected == T
        # The page sits in the middle of the canvas; the edges are braille dots.
        col, row = picture.cells[T]
        assert abs(col - picture.width / 2) <= 2 and abs(row - picture.height / 2) <= 2
        assert any("\u2800" < ch <= "\u28ff" for ch in picture.text())
        # The unresolved target is hollow and styled apart; the selected node's line says what it is.
        col, row = picture.cells["?Missing Idea"]
        assert picture.chars[row][col] == "○" and picture.roles[row][col] == "node-unresolved"
        assert "Transformer · concept · 5 links · wiki/concepts/transformer.md" in text
        # Colours from the theme: nodes in its link colour, unresolved targets in its unresolved-link colour.
        from textual.color import Color

        variables = app.theme_variables
        node = canvas.get_component_rich_style("graph-canvas--node")
        lost = canvas.get_component_rich_style("graph-canvas--node-unresolved")
        assert node.color.triplet == Color.parse(variables["wikitui-link"]).rich_color.triplet
        assert lost.color.triplet == Color.parse(variables["wikitui-link-unresolved"]).rich_color.triplet
        edge = canvas.get_component_rich_style("graph-canvas--edge").color
        lost_edge = canvas.get_component_rich_style("graph-canvas--edge-unresolved").color
        assert edge is not None and lost_edge is not None and edge != lost_edge  # a link to nowhere looks apart
        app.theme = "wikitui-light"
        await pilot.pause()
        assert canvas.get_component_rich_style("graph-canvas--node").color.triplet == Color.parse(
            app.theme_variables["wikitui-link"]).rich_color.triplet
        assert canvas.get_component_rich_style("graph-canvas--edge").color != edge  # the edges follow the theme


async def test_arrows_move_along_edges_and_enter_opens_the_page_from_disk(tmp_path):
    root = graph_vault(tmp_path / "v")
    app = workspace(root, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_graph(pilot)
        canvas = screen.query_one(GraphCanvas)
        reached = set()
        for key, (wx, wy) in ARROWS.items():
            canvas.select(T)
            await pilot.pause()
            before = canvas.picture.dots[T]
            await pilot.press(key)
            await pilot.pause()
            if canvas.selected == T:
                continue  # nothing lies that way
            reached.add(canvas.selected)
            # Along an edge from the centre, and in the direction pressed.
            assert canvas.selected in screen.model.neighbours(T)
            after = canvas.picture.dots[canvas.selected]
            assert (after[0] - before[0]) * wx + (after[1] - before[1]) * wy > 0
        assert len(reached) >= 3
        # Walk to a page other than the centre, and open it.
        target = next(n for n in sorted(reached) if not n.startswith("?"))
        canvas.select(target)
        await pilot.pause()
        assert target.split("/")[-1] in screen_text(app) or screen.model.nodes[target].label in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, GraphScreen), "the graph to close")
        await wait_for(pilot, lambda: app.main.current_path == target, "the page to open")
        title = screen.model.nodes[target].label
        assert title in (root / target).read_text(encoding="utf-8")
        assert title in app.main.query_one(PageView).border_title or title in screen_text(app)


async def test_enter_on_an_unresolved_target_says_it_has_no_page(tmp_path):
    app = workspace(graph_vault(tmp_path / "v"), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_graph(pilot)
        screen.query_one(GraphCanvas).select("?Missing Idea")
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("has no page yet" in n for n in notices(app)), "the notice")
        assert isinstance(app.screen, GraphScreen)
        assert "unresolved: no page yet" in screen_text(app)


async def test_plus_and_minus_change_the_depth(tmp_path):
    app = workspace(graph_vault(tmp_path / "v"), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_graph(pilot)
        await pilot.press("plus")
        await wait_for(pilot, lambda: screen.model.depth == 2, "the second ring")
        await pilot.pause()
        text = screen_text(app)
        assert "depth 2 · 8 neighbours" in text and "Query Key Value" in text and "GPT" in text
        picture = screen.query_one(GraphCanvas).picture
        col, row = picture.cells["wiki/notes/lonely.md"]  # an orphan (only index.md links it): styled apart
        assert picture.chars[row][col] == "◦" and picture.roles[row][col] == "node-orphan"
        await pilot.press("minus")
        await wait_for(pilot, lambda: screen.model.depth == 1, "one ring")
        await pilot.pause()
        assert "Query Key Value" not in screen_text(app)


async def test_f_filters_by_type_or_tag(tmp_path):
    app = workspace(graph_vault(tmp_path / "v"), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_graph(pilot)
        await pilot.press("plus")
        await wait_for(pilot, lambda: screen.model.depth == 2, "the second ring")
        await pilot.press("f", *"entity", "enter")
        await wait_for(pilot, lambda: screen.keep.active and set(screen.model.nodes) == {T, BERT, GPT}, "the filter")
        await pilot.pause()
        text = screen_text(app)
        assert "filter type:entity (4 hidden)" in text and "Self-Attention" not in text and "GPT" in text
        await pilot.press("f", *" #ml", "enter")  # the filter typed before is offered again: add a tag
        await wait_for(pilot, lambda: SA in screen.model.nodes, "the tag")
        await pilot.press("f", "ctrl+u", "enter")  # empty: everything again
        await wait_for(pilot, lambda: not screen.keep.active and QKV in screen.model.nodes, "no filter")
        # esc in the filter closes the filter, not the graph; letters typed there do not act as keys.
        await pilot.press("f", "w", "escape")
        await pilot.pause()
        assert isinstance(app.screen, GraphScreen) and not screen.whole and not screen.keep.active
        assert not screen.query_one("#graph-filter").has_class("shown")


async def test_w_shows_the_whole_wiki_clustered_and_the_palette_opens_it(tmp_path):
    root = graph_vault(tmp_path / "v")
    app = workspace(root, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_graph(pilot)
        await pilot.press("w")
        await wait_for(pilot, lambda: screen.whole and screen.model is not None, "the whole wiki")
        await pilot.pause()
        text = screen_text(app)
        assert "Whole wiki · 9 pages in 5 clusters" in text
        # Its cluster layouts are kept for the next opening (another session lays out nothing).
        assert (app.workspace.vault.state_dir / "cache" / "graph-layout.pickle").is_file()
        for cluster in ("concepts/", "models/", "notes/"):
            assert cluster in text
        assert "Transformer" in text and "BERT" in text  # the best-linked pages are labelled
        canvas = screen.query_one(GraphCanvas)
        assert canvas.selected == T  # the page it came from stays selected
        moved = set()
        for key in ("right", "down", "left", "up"):
            await pilot.press(key)
            await pilot.pause()
            moved.add(canvas.selected)
        assert len(moved - {T}) >= 2  # the arrows move in the whole view too
        assert screen.model.nodes[canvas.selected].label in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, GraphScreen), "the graph to close")
        await pilot.press("ctrl+p", *"graph of the whole")
        await wait_for(pilot, lambda: "hubs labelled" in screen_text(app), "the command")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, GraphScreen) and app.screen.model is not None,
                       "the whole wiki from the palette")
        assert app.screen.whole


async def test_the_palette_opens_the_page_graph_and_g_types_in_an_input(tmp_path):
    from textual.widgets import Input

    app = workspace(graph_vault(tmp_path / "v"), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path(T)
        await pilot.pause()
        app.main.query_one("#wiki-filter", Input).focus()
        await pilot.press("g")
        await pilot.pause()
        assert not isinstance(app.screen, GraphScreen)
        assert app.main.query_one("#wiki-filter", Input).value == "g"
        await pilot.press("f2")  # from another pane (the wiki tree) too
        await pilot.press("g")
        await wait_for(pilot, lambda: isinstance(app.screen, GraphScreen) and app.screen.model is not None,
                       "the graph from the wiki tree")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, GraphScreen), "the graph to close")
        app.main.query_one(PageView).focus()
        await pilot.press("ctrl+p", *"graph of the page")
        await wait_for(pilot, lambda: "arrows, enter" in screen_text(app), "the command")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, GraphScreen) and app.screen.model is not None,
                       "the graph from the palette")
        assert app.screen.model.centre == T


async def test_at_80x24_the_graph_stays_usable(tmp_path):
    app = workspace(graph_vault(tmp_path / "v"), watch=False, index=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_graph(pilot)
        lines = screen_text(app).splitlines()
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        text = "\n".join(lines)
        for label in ("Transformer", "Self-Attention", "BERT", "Missing Idea"):
            assert label in text
        assert "esc Close" in text
        await pilot.press("right")
        await pilot.pause()
        assert screen.query_one(GraphCanvas).selected != T or screen.model.neighbours(T) == []


def test_graph_snapshot_120x40(snap_compare, tmp_path):
    """The local graph of the fixture page at depth 2, at 120x40."""
    async def before(pilot):
        await open_graph(pilot)
        await pilot.press("plus")
        await wait_for(pilot, lambda: pilot.app.screen.model.depth == 2, "the second ring")
        await pilot.app.workers.wait_for_complete()
        pilot.app.clear_notifications()  # "search index off" (the test runs without one) would cover the bottom
        await pilot.pause()

    app = workspace(graph_vault(tmp_path / "v"), watch=False, index=False, theme="wikitui-dark")
    assert snap_compare(app, terminal_size=(120, 40), run_before=before)


def test_graph_snapshot_80x24(snap_compare, tmp_path):
    """The local graph of the fixture page at depth 1, at 80x24."""
    async def before(pilot):
        await open_graph(pilot)
        await pilot.app.workers.wait_for_complete()
        pilot.app.clear_notifications()  # "search index off" (the test runs without one) would cover the bottom
        await pilot.pause()

    app = workspace(graph_vault(tmp_path / "v"), watch=False, index=False, theme="wikitui-dark")
    assert snap_compare(app, terminal_size=(80, 24), run_before=before)


async def test_a_layout_that_fails_says_so_and_the_workspace_lives_on(tmp_path, monkeypatch):
    import wikitui.ui.screens.graph as graph_screen

    def broken(model):
        raise ValueError("no layout today")

    monkeypatch.setattr(graph_screen, "layout_local", broken)
    app = workspace(graph_vault(tmp_path / "v"), watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path(T)
        await pilot.pause()
        await pilot.press("g")
        await wait_for(pilot, lambda: "Cannot draw the graph: no layout today" in screen_text(app), "the message")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, GraphScreen), "the graph to close")
        assert app.main.current_path == T


async def test_the_whole_wiki_is_laid_out_in_the_background_once_the_page_graph_shows(tmp_path):
    app = workspace(graph_vault(tmp_path / "v"), watch=False, index=False)
    kept = app.workspace.vault.state_dir / "cache" / "graph-layout.pickle"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_graph(pilot)
        await wait_for(pilot, kept.is_file, "the whole wiki's layout, kept")  # w not pressed
        assert not screen.whole and screen.memo is not None and screen.memo.laid_out == 5
        await pilot.press("w")
        await wait_for(pilot, lambda: screen.whole and screen.model is not None, "the whole wiki")
        assert screen.memo.laid_out == 5  # found ready: nothing laid out again
