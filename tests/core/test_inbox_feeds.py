"""``wikitui inbox``: RSS and Atom feeds served on 127.0.0.1 come into raw/inbox/ as clipped sources, once.

The feeds are what the web serves: RSS 2.0 with full content and with a summary only
(its page is fetched, the way ``clip`` fetches), Atom with an HTML title, a feed of
relative links and entities, a broken one, one answering 500 and one that never ends.
"""

from __future__ import annotations

import datetime as dt
import json
import time

import frontmatter
import pytest

from tests.cli_run import run_wikitui
from tests.core.inbox_web import Handler, start_server, stop_server
from wikitui.core.inbox.run import fetch_feeds
from wikitui.core.vault.create import init_vault
from wikitui.core.vault.layout import Vault

TODAY = dt.date(2026, 12, 2)


@pytest.fixture(scope="module")
def web():
    httpd, base = start_server()
    yield base
    stop_server(httpd)


@pytest.fixture
def vault(tmp_path):
    init_vault(tmp_path / "v")
    return Vault(tmp_path / "v")


def inbox_files(vault: Vault) -> dict[str, frontmatter.Post]:
    folder = vault.raw_dir / "inbox"
    return {p.name: frontmatter.load(p) for p in sorted(folder.glob("*.md"))} if folder.is_dir() else {}


def test_an_rss_feed_brings_each_entry_in_with_its_frontmatter(vault, web):
    report = fetch_feeds(vault, [f"{web}/rss.xml"], today=TODAY)
    assert report.problems == [] and report.kinds == ["rss"]
    files = inbox_files(vault)
    assert sorted(files) == ["permafrost-thaws.md", "rhone-glacier-a-record-melt.md"]
    rhone = files["rhone-glacier-a-record-melt.md"]
    assert rhone["title"] == "Rhone glacier: a record melt"
    assert rhone["source_url"] == f"{web}/posts/rhone-record"
    assert rhone["author"] == "Alice Martin" and rhone["date"] == "2024-03-04"
    assert rhone["clipped"] == TODAY and rhone["inbox"] == "rss" and rhone["tags"] == ["glaciers"]
    assert "RHONE-FULL-TEXT" in rhone.content and rhone.content.startswith("# Rhone glacier: a record melt")
    assert Handler.hits.get("/posts/rhone-record") is None  # a whole post in the feed: its page is not fetched
    # A summary-only entry: its page was fetched and reduced to the article (trafilatura), menus and footer gone.
    permafrost = files["permafrost-thaws.md"]
    assert "PERMAFROST-ARTICLE-TEXT" in permafrost.content and "Only a teaser" not in permafrost.content
    assert "MENU-SPORT-MARKER" not in permafrost.content and "FOOTER-MARKER" not in permafrost.content
    assert permafrost["source_url"] == f"{web}/articles/summary-only" and permafrost["date"] == "2024-03-05"
    assert [a.path for a in report.added] == ["raw/inbox/rhone-glacier-a-record-melt.md", "raw/inbox/permafrost-thaws.md"]


def test_an_atom_feed_with_an_html_title(vault, web):
    report = fetch_feeds(vault, [f"{web}/atom.xml"], today=TODAY)
    assert report.kinds == ["atom"] and report.problems == []
    (post,) = inbox_files(vault).values()
    assert post["title"] == "Carbon in deep soil"  # the title's <em> markup is not text
    assert post["author"] == "Carol Diaz"  # the feed's author, as no entry names its own
    assert post["source_url"] == f"{web}/soil/deep" and post["date"] == "2024-03-06" and post["inbox"] == "atom"
    assert "ATOM-DEEP-SOIL-TEXT" in post.content and "&lt;" not in post.content


def test_relative_links_become_absolute_and_entities_are_text(vault, web):
    fetch_feeds(vault, [f"{web}/relative/feed.xml"], today=TODAY)
    ((name, post),) = inbox_files(vault).items()
    assert post["title"] == "Café talk: ice & fire — <notes>"
    assert post["source_url"] == f"{web}/posts/cafe-talk"
    assert f"[the earlier post]({web}/posts/earlier)" in post.content
    assert "RELATIVE-TEXT — see" in post.content and "&mdash;" not in post.content
    assert name == "café-talk-ice-fire-notes.md"


def test_a_second_run_brings_nothing_twice(vault, web):
    first = fetch_feeds(vault, [f"{web}/rss.xml", f"{web}/atom.xml"], today=TODAY)
    before = {p.name: p.read_bytes() for p in (vault.raw_dir / "inbox").iterdir()}
    page_hits = Handler.hits.get("/articles/summary-only", 0)
    again = fetch_feeds(vault, [f"{web}/rss.xml", f"{web}/atom.xml"], today=TODAY + dt.timedelta(days=1))
    assert len(first.added) == 3 and again.added == [] and again.skipped == 3
    assert {p.name: p.read_bytes() for p in (vault.raw_dir / "inbox").iterdir()} == before
    assert Handler.hits.get("/articles/summary-only", 0) == page_hits  # known by its address: not even fetched
    ledger = json.loads((vault.state_dir / "inbox-seen.json").read_text())
    assert ledger["urls"][f"{web}/posts/rhone-record"] == "raw/inbox/rhone-glacier-a-record-melt.md"


def test_the_same_text_under_another_address_is_not_brought_in_again(vault, web):
    fetch_feeds(vault, [f"{web}/rss.xml"], today=TODAY)
    # The same feed's items reached under other addresses (tracking parameters; another host name for the
    # same server): the first by its address once the tracking is dropped, the rest by their text's hash.
    mirror = web.replace("127.0.0.1", "localhost")
    again = fetch_feeds(vault, [f"{mirror}/rss.xml"], today=TODAY)
    assert again.added == [] and again.skipped == 2
    assert len(inbox_files(vault)) == 2


def test_a_broken_feed_a_500_and_a_page_are_one_line_each_and_the_others_come_in(vault, web):
    report = fetch_feeds(vault, [f"{web}/broken.xml", f"{web}/error.xml", f"{web}/not-a-feed", f"{web}/atom.xml"],
                         today=TODAY)
    assert len(report.problems) == 3
    broken, error, page = report.problems
    assert broken.startswith(f"feed {web}/broken.xml is not a readable RSS or Atom feed (")
    assert error == f"feed {web}/error.xml: the server answered 500 Internal Server Error"
    assert page.startswith(f"feed {web}/not-a-feed is not a readable RSS or Atom feed (")
    assert all("\n" not in p for p in report.problems)
    assert list(inbox_files(vault)) == ["carbon-in-deep-soil.md"]  # the good feed still came in


def test_a_slow_feed_server_is_cut_off_at_its_deadline(vault, web):
    start = time.monotonic()
    report = fetch_feeds(vault, [f"{web}/slow.xml", f"{web}/atom.xml"], today=TODAY, feed_total=1.0)
    took = time.monotonic() - start
    assert took < 10, f"the slow feed held the run for {took:.1f} s"
    assert report.problems == [f"feed {web}/slow.xml: no whole answer within 1 s"]
    assert list(inbox_files(vault)) == ["carbon-in-deep-soil.md"]


def test_a_page_that_cannot_be_fetched_leaves_the_entry_with_its_summary(vault, web, monkeypatch):
    from tests.core import inbox_web

    monkeypatch.delitem(inbox_web.PAGES, "/articles/summary-only")
    report = fetch_feeds(vault, [f"{web}/rss.xml"], today=TODAY)
    post = inbox_files(vault)["permafrost-thaws.md"]
    assert "Only a teaser" in post.content
    assert report.problems == [f"{web}/articles/summary-only: the server answered 404 Not Found: "
                               "\"Permafrost thaws\" keeps the rss's own text"]


def test_the_command_fetches_the_configured_feeds_and_says_what_came_in(vault, web):
    (vault.state_dir / "config.toml").write_text(
        f'[inbox]\nfeeds = ["{web}/atom.xml", "{web}/error.xml"]\n', encoding="utf-8")
    result = run_wikitui(["inbox", "--vault", str(vault.root)])
    assert result.returncode == 3  # a feed failed; the other came in
    assert result.stdout == "raw/inbox/carbon-in-deep-soil.md\n"
    assert f"wikitui: feed {web}/error.xml: the server answered 500 Internal Server Error" in result.stderr
    assert "1 new item in raw/inbox/" in result.stderr
    again = run_wikitui(["inbox", "--vault", str(vault.root), "--json"])
    data = json.loads(again.stdout)
    assert data["added"] == [] and data["skipped"] == 1 and len(data["problems"]) == 1


def test_the_command_without_feeds_says_how_to_add_them(vault):
    result = run_wikitui(["inbox", "--vault", str(vault.root)])
    assert result.returncode == 2 and result.stdout == ""
    assert "no feeds configured" in result.stderr and "[inbox] feeds = [" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_entry_already_clipped_into_raw_is_not_brought_in(vault, web):
    from wikitui.core.vault.formats.clip import clip_url

    clipped = clip_url(vault, f"{web}/articles/summary-only", today=TODAY)
    report = fetch_feeds(vault, [f"{web}/rss.xml"], today=TODAY)
    assert [a.title for a in report.added] == ["Rhone glacier: a record melt"] and report.skipped == 1
    assert clipped.path == "raw/permafrost-thaws.md" and not (vault.raw_dir / "inbox" / "permafrost-thaws.md").exists()
