"""``wikitui inbox import``: the exports people have, each a small real-shaped file in tests/data/inbox/.

Links (bookmarks, Pocket, Instapaper, Raindrop, Readwise Reader) point at article pages
on 127.0.0.1; most tests keep to what the export says (``fetch_pages=False``), one
fetches the pages. The kind is told from the content: the files are also read under
names that say nothing.
"""

from __future__ import annotations

import datetime as dt
import shutil

import frontmatter
import pytest

from tests.cli_run import run_wikitui
from tests.core.inbox_web import DATA, export_copy, start_server, stop_server
from wikitui.core.inbox.detect import sniff
from wikitui.core.inbox.item import InboxError
from wikitui.core.inbox.run import import_export
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


def posts(vault: Vault) -> dict[str, frontmatter.Post]:
    folder = vault.raw_dir / "inbox"
    return {p.name: frontmatter.load(p) for p in sorted(folder.glob("*.md"))} if folder.is_dir() else {}


def bring(vault, tmp_path, name, web, **kw):
    return import_export(vault, export_copy(tmp_path, name, web), today=TODAY, fetch_pages=False, **kw)


def test_browser_bookmarks_keep_folders_tags_dates_and_notes_and_skip_bookmarklets(vault, tmp_path, web):
    report = bring(vault, tmp_path, "bookmarks.html", web)
    assert report.kinds == ["bookmarks"] and report.problems == []
    files = posts(vault)
    assert sorted(files) == ["glacier-retreat-speeds-up-spreads.md", "oceans-warm-faster.md"]
    glacier = files["glacier-retreat-speeds-up-spreads.md"]
    assert glacier["title"] == "Glacier retreat speeds up & spreads"
    assert glacier["source_url"] == f"{web}/articles/glacier" and glacier["date"] == "2024-03-04"
    assert glacier["tags"] == ["Climate reading", "glaciers", "alps"] and glacier["inbox"] == "bookmarks"
    assert "> Swiss figures for 2023" in glacier.content
    assert files["oceans-warm-faster.md"].get("tags") is None  # top level: no folder, no tags


def test_bookmarks_with_their_pages_fetched(vault, tmp_path, web):
    report = import_export(vault, export_copy(tmp_path, "bookmarks.html", web), today=TODAY)
    assert report.problems == []
    glacier = posts(vault)["glacier-retreat-speeds-up-spreads.md"]
    assert "GLACIER-ARTICLE-TEXT" in glacier.content and "MENU-SPORT-MARKER" not in glacier.content
    assert glacier["author"] == "Jane Reporter"  # the page's byline, as the bookmark has none
    assert glacier["title"] == "Glacier retreat speeds up & spreads"  # the user's own title wins


def test_pocket_html_export(vault, tmp_path, web):
    report = bring(vault, tmp_path, "ril_export.html", web)
    assert report.kinds == ["pocket-html"]
    files = posts(vault)
    assert sorted(files) == ["glacier-retreat-speeds-up.md", "oceans-warm-faster.md", "soil-carbon-measured.md"]
    assert files["oceans-warm-faster.md"]["tags"] == ["Read Archive", "oceans", "climate"]
    assert files["glacier-retreat-speeds-up.md"]["date"] == "2024-03-04"


def test_pocket_csv_export(vault, tmp_path, web):
    report = bring(vault, tmp_path, "pocket.csv", web)
    assert report.kinds == ["pocket"]
    glacier = posts(vault)["glacier-retreat-speeds-up.md"]
    assert glacier["tags"] == ["climate", "alps"] and glacier["source_url"] == f"{web}/articles/glacier"


def test_instapaper_csv_export(vault, tmp_path, web):
    report = bring(vault, tmp_path, "instapaper-export.csv", web)
    assert report.kinds == ["instapaper"]
    files = posts(vault)
    glacier = files["glacier-retreat-speeds-up.md"]
    assert "> Swiss glaciers lost four percent of their volume" in glacier.content
    assert glacier["tags"] == ["Unread"] and glacier["date"] == "2024-03-04"
    assert files["oceans-warm-faster.md"]["tags"] == ["Archive", "oceans"]


def test_readwise_highlights_become_one_source_per_book(vault, tmp_path, web):
    report = bring(vault, tmp_path, "readwise-export.csv", web)
    assert report.kinds == ["readwise"]
    files = posts(vault)
    assert sorted(files) == ["dirt-to-soil.md", "the-ice-at-the-end-of-the-world.md"]
    ice = files["the-ice-at-the-end-of-the-world.md"]
    assert ice["author"] == "Jon Gertner" and ice["date"] == "2024-03-02" and ice["tags"] == ["glaciers"]
    assert "> The glaciers of the Alps have lost half their volume since 1850." in ice.content
    assert "Note: Check against the GLAMOS data" in ice.content and "(location 1203)" in ice.content
    assert ice["source_url"].startswith("file://") and ice["source_url"].endswith("#The%20Ice%20at%20the%20End%20of%20the%20World")


def test_readwise_reader_and_raindrop_csv_exports(vault, tmp_path, web):
    assert bring(vault, tmp_path, "reader-export.csv", web).kinds == ["readwise-reader"]
    assert bring(vault, tmp_path, "raindrop-export.csv", web).kinds == ["raindrop"]
    files = posts(vault)
    assert files["oceans-warm-faster.md"]["tags"] == ["oceans"] and files["oceans-warm-faster.md"]["date"] == "2024-03-06"
    glacier = files["glacier-retreat-speeds-up.md"]
    assert glacier["tags"] == ["Climate", "glaciers", "alps"] and glacier["date"] == "2024-03-04"
    assert "> Swiss glaciers lost four percent" in glacier.content and "Read for the Alps page" in glacier.content
    assert "Highlight: Soil holds more carbon" in files["soil-carbon-measured.md"].content


def test_an_mbox_brings_each_message_in_plain_or_html(vault, tmp_path, web):
    report = bring(vault, tmp_path, "team.mbox", web)
    assert report.kinds == ["mbox"] and report.problems == []
    files = posts(vault)
    assert sorted(files) == ["notes-from-the-glacier-workshop.md", "re-notes-from-the-glacier-workshop.md"]
    first = files["notes-from-the-glacier-workshop.md"]
    assert first["author"] == "Alice Martin <alice@example.org>" and first["date"] == "2024-03-04"
    assert first["source_url"] == "mid:20240304090000.1234@example.org"
    assert "four percent of the volume in one year" in first.content
    reply = files["re-notes-from-the-glacier-workshop.md"]
    assert reply["author"] == "Björn Berg <bjorn@example.org>" and reply["title"] == "Re: Notes from the glacier workshop"
    assert "Thanks Alice — the **Rhone** figure matches ours." in reply.content and "<p>" not in reply.content


def test_an_eml_file_and_a_folder_of_mail(vault, tmp_path, web):
    assert bring(vault, tmp_path, "soil.eml", web).kinds == ["eml"]
    soil = posts(vault)["soil-samples-round-two.md"]
    assert soil["author"] == "Carol Diaz <carol@example.org>" and soil["source_url"] == "mid:soil-2@example.org"
    assert "2.1% organic carbon" in soil.content
    mail = tmp_path / "mail"
    mail.mkdir()
    shutil.copy(DATA / "soil.eml", mail / "1.eml")
    shutil.copy(DATA / "team.mbox", mail / "team")
    again = import_export(vault, mail, today=TODAY, fetch_pages=False)
    assert len(again.added) == 2 and again.skipped == 1 and again.kinds == ["eml+mbox"]


def test_a_maildir(vault, tmp_path):
    import mailbox

    box = mailbox.Maildir(tmp_path / "Maildir", create=True)
    box.add((DATA / "soil.eml").read_bytes())
    report = import_export(vault, tmp_path / "Maildir", today=TODAY)
    assert report.kinds == ["maildir"] and list(posts(vault)) == ["soil-samples-round-two.md"]


def test_a_slack_export_gives_one_source_per_channel_day(vault, tmp_path, web):
    report = bring(vault, tmp_path, "slack", web)
    assert report.kinds == ["slack"]
    files = posts(vault)
    assert sorted(files) == ["general-on-2024-03-04.md", "general-on-2024-03-05.md", "random-on-2024-03-04.md"]
    day = files["general-on-2024-03-04.md"]
    assert day["title"] == "#general on 2024-03-04" and day["date"] == "2024-03-04"
    assert day["author"] == "Alice Martin, Bob Stone"
    assert day["source_url"].startswith("file://") and day["source_url"].endswith("/general/2024-03-04.json")
    assert ("**Alice Martin** (09:00): Morning @Bob Stone, the GLAMOS report is out: "
            "[GLAMOS 2023](https://glamos.ch/en/#/report) & it is grim") in day.content
    assert "Posting a summary in #random" in day.content and "has joined the channel" in day.content


def test_one_slack_day_file_alone(vault, tmp_path, web):
    export = export_copy(tmp_path, "slack", web)
    report = import_export(vault, export / "random" / "2024-03-04.json", today=TODAY)
    assert report.kinds == ["json"]
    (post,) = posts(vault).values()
    assert post["title"] == "#random on 2024-03-04" and "**Bob Stone**" in post.content  # users.json beside it


def test_a_discord_export_gives_one_source_per_day(vault, tmp_path, web):
    report = bring(vault, tmp_path, "discord.json", web)
    files = posts(vault)
    assert sorted(files) == ["papers-climate-club-on-2024-03-04.md", "papers-climate-club-on-2024-03-05.md"]
    day = files["papers-climate-club-on-2024-03-04.md"]
    assert day["source_url"] == "https://discord.com/channels/900000000000000001/900000000000000002/1214000000000000001"
    assert day["author"] == "Alice, bob" and day["date"] == "2024-03-04"
    assert "[mass-balance.pdf](https://cdn.discordapp.com/attachments/1/2/mass-balance.pdf)" in day.content
    assert report.problems == []


def test_a_folder_of_transcripts_and_one_file_that_is_not(vault, tmp_path, web):
    report = bring(vault, tmp_path, "transcripts", web)
    assert report.problems == ["not a known export, skipped: readme.txt"]
    files = posts(vault)
    assert sorted(files) == ["transcript-field-course.md", "transcript-standup-2024-03-04.md",
                             "transcript-zoom-interview.md"]
    standup = files["transcript-standup-2024-03-04.md"]
    assert standup["author"] == "Alice Martin, Bob Stone" and standup["date"] == "2024-03-04"
    assert ("**[00:00:01] Alice Martin:** Good morning, let's start with the glacier data. "
            "The report came out yesterday.") in standup.content
    assert "**[00:00:08] Bob Stone:** I checked the Rhone figures & they match." in standup.content
    zoom = files["transcript-zoom-interview.md"]
    assert zoom["author"] == "Carol Diaz, Dan Ode" and "**[00:00:03] Dan Ode:** Happy to talk" in zoom.content
    srt = files["transcript-field-course.md"]
    assert "Welcome to the field course. Today: soil cores." in srt.content and "<i>" not in srt.content


@pytest.mark.parametrize("name,kind", [
    ("bookmarks.html", "bookmarks"), ("ril_export.html", "pocket-html"), ("pocket.csv", "pocket"),
    ("instapaper-export.csv", "instapaper"), ("readwise-export.csv", "readwise"), ("raindrop-export.csv", "raindrop"),
    ("reader-export.csv", "readwise-reader"), ("team.mbox", "mbox"), ("soil.eml", "eml"), ("discord.json", "json"),
    ("transcripts/standup-2024-03-04.vtt", "vtt"), ("transcripts/field-course.srt", "srt"),
])
def test_the_kind_comes_from_the_content_not_the_name(tmp_path, name, kind):
    blind = tmp_path / "export.dat"
    shutil.copy(DATA / name, blind)
    assert sniff(blind) == kind


def test_each_import_twice_brings_nothing_the_second_time(vault, tmp_path, web):
    names = ["bookmarks.html", "ril_export.html", "pocket.csv", "instapaper-export.csv", "readwise-export.csv",
             "raindrop-export.csv", "reader-export.csv", "team.mbox", "soil.eml", "slack", "discord.json", "transcripts"]
    first = [bring(vault, tmp_path / str(n), name, web) for n, name in enumerate(names)]
    count = len(list((vault.raw_dir / "inbox").iterdir()))
    # The Pocket, Instapaper and Raindrop exports hold the bookmarks' pages again: those are known by address.
    assert sum(len(r.added) for r in first) == count and sum(r.skipped for r in first) > 0
    again = [bring(vault, tmp_path / f"again-{n}", name, web) for n, name in enumerate(names)]
    assert [r.added for r in again] == [[] for _ in names]
    assert len(list((vault.raw_dir / "inbox").iterdir())) == count


def test_a_file_that_is_no_export_is_one_line_and_nothing_changes(vault, tmp_path):
    (tmp_path / "notes.csv").write_text("name,age\nalice,3\n")
    before = sorted(p.relative_to(vault.root) for p in vault.root.rglob("*"))
    with pytest.raises(InboxError) as caught:
        import_export(vault, tmp_path / "notes.csv")
    assert str(caught.value).startswith("notes.csv is not an export wikitui knows (") and "\n" not in str(caught.value)
    assert sorted(p.relative_to(vault.root) for p in vault.root.rglob("*")) == before
    result = run_wikitui(["inbox", "import", str(tmp_path / "notes.csv"), "--vault", str(vault.root)])
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("wikitui: error: notes.csv is not an export wikitui knows")
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_malformed_export_changes_nothing(vault, tmp_path):
    (tmp_path / "broken.json").write_text('{"channel": {"name": "x"}, "messages": [')
    before = sorted(p.relative_to(vault.root) for p in vault.root.rglob("*"))
    with pytest.raises(InboxError, match=r"^broken.json is not valid JSON \("):
        import_export(vault, tmp_path / "broken.json")
    assert sorted(p.relative_to(vault.root) for p in vault.root.rglob("*")) == before


def test_the_import_command_prints_the_new_files(vault, tmp_path, web):
    export = export_copy(tmp_path, "discord.json", web)
    result = run_wikitui(["inbox", "import", str(export), "--vault", str(vault.root)])
    assert result.returncode == 0
    assert result.stdout.splitlines() == ["raw/inbox/papers-climate-club-on-2024-03-04.md",
                                          "raw/inbox/papers-climate-club-on-2024-03-05.md"]
    assert "2 new items in raw/inbox/" in result.stderr and "wikitui ingest --new" in result.stderr


def test_a_zipped_export_says_to_unzip_it(vault, tmp_path):
    import zipfile

    with zipfile.ZipFile(tmp_path / "slack.zip", "w") as archive:
        archive.write(DATA / "slack" / "channels.json", "channels.json")
    with pytest.raises(InboxError, match=r"^slack.zip is a zip archive: unzip it and import the folder"):
        import_export(vault, tmp_path / "slack.zip")
    assert not (vault.raw_dir / "inbox").exists()


def test_a_long_import_says_how_far_it_got(vault, tmp_path):
    rows = "".join(f'<DT><A HREF="https://ex.invalid/{n}" ADD_DATE="1709550000">Link {n}</A>\n' for n in range(120))
    (tmp_path / "many.html").write_text(f"<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n{rows}</DL>\n")
    result = run_wikitui(["inbox", "import", str(tmp_path / "many.html"), "--no-fetch", "--vault", str(vault.root)])
    assert result.returncode == 0 and len(result.stdout.splitlines()) == 120
    assert [line for line in result.stderr.splitlines() if "items read" in line] == [
        "wikitui: 50/120 items read", "wikitui: 100/120 items read", "wikitui: 120/120 items read"]


def test_items_of_the_same_title_get_names_of_their_own(vault, tmp_path):
    import mailbox
    from email.message import EmailMessage

    box = mailbox.mbox(tmp_path / "weekly.mbox")
    for n, text in enumerate(["Sea ice is at a record low this week.", "Snow cover came back in the Alps."]):
        msg = EmailMessage()
        msg["From"], msg["Subject"], msg["Message-ID"] = "news@example.org", "Weekly digest", f"<digest-{n}@example.org>"
        msg.set_content(text)
        box.add(msg)
    box.close()
    report = import_export(vault, tmp_path / "weekly.mbox", today=TODAY)
    assert [a.path for a in report.added] == ["raw/inbox/weekly-digest.md", "raw/inbox/weekly-digest-2.md"]
    assert "Sea ice" in posts(vault)["weekly-digest.md"].content
    assert "Snow cover" in posts(vault)["weekly-digest-2.md"].content


def test_a_json_file_nested_without_end_is_one_line(vault, tmp_path):
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InboxError, match=r"^deep.json is nested too deeply to be an export; nothing was written$"):
        import_export(vault, tmp_path / "deep.json")


def test_a_message_that_breaks_the_mail_parser_is_skipped_and_named(vault, tmp_path):
    good = (DATA / "soil.eml").read_bytes()
    bad = b"From: x@example.org\nSubject: odd\nContent-Type: text/plain; charset=no-such-charset\n\nbody \xff\n"
    box = tmp_path / "mix"
    box.mkdir()
    (box / "a.eml").write_bytes(bad)
    (box / "b.eml").write_bytes(good)
    report = import_export(vault, box, today=TODAY)
    assert [a.path for a in report.added] == ["raw/inbox/soil-samples-round-two.md"]
    assert report.problems == ["a.eml: message 1 could not be read (LookupError); skipped"]


def test_the_real_command_imports_an_export(vault, tmp_path, web):
    from tests.cli_run import real_wikitui

    export = export_copy(tmp_path, "transcripts", web)
    result = real_wikitui(["inbox", "import", str(export), "--json", "--vault", str(vault.root)])
    assert result.returncode == 0, result.stderr
    data = __import__("json").loads(result.stdout)
    assert [a["path"] for a in data["added"]] == ["raw/inbox/transcript-field-course.md",
                                                  "raw/inbox/transcript-standup-2024-03-04.md",
                                                  "raw/inbox/transcript-zoom-interview.md"]
    assert data["problems"] == ["not a known export, skipped: readme.txt"] and data["kinds"] == ["srt+vtt"]


def test_an_item_written_but_not_yet_in_the_ledger_is_known_by_its_file(vault, tmp_path, web):
    """A run killed between writing an item and recording it: the file's ``source_url`` still counts."""
    first = bring(vault, tmp_path, "team.mbox", web)
    (vault.state_dir / "inbox-seen.json").unlink()
    again = bring(vault, tmp_path / "again", "team.mbox", web)
    assert len(first.added) == 2 and again.added == [] and again.skipped == 2


def test_an_unreadable_ledger_is_set_aside_with_one_line(vault, tmp_path, web):
    vault.state_dir.mkdir(exist_ok=True)
    (vault.state_dir / "inbox-seen.json").write_text("{not json")
    report = bring(vault, tmp_path, "soil.eml", web)
    assert len(report.added) == 1
    assert report.problems == [".wikitui/inbox-seen.json cannot be read (JSONDecodeError): set aside as "
                               "inbox-seen.json.bad; started afresh (what is in raw/inbox/ is still known by its source_url)"]
    assert (vault.state_dir / "inbox-seen.json.bad").read_text() == "{not json"


def test_what_came_in_is_queued_by_a_batch_ingest_of_the_new_sources(vault, tmp_path, web):
    from wikitui.core.batch.select import select
    from wikitui.core.vault.graph import LinkGraph

    report = bring(vault, tmp_path, "slack", web)
    graph = LinkGraph.load(vault, use_cache=False, save_cache=False)
    for argument in (None, "raw/inbox/"):  # `wikitui ingest --new`, `wikitui ingest raw/inbox/`
        chosen = select(vault, graph, argument, only_new=True)
        assert [e.source for e in chosen.queued] == sorted(a.path for a in report.added)


def test_the_pages_of_an_export_are_fetched_several_at_a_time(vault, tmp_path, web):
    from tests.core.inbox_web import Handler

    Handler.together.reset()
    marks = "".join(f'<DT><A HREF="{web}/together/{name}">{name}</A>\n' for name in ("north", "south"))
    (tmp_path / "pair.html").write_text(f"<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n{marks}</DL>\n")
    report = import_export(vault, tmp_path / "pair.html", today=TODAY)
    assert report.problems == []  # each page waited for the other: they were asked for together
    assert all("TOGETHER" in post.content for post in posts(vault).values()) and len(posts(vault)) == 2
