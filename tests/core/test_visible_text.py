"""What the reviewer sees is what is written (DESIGN §8): controls in proposals are refused, text is shown visibly."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.core.agent.tools import ToolBox
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.visible_text import format_chars, json_visible, visible

DODO = "wiki/characters/dodo.md"
HOSTILE = "visible line\n\x1b[1A\x1b[2Khidden line\x1b]52;c;ZXZpbA==\x07\n"
#: What a terminal would obey: C0 but tab and newline, DEL, C1, and the bidi controls.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


# ------------------------------------------------------------------ visible()
@settings(max_examples=300, deadline=None)
@given(st.text())
def test_visible_leaves_no_control_c1_or_bidi_character(text):
    out = visible(text)
    assert not RAW.search(out)
    assert not re.search("[\u200b\u200c\u2028\u2029\u2060-\u2064]", out)
    assert visible(out) == out  # idempotent: showing twice shows the same


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cc", "Cf", "Cs", "Zl", "Zp")) | st.sampled_from("\t\n")))
def test_visible_keeps_printable_text_as_it_is(text):
    assert visible(text) == text
    assert format_chars(text) == []


def test_visible_shows_each_kind_of_character():
    assert visible(HOSTILE) == "visible line\n␛[1A␛[2Khidden line␛]52;c;ZXZpbA==␇\n"
    assert visible("a\x9b2Jb") == "a\\x9b2Jb"
    assert visible("abc\u202edef\u2066x") == "abc⟨U+202E⟩def⟨U+2066⟩x"
    assert visible("crlf\r\nlone\rcr") == "crlf\nlone␍cr"
    assert visible("\ufeffstart mid\ufeff") == "\ufeffstart mid⟨U+FEFF⟩"
    assert visible("family 👨\u200d👩 but a\u200db") == "family 👨\u200d👩 but a⟨U+200D⟩b"
    assert format_chars("x\u202ey\u202e") == ["U+202E RIGHT-TO-LEFT OVERRIDE"]


def test_json_visible_escapes_what_json_leaves_raw_and_keeps_the_data():
    doc = json.dumps({"t": "a\x9bb\u202ec\x7f\U000e0041"}, ensure_ascii=False)
    out = json_visible(doc)
    assert not RAW.search(out) and json.loads(out) == json.loads(doc)


# ------------------------------------------------------------- the proposals
@pytest.fixture
def box(sample_vault):
    vault = Vault.open(sample_vault)
    graph = LinkGraph.load(vault)
    return ToolBox(vault, graph, None, ChangesetBuilder(vault, graph))


def call(box, name, **args):
    return box.call(name, json.dumps(args))


@pytest.mark.parametrize("content, named", [
    (HOSTILE, "line 2 holds the control character U+001B (ESCAPE)"),
    ("# T\n\nthe \x9b2J CSI\n", "line 3 holds the control character U+009B"),
    ("# T\n\nback\rover\n", "line 3 holds the control character U+000D (CARRIAGE RETURN)"),
    ("# T\n\x07\n", "line 2 holds the control character U+0007 (BELL)"),
])
def test_a_page_with_control_characters_is_an_error_result_and_nothing_is_pending(box, content, named):
    out = call(box, "propose_page", path="wiki/hostile.md", content=content, reason="r")
    assert not out.ok and named in out.text
    assert box.builder.build("edit", "t") is None


def test_an_edit_adding_an_escape_is_refused(box):
    out = call(box, "propose_edit", path=DODO, reason="r",
               edits=[{"old": "Its remedy is the Caucus-race.", "new": "Its remedy\x1b]52;c;ZXZpbA==\x07 is."}])
    lines = (box.vault.root / DODO).read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "Its remedy is the Caucus-race." in text)
    assert not out.ok and "U+001B (ESCAPE)" in out.text and f"line {line}" in out.text
    assert box.builder.build("edit", "t") is None


def test_crlf_line_endings_and_tabs_are_text(box):
    out = call(box, "propose_page", path="wiki/crlf.md", content="# T\r\n\r\na\tb\r\n", reason="r")
    assert out.ok, out.text
    assert box.builder.build("edit", "t") is not None


def test_bidi_characters_are_accepted_but_flagged(box):
    out = call(box, "propose_page", path="wiki/bidi.md", content="# T\n\nabc\u202edef\n", reason="r")
    assert out.ok, out.text
    cs = box.builder.build("edit", "t")
    assert format_chars(cs.files[0].new_text) == ["U+202E RIGHT-TO-LEFT OVERRIDE"]


def test_a_humans_escape_may_stay_in_the_page_the_agent_edits(box, sample_vault):
    page = sample_vault / DODO
    page.write_text(page.read_text() + "\nA human's \x1b[1mbold\x1b[0m note.\n")
    box.graph = LinkGraph.load(box.vault)
    out = call(box, "propose_edit", path=DODO, reason="r",
               edits=[{"old": "Its remedy is the Caucus-race.", "new": "Its remedy is the [[Caucus-Race]]."}])
    assert out.ok, out.text
    again = call(box, "propose_edit", path=DODO, reason="r",
                 edits=[{"old": "note.", "new": "note. \x1b[2J"}])
    assert not again.ok and "U+001B" in again.text


@pytest.mark.parametrize("tool, args", [
    ("propose_page", {"path": "wiki/a\nb.md", "content": "# A\n"}),
    ("propose_page", {"path": "wiki/a\x1b[2Jb.md", "content": "# A\n"}),
    ("propose_page", {"path": "wiki/abc\u202edm.exe.md", "content": "# A\n"}),
    ("propose_page", {"path": "wiki/a\x85b.md", "content": "# A\n"}),
    ("propose_move", {"path": DODO, "new_path": "wiki/characters/do\ndo.md"}),
])
def test_a_path_with_a_control_or_bidi_character_is_refused(box, sample_vault, tool, args):
    out = call(box, tool, reason="r", **args)
    assert not out.ok and "a path may not hold the control character" in out.text, out.text
    assert box.builder.build("edit", "t") is None
    assert not any("\n" in p.name or "\x1b" in p.name for p in sample_vault.rglob("*"))


def test_a_chart_whose_spec_holds_a_control_character_is_refused(box):
    spec = {"kind": "bar", "title": "sales \x9b2J", "series": [{"name": "a", "x": ["q1"], "y": [1]}]}
    out = call(box, "propose_chart", path="assets/sales.png", spec=spec, reason="r")
    assert not out.ok and "spec.title holds the control character U+009B" in out.text, out.text
    assert box.builder.build("edit", "t") is None
    out = call(box, "propose_chart", path="assets/sales\x85.png", spec={**spec, "title": "sales"}, reason="r")
    assert not out.ok and "U+0085" in out.text, out.text


def test_a_crlf_page_is_edited_and_rewritten_as_before(box, sample_vault):
    page = sample_vault / "wiki/crlf.md"
    page.write_bytes(b"# CRLF\r\n\r\nold line\r\nmore\r\n")
    box.graph = LinkGraph.load(box.vault)
    out = call(box, "propose_edit", path="wiki/crlf.md", reason="r", edits=[{"old": "old line\nmore", "new": "new\r\nmore"}])
    assert out.ok, out.text
    out = call(box, "propose_page", path="wiki/crlf.md", content="# CRLF\n\nrewritten\n", reason="r")
    assert out.ok, out.text
    (change,) = box.builder.build("edit", "t").files
    assert change.new_text.count("\r\n") == change.new_text.count("\n")  # its CRLF line endings kept


def test_blanks_around_a_path_are_trimmed_as_before(box):
    out = call(box, "propose_page", path=" wiki/trimmed.md\n", content="# T\n", reason="r")
    assert out.ok, out.text
