"""The inbox in the workspace: the palette's command against a feed server on 127.0.0.1 brings new sources
into raw/inbox/, where the Sources pane shows them not ingested (○); ``[inbox] every_minutes`` runs it in
the background, a failure being one quiet notice."""

from __future__ import annotations

import pytest

from tests.core.inbox_web import start_server, stop_server
from tests.ui.workspace_helpers import notices, screen_text, wait_for, wait_ready, workspace
from wikitui.ui.widgets.source_tree import PENDING, SourceTree


@pytest.fixture
def web():
    httpd, base = start_server()
    yield base
    stop_server(httpd)


def configure(vault, text: str) -> None:
    (vault / ".wikitui").mkdir(exist_ok=True)
    (vault / ".wikitui" / "config.toml").write_text(text, encoding="utf-8")


async def run_inbox_from_the_palette(pilot, app) -> None:
    await pilot.press("ctrl+p", *"inbox")
    await wait_for(pilot, lambda: "Inbox: bring in the feeds' new items" in screen_text(app), "the palette command")
    await pilot.press("enter")


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_palette_brings_a_feed_in_and_the_sources_pane_shows_it_not_ingested(sample_vault, web, size):
    configure(sample_vault, f'[inbox]\nfeeds = ["{web}/atom.xml", "{web}/error.xml"]\n')
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=size) as pilot:
        await wait_ready(pilot)
        await run_inbox_from_the_palette(pilot, app)
        new = sample_vault / "raw" / "inbox" / "carbon-in-deep-soil.md"
        await wait_for(pilot, lambda: any(n.startswith("1 new item in raw/inbox/") for n in notices(app)),
                       "the inbox's notice", timeout=30)
        assert new.is_file() and f"source_url: {web}/soil/deep" in new.read_text()
        notice = next(n for n in notices(app) if n.startswith("1 new item"))
        assert "not ingested yet" in notice and f"feed {web}/error.xml: the server answered 500" in notice
        tree = app.main.query_one(SourceTree)
        assert "raw/inbox/carbon-in-deep-soil.md" not in tree.ingested
        raws = len(app.workspace.graph.raw_files)
        await pilot.press("f1")
        await wait_for(pilot, lambda: f"{PENDING} carbon-in-deep" in screen_text(app),
                       "the new source, marked not ingested, in the Sources pane")
        assert f"{raws - 1}/{raws} ingested" in screen_text(app)  # the sample's sources are all ingested
        assert tree.cursor_node is not None and tree.cursor_node.data.path == "raw/inbox/carbon-in-deep-soil.md"
        await pilot.press("enter")  # it opens like any source
        await wait_for(pilot, lambda: app.main.current_path == "raw/inbox/carbon-in-deep-soil.md", "the source")


async def test_the_palette_without_feeds_says_how_to_add_them(sample_vault):
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await run_inbox_from_the_palette(pilot, app)
        await wait_for(pilot, lambda: any("No feeds configured" in n for n in notices(app)), "the advice")
        assert not (sample_vault / "raw" / "inbox").exists()


async def test_a_scheduled_run_brings_items_in_and_a_failing_feed_is_one_quiet_notice(sample_vault, web):
    configure(sample_vault, f'[inbox]\nfeeds = ["{web}/error.xml"]\nevery_minutes = 30\n')
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        schedule = app.main.inbox.schedule
        assert schedule.seconds == 30 * 60  # read from the config
        schedule.last = -1e9  # as if half an hour went by
        assert schedule.check()
        # A notice is a message the app handles after this frame: wait for it, do not race it.
        await wait_for(pilot, lambda: any(n.startswith("Scheduled inbox:") for n in notices(app)), "the first failure",
                       timeout=30)
        failed = [n for n in notices(app) if n.startswith("Scheduled inbox:")]
        assert len(failed) == 1 and "500" in failed[0] and "try again later" in failed[0]
        await wait_for(pilot, lambda: not schedule.running and not app.main.inbox.active, "the first run's end")
        schedule.last = -1e9
        assert schedule.check()  # fails the same way: nothing said
        await wait_for(pilot, lambda: not schedule.running and not app.main.inbox.active, "the second run", timeout=30)
        configure(sample_vault, f'[inbox]\nfeeds = ["{web}/rss.xml"]\nevery_minutes = 30\n')
        schedule.last = -1e9
        assert schedule.check()
        await wait_for(pilot, lambda: any(n.startswith("Inbox: 2 new items") for n in notices(app)), "the items",
                       timeout=30)
        # (notices arrive in order: the second run's, had it said anything, would be here by now)
        assert len([n for n in notices(app) if n.startswith("Scheduled inbox:")]) == 1
        assert (sample_vault / "raw" / "inbox" / "permafrost-thaws.md").is_file()
        assert "raw/inbox/permafrost-thaws.md" in app.workspace.graph.raw_files


def test_the_schedule_waits_its_period_and_a_busy_workspace():
    from wikitui.ui.inbox_schedule import InboxSchedule

    now, started, busy = [1000.0], [], [False]
    schedule = InboxSchedule(start=lambda: started.append(now[0]), busy=lambda: busy[0], clock=lambda: now[0])
    intervals = []
    schedule.configure(60, lambda every, fn: intervals.append(every))
    assert intervals == [30.0] and not schedule.check()
    now[0] += 3600
    busy[0] = True
    assert not schedule.check()  # a turn is running: later
    busy[0] = False
    assert schedule.check() and not schedule.check()  # one at a time
    assert schedule.finished(added=0) is None  # nothing new: nothing said
    off = InboxSchedule(start=lambda: None, busy=lambda: False)
    off.configure(None, lambda every, fn: intervals.append(every))
    assert intervals == [30.0] and not off.check()


def test_inbox_settings_are_read_from_the_config(tmp_path):
    from wikitui.core.config.settings import load_settings

    folder = tmp_path / "v" / ".wikitui"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text('[inbox]\nfeeds = ["https://a.example/feed", "ftp://b"]\nevery_minutes = 45\n',
                                        encoding="utf-8")
    settings = load_settings(tmp_path / "v")
    assert settings.inbox_feeds == ["https://a.example/feed"] and settings.inbox_every_minutes == 45.0
    assert any("inbox.feeds" in w for w in settings.warnings)
    (folder / "config.toml").write_text('[inbox]\nfeeds = "https://a"\nevery_minutes = "often"\n', encoding="utf-8")
    settings = load_settings(tmp_path / "v")
    assert settings.inbox_feeds == [] and settings.inbox_every_minutes is None
    assert sum("inbox." in w for w in settings.warnings) == 2


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_palette_imports_an_export_into_the_inbox(sample_vault, tmp_path, size):
    import shutil

    from tests.core.inbox_web import DATA
    from wikitui.ui.screens.inbox_import import InboxImportScreen

    export = tmp_path / "exports" / "papers.json"
    export.parent.mkdir()
    shutil.copy(DATA / "discord.json", export)
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=size) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+p", *"import an export")
        await wait_for(pilot, lambda: "Inbox: import an export" in screen_text(app), "the palette command")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, InboxImportScreen), "the import dialog")
        shown = screen_text(app)
        assert "Import into raw/inbox/" in shown and "Import" in shown and "Cancel" in shown
        await pilot.press(*str(export), "enter")
        await wait_for(pilot, lambda: any(n.startswith("2 new items in raw/inbox/") for n in notices(app)),
                       "the import's notice", timeout=30)
        assert sorted(p.name for p in (sample_vault / "raw" / "inbox").iterdir()) == [
            "papers-climate-club-on-2024-03-04.md", "papers-climate-club-on-2024-03-05.md"]
        await pilot.press("f1")
        await wait_for(pilot, lambda: f"{PENDING} papers-climate" in screen_text(app), "the new sources, not ingested")


async def test_importing_a_file_that_is_no_export_says_so_and_adds_nothing(sample_vault, tmp_path):
    (tmp_path / "notes.txt").write_text("just notes\n")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+p", *"import an export")
        await wait_for(pilot, lambda: "Inbox: import an export" in screen_text(app), "the palette command")
        await pilot.press("enter")
        await pilot.press(*str(tmp_path / "notes.txt"), "enter")
        await wait_for(pilot, lambda: any("notes.txt is not an export wikitui knows" in n for n in notices(app)),
                       "the one line", timeout=30)
        assert not (sample_vault / "raw" / "inbox").exists()
