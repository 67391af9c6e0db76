"""No command sends vault, source or model text to the terminal raw (DESIGN §8: what the reviewer sees is what is written).

A vault whose pages, a source and a pending changeset hold cursor moves, erase-line,
an OSC 52 clipboard write, a C1 CSI and bidi overrides; every printing command runs
in-process over it. Their plain-text output shows each such character visibly
(``␛``, ``\\x9b``, ``⟨U+202E⟩``); their JSON keeps the data exact.
"""

from __future__ import annotations

import io
import json
import re

import pytest

from tests.core.test_headless import fast_client, run
from tests.fakeserver import text, tool_call, tool_calls
from wikitui import cli
from wikitui.core.agent.headless import run_ask, run_ingest
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.model import Changeset, make_file_change
from wikitui.core.workspace import Workspace

#: What a terminal would obey, or reorder text by: C0 but tab and newline, DEL, C1, bidi controls.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
ESCAPES = "\x1b[1A\x1b[2Khidden rabbit\x1b]52;c;ZXZpbA==\x07 \x9b2J \u202eevil\u202c \u2066iso\u2069"
HOSTILE_PAGE = (f"---\ntitle: Hostile\ntype: concept\nsummary: a page with escapes\n---\n\n# Hostile\n\n"
                f"visible zyzzyva line\n{ESCAPES} see [[Alice]] and [[Nowhere{chr(0x1b)}[2J]]\n"
                f"and [[Elsewhere \u202eevil]] zyzzyva\n")
DODO = "wiki/characters/dodo.md"


@pytest.fixture
def hostile_vault(sample_vault):
    (sample_vault / "wiki/hostile.md").write_text(HOSTILE_PAGE)
    dodo = sample_vault / DODO
    dodo.write_text(dodo.read_text().replace("Its remedy is the Caucus-race.",
                                             f"Its remedy is the Caucus-race.\n{ESCAPES}\n"))
    (sample_vault / "raw/hostile-source.md").write_text(f"# A source\n\nzyzzyva {ESCAPES}\n")
    ws = Workspace.open(sample_vault)
    # An agent's edit next to a human's escapes: they are context and removed lines of the patch.
    b = ChangesetBuilder(ws.vault, ws.require_graph())
    b.edit(DODO, [{"old": "Its remedy is the Caucus-race.", "new": "Its remedy is the [[Caucus-Race]]."}],
           f"why {ESCAPES}")
    ws.pending.save(b.build("edit", f"title {ESCAPES}"))
    # A changeset made otherwise (an older wikitui, a hand-written file): its new text holds them too.
    fc = make_file_change(0, "wiki/new-hostile.md", "create", None, "", f"# New\n\n{ESCAPES}\n", reason=ESCAPES)
    ws.pending.save(Changeset(id="cs-20260101-abcdef", op="edit", title=ESCAPES,
                              created="2026-01-01T00:00:00", files=[fc]))
    return sample_vault


def command(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_visible(out: str, err: str) -> None:
    assert not RAW.search(out), repr(RAW.search(out))
    assert not RAW.search(err), repr(RAW.search(err))


@pytest.mark.parametrize("argv", [
    ["pending"],
    ["pending", "show", "cs-20260101-abcdef"],
    ["search", "zyzzyva"],
    ["search", "zyzzyva", "--scope", "raw"],
    ["links", "wiki/hostile.md"],
    ["links", "wiki/characters/alice.md"],
    ["lint"],
])
def test_printing_commands_show_escapes_visibly(capsys, hostile_vault, argv):
    code, out, err = command(capsys, *argv, "--vault", str(hostile_vault))
    assert "Traceback" not in err
    assert_visible(out, err)
    assert out, err


def test_pending_show_of_a_humans_escapes_shows_them(capsys, hostile_vault):
    ws = Workspace.open(hostile_vault)
    agent = next(cs for cs in ws.pending.list() if cs.id != "cs-20260101-abcdef")
    for cs_id, shown in ((agent.id, "␛[1A␛[2Khidden rabbit␛]52;c;ZXZpbA==␇ \\x9b2J ⟨U+202E⟩evil⟨U+202C⟩"),
                         ("cs-20260101-abcdef", "+␛[1A␛[2Khidden rabbit")):
        code, out, err = command(capsys, "pending", "show", cs_id, "--vault", str(hostile_vault))
        assert code == 0, err
        assert shown in out
        assert_visible(out, err)


@pytest.mark.parametrize("argv", [
    ["pending", "list", "--json"],
    ["pending", "show", "cs-20260101-abcdef", "--json"],
    ["search", "zyzzyva", "--json"],
    ["links", "wiki/hostile.md", "--json"],
    ["lint", "--json"],
])
def test_json_output_escapes_them_and_keeps_the_data(capsys, hostile_vault, argv):
    code, out, err = command(capsys, *argv, "--vault", str(hostile_vault))
    assert_visible(out, err)
    json.loads(out)
    if argv[:2] == ["pending", "show"]:
        assert ESCAPES in json.loads(out)["patch"]  # the data exact: a script gets the bytes


def test_ask_and_ingest_show_the_models_and_the_sources_escapes(fake_llm, hostile_vault):
    fake_llm.script(tool_call("read", path="wiki/hostile.md"), text(f"The answer {ESCAPES} ends here."))
    code, out, err = run(run_ask, hostile_vault, "What is hostile?", client=fast_client())
    assert code == 0, err
    assert "The answer ␛[1A" in out
    assert_visible(out, err)
    fake_llm.script(
        tool_call("read", path="raw/hostile-source.md"),
        text(f"Plan: {ESCAPES}"),
        tool_calls(
            ("propose_page", {"path": "wiki/evil.md", "content": f"# Evil\n\n{ESCAPES}\n", "reason": ESCAPES}),
            ("propose_edit", {"path": DODO, "reason": "link", "edits": [
                {"old": "Its remedy is the Caucus-race.", "new": "Its remedy is the [[Caucus-Race]]."}]}),
        ),
        text(f"Done {ESCAPES}."),
        text("[[Caucus-Race]] is left for later."),  # its broken link goes back to the model once
    )
    code, out, err = run(run_ingest, hostile_vault, "raw/hostile-source.md", client=fast_client())
    assert code == 0, err
    assert "+++ b/wiki/characters/dodo.md" in out and "wiki/evil.md" not in out  # its escapes: refused
    assert "␛[1A␛[2Khidden rabbit" in out  # the human's line, a context line of the patch
    assert "Plan: ␛[1A" in err
    assert_visible(out, err)


def test_ask_through_the_command_line(fake_llm, capsys, hostile_vault):
    fake_llm.script(text(f"Answer {ESCAPES}"))
    code, out, err = command(capsys, "ask", "What?", "--vault", str(hostile_vault))
    assert code == 0, err
    assert out.startswith("Answer ␛[1A")
    assert_visible(out, err)


def test_a_stream_of_the_cli_keeps_our_own_progress_codes():
    from wikitui.core.vault.visible_text import VisibleWriter, unfiltered

    raw = io.StringIO()
    w = VisibleWriter(raw)
    print("page \x1b[2J", file=w)
    unfiltered(w).write("\r\x1b[K")
    assert raw.getvalue() == "page ␛[2J\n\r\x1b[K"


def test_mcp_text_shows_them_and_a_proposal_of_them_is_an_error(hostile_vault):
    from wikitui.core.mcp.session import McpSession

    ws = Workspace.open(hostile_vault)
    session = McpSession(ws, client="test-client")
    try:
        for name, args in (("read", {"path": "wiki/hostile.md"}), ("search", {"query": "zyzzyva"}),
                           ("links", {"path": "wiki/characters/alice.md"})):
            ok, shown = session.call(name, args)
            assert ok and "␛[1A" in shown and not RAW.search(shown), (name, shown)
        resource = session.read_resource("wiki://page/wiki/hostile.md")
        assert "␛[1A" in resource and not RAW.search(resource)
        ok, shown = session.call("propose_page", {"path": "wiki/evil.md", "content": f"# E\n{ESCAPES}\n", "reason": "r"})
        assert not ok and "U+001B (ESCAPE)" in shown
        ok, shown = session.call("propose_page", {"path": "wiki/a\nb.md", "content": "# E\n", "reason": "r"})
        assert not ok and "a path may not hold the control character U+000A" in shown
        assert session.changeset_id is None or not (hostile_vault / ".wikitui/pending" / f"{session.changeset_id}.json").exists()
    finally:
        ws.close()
