"""Bad input gets a readable state and a clear notice, never a crash or a freeze."""

from __future__ import annotations


from wikitui.ui.widgets.page_view import PageView

from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace


async def test_a_page_with_broken_frontmatter_opens_with_a_warning(sample_vault):
    broken = sample_vault / "wiki" / "broken.md"
    broken.write_text("---\ntitle: [unclosed\ntype: concept\n---\n\n# Broken\n\nStill readable, with [[Alice]].\n", encoding="utf-8")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/broken.md")
        await pilot.pause()
        assert "Still readable" in screen_text(app)
        await wait_for(pilot, lambda: any("frontmatter does not parse" in n for n in notices(app)), "the notice")
        # Its links still work.
        page = app.query_one(PageView)
        assert [link.target for link in page.links] == ["Alice"]


async def test_a_five_megabyte_page_opens_without_freezing(sample_vault):
    line = "The Queen said [[Alice]] must be beheaded, and the **King** was not so sure about it.\n\n"
    big = "---\ntitle: Huge\n---\n\n# Huge\n\n" + line * (5_000_000 // len(line))
    (sample_vault / "wiki" / "huge.md").write_text(big, encoding="utf-8")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/huge.md")
        await pilot.pause()
        # Shown by the next frame (how fast is bench/page_view.py's business, not a test's).
        assert "Huge" in str(app.query_one(PageView).border_title)
        await wait_for(pilot, lambda: any("large page" in n for n in notices(app)), "the notice")
        # Keys still answer at once: end jumps to the bottom, backspace goes back.
        await pilot.press("end")
        page = app.query_one(PageView)
        await wait_for(pilot, lambda: page.scroll_y > 1000, "the end of the page", timeout=10)
        await pilot.press("backspace")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/index.md", "going back")


async def test_binary_and_non_utf8_sources_show_a_clear_state(sample_vault):
    (sample_vault / "raw" / "figure.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    (sample_vault / "raw" / "latin1.txt").write_bytes("Caf\xe9 cr\xe8me, na\xefve.\n".encode("latin-1"))
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("raw/figure.png")  # a damaged picture: one line, from the converter's worker
        await wait_for(pilot, lambda: "figure.png is not a readable image" in screen_text(app), "the line")
        await wait_for(pilot, lambda: any("figure.png is not a readable image" in n for n in notices(app)), "the notice")
        (sample_vault / "raw" / "data.bin").write_bytes(bytes(range(256)) * 4)
        app.main.open_path("raw/data.bin")
        await pilot.pause()
        assert "Binary file" in screen_text(app)
        await wait_for(pilot, lambda: any("data.bin is binary" in n for n in notices(app)), "the notice")
        app.main.open_path("raw/latin1.txt")
        await pilot.pause()
        text = screen_text(app)
        assert "Caf\ufffd cr\ufffdme" in text
        await wait_for(pilot, lambda: any("not valid UTF-8" in n for n in notices(app)), "the notice")


async def test_a_page_that_vanished_before_opening_says_so(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        (sample_vault / "wiki" / "characters" / "mouse.md").unlink()
        app.main.open_path("wiki/characters/mouse.md")
        await pilot.pause()
        assert "Page deleted" in screen_text(app)
        assert app.main.current_kind == "missing"


async def test_a_vault_with_no_index_opens_its_first_page(tmp_path):
    vault = tmp_path / "v"
    (vault / "wiki" / "b").mkdir(parents=True)
    (vault / "wiki" / "b" / "zeta.md").write_text("# Zeta\n", encoding="utf-8")
    (vault / "wiki" / "alpha.md").write_text("# Alpha\n\nSee [[Zeta]].\n", encoding="utf-8")
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await wait_for(pilot, lambda: app.main.current_path == "wiki/alpha.md", "the first page")
        assert isinstance(app.focused, PageView)


async def test_an_empty_vault_says_there_are_no_pages(tmp_path):
    vault = tmp_path / "empty"
    (vault / "wiki").mkdir(parents=True)
    app = workspace(vault, watch=False, index=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_ready(pilot)
        await wait_for(pilot, lambda: "No pages yet" in screen_text(app), "the empty state")


async def test_an_apply_interrupted_by_a_crash_is_rolled_back_when_the_app_starts(sample_vault):
    """The power went out mid-apply: the next launch restores the pages and says so."""
    from tests.core.test_apply import crash_apply
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.changes.pending import PendingStore
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    vault = Vault.open(sample_vault)
    builder = ChangesetBuilder(vault, LinkGraph.load(vault))
    names = ("characters/alice.md", "characters/dodo.md", "characters/dinah.md")
    for name in names:
        builder.new_page(name, f"# Rewritten {name}\n", "rewrite")
    cs = builder.build("edit", "Rewrite three")
    PendingStore(vault).save(cs)
    before = {n: (sample_vault / "wiki" / n).read_bytes() for n in names}
    crash_apply(sample_vault, cs.id, "mid-write")
    assert any((sample_vault / "wiki" / n).read_bytes() != before[n] for n in names)

    app = workspace(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        assert {n: (sample_vault / "wiki" / n).read_bytes() for n in names} == before
        await wait_for(pilot, lambda: any("rolled back" in str(m) for m in notices(app)), "the recovery notice")
