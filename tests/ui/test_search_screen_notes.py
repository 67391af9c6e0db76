"""The `/` screen tells the person when a query was run differently from how it was typed."""

from __future__ import annotations

from tests.ui.workspace_helpers import wait_for, wait_ready, workspace


async def test_a_capped_fuzzy_distance_is_noted_in_the_status_line(sample_vault):
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("slash", *"rabbit~9")
        status = lambda: str(pilot.app.screen.query_one("#search-status").render())  # noqa: E731
        await wait_for(pilot, lambda: "searched as rabbit~2" in status(), "the note")
        assert "result" in status()  # the hits are still counted beside the note
        assert "rabbit~9: fuzzy search allows at most 2 edits" in status()
        await pilot.press("backspace")  # "rabbit~": one edit, as asked: no note
        await wait_for(pilot, lambda: "searched as" not in status() and "result" in status(), "no note")


async def test_a_search_ranked_by_any_word_says_so_in_the_status_line(sample_vault):
    # Issue 21.9: no page holds every word: the hits of any word, and a line saying so.
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("slash", *"hatter zzyzzx")
        status = lambda: str(pilot.app.screen.query_one("#search-status").render())  # noqa: E731
        await wait_for(pilot, lambda: "any of them" in status(), "the note")
        assert "result" in status() and "No results" not in status()
        assert "no result has every word; showing results with any of them" in status()


async def test_a_phrase_is_listed_and_opened_at_its_own_line(sample_vault):
    # Issue 21.7: "mad here" was listed at raw/chapter-06.md:47 (a line with "here" only) and opened there.
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        opened: list = []
        navigator = app.main.navigator
        open_path = navigator.open_path
        navigator.open_path = lambda path, **kw: (opened.append((path, kw.get("line"))), open_path(path, **kw))
        await pilot.press("slash", *'"mad here" kind:raw')
        status = lambda: str(pilot.app.screen.query_one("#search-status").render())  # noqa: E731
        await wait_for(pilot, lambda: "result" in status(), "the results")
        lines = (sample_vault / "raw/chapter-06.md").read_text(encoding="utf-8").splitlines()
        phrase_line = next(n for n, line in enumerate(lines, 1) if "mad here" in line.lower())  # 246
        hit = pilot.app.screen._hits[0]
        assert (hit.path, hit.line) == ("raw/chapter-06.md", phrase_line) and "**mad** **here**" in hit.snippet
        await pilot.press("enter")
        await wait_for(pilot, lambda: opened, "the hit opened")
        assert opened == [("raw/chapter-06.md", phrase_line)]
