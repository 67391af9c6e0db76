"""Property tests of the inbox's own parsers (DESIGN §8 "hostile input is data"): transcripts (VTT, SRT),
bookmarks HTML, the CSV exports, Slack's markup, the kind sniffer and the item writer.

Each parser reads any text without raising, and what was written in its format is read back.
"""

from __future__ import annotations

import datetime as dt
import html
import string
from pathlib import Path

import frontmatter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wikitui.core.inbox import bookmarks, chat, tables, transcripts
from wikitui.core.inbox.detect import read_export, sniff
from wikitui.core.inbox.item import InboxError, InboxItem, url_key
from wikitui.core.inbox.writer import item_markdown

_words = st.text(alphabet=string.ascii_letters + "éßø漢 ", min_size=1, max_size=30).map(lambda s: " ".join(s.split()))
_said = _words.filter(bool)
_name = st.lists(st.text(alphabet=string.ascii_letters, min_size=1, max_size=8).map(str.capitalize),
                 min_size=1, max_size=3).map(" ".join)
_seconds = st.integers(min_value=0, max_value=36_000)
_SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _stamp(seconds: int, sep: str) -> str:
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}{sep}{seconds % 1000:03d}"


@_SETTINGS
@given(st.text(max_size=2000))
def test_the_cue_parser_reads_any_text(text):
    for cue in transcripts.parse_cues(text):
        assert cue.text and "\n" not in cue.text
        assert len(cue.start) == 8 and cue.start[2] == cue.start[5] == ":"
    transcripts.looks_like_vtt(text), transcripts.looks_like_srt(text)


@_SETTINGS
@given(st.lists(st.tuples(_seconds, _name, _said), min_size=1, max_size=12), st.sampled_from(["teams", "srt"]))
def test_cues_written_as_teams_vtt_or_srt_are_read_back(cues, form):
    if form == "teams":
        text = "WEBVTT\n\n" + "".join(f"{_stamp(s, '.')} --> {_stamp(s + 1, '.')}\n<v {who}>{html.escape(said)}</v>\n\n"
                                      for s, who, said in cues)
        assert transcripts.looks_like_vtt(text)
    else:
        text = "".join(f"{n}\r\n{_stamp(s, ',')} --> {_stamp(s + 1, ',')}\r\n{html.escape(said)}\r\n\r\n"
                       for n, (s, _who, said) in enumerate(cues, 1))
        assert transcripts.looks_like_srt(text)
    got = transcripts.parse_cues(text)
    assert [c.text for c in got] == [" ".join(said.split()) for _s, _w, said in cues]
    assert [c.start for c in got] == [_stamp(s, ".")[:8] for s, _w, _said in cues]
    if form == "teams":
        assert [c.speaker for c in got] == [who for _s, who, _said in cues]


@_SETTINGS
@given(st.text(max_size=3000))
def test_the_bookmarks_parser_reads_any_text(text):
    for item in bookmarks.read_bookmarks(text, "x.html"):
        assert item.url.lower().startswith(("http://", "https://"))


@_SETTINGS
@given(st.lists(st.tuples(_words, st.text(alphabet=string.ascii_lowercase + "/-", max_size=20), _words,
                          st.integers(min_value=0, max_value=4_000_000_000)), max_size=8))
def test_bookmarks_written_in_the_netscape_format_are_read_back(marks):
    rows = "".join(f'<DT><H3>{html.escape(folder)}</H3>\n<DL><p>\n<DT><A HREF="https://ex.org/{html.escape(path)}" '
                   f'ADD_DATE="{when}">{html.escape(title)}</A>\n</DL><p>\n' for title, path, folder, when in marks)
    text = f"<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<TITLE>Bookmarks</TITLE>\n<H1>Bookmarks</H1>\n<DL><p>\n{rows}</DL>\n"
    items = bookmarks.read_bookmarks(text, "b.html")
    assert [(i.title, i.url, i.tags) for i in items] == [
        (title, f"https://ex.org/{path}", [folder] if folder else []) for title, path, folder, _when in marks]
    assert [i.date for i in items] == [bookmarks.epoch_date(str(when)) for *_rest, when in marks]


@_SETTINGS
@given(st.text(max_size=2000), st.sampled_from([k for k, _ in tables.KINDS]))
def test_the_csv_readers_read_any_text_or_say_why_not(text, kind):
    try:
        items = tables.read_table(text, Path("export.csv"), kind)
    except InboxError as exc:
        assert "\n" not in str(exc)
        return
    for item in items:
        assert item.kind == kind


@_SETTINGS
@given(st.text(max_size=500), st.dictionaries(st.text(max_size=5), st.text(max_size=10), max_size=3))
def test_slack_markup_reads_any_text(text, users):
    out = chat.slack_text(text, users)
    assert isinstance(out, str)
    chat.slack_day_item([{"type": "message", "text": text, "ts": text}], "c", Path("2024-01-01.json"), users)


@_SETTINGS
@given(st.binary(max_size=3000))
def test_any_file_is_an_export_or_one_line_saying_it_is_not(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("blob") / "export"
    path.write_bytes(data)
    sniff(path)
    problems: list[str] = []
    try:
        read_export(path, problems)
    except InboxError as exc:
        assert "\n" not in str(exc)
    assert all("\n" not in p for p in problems)


@_SETTINGS
@given(st.text(max_size=300), st.text(max_size=300), st.text(max_size=100), st.text(max_size=2000))
def test_any_item_is_written_as_frontmatter_that_reads_back(title, url, author, body):
    item = InboxItem(title=title, url=url, kind="rss", origin="o", author=author, body=body, tags=[author])
    text = item_markdown(item, dt.date(2026, 12, 2))
    post = frontmatter.loads(text)
    assert post["inbox"] == "rss" and post["clipped"] == dt.date(2026, 12, 2)
    assert "\n" not in post["title"] and post["title"]
    assert all(ch == "\n" or ch == "\t" or ch >= " " for ch in text)  # no control character reaches the file


@_SETTINGS
@given(st.text(max_size=200))
def test_the_address_key_is_stable(url):
    assert url_key(url_key(url)) == url_key(url)
