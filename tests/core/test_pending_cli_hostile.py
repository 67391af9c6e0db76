"""``wikitui pending`` on hostile pending files: a terminal never runs a title, a tampered path writes nothing."""

from __future__ import annotations

import json

from wikitui import cli
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.workspace import Workspace

DODO = "wiki/characters/dodo.md"


def pending_edit(vault, title: str) -> str:
    ws = Workspace.open(vault)
    b = ChangesetBuilder(ws.vault, ws.require_graph())
    b.edit(DODO, [{"old": "Its remedy is the Caucus-race.", "new": "Its remedy is the [[Caucus-Race]]."}], "why")
    cs = b.build("edit", title)
    ws.pending.save(cs)
    return cs.id


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_title_with_control_characters_is_listed_escaped(capsys, sample_vault):
    cs_id = pending_edit(sample_vault, "tarts\x1b[2J\x1b]0;owned\x07 \x00\u2028gone")
    code, out, _ = run(capsys, "pending", "--vault", str(sample_vault))
    assert code == 0 and out.startswith(cs_id)
    assert "\x1b" not in out and "\x07" not in out and "\x00" not in out and out.count("\n") == 1
    assert "tarts\\x1b[2J\\x1b]0;owned\\x07 \\x00 gone" in out
    code, out, _ = run(capsys, "pending", "list", "--json", "--vault", str(sample_vault))
    assert json.loads(out)[0]["title"] == "tarts\x1b[2J\x1b]0;owned\x07 \x00\u2028gone"  # JSON keeps it exactly


def test_a_tampered_path_is_refused_in_one_line_and_nothing_is_written(capsys, sample_vault, tmp_path):
    cs_id = pending_edit(sample_vault, "tampered")
    path = sample_vault / ".wikitui/pending" / f"{cs_id}.json"
    data = json.loads(path.read_text())
    data["files"][0]["path"] = "raw/chapter-03.md"
    path.write_text(json.dumps(data))
    raw_before = (sample_vault / "raw/chapter-03.md").read_bytes()
    code, out, err = run(capsys, "pending", "apply", cs_id, "--vault", str(sample_vault))
    assert code == 2 and out == ""
    assert err.startswith("wikitui: error: raw/chapter-03.md") and err.count("\n") == 1 and "Traceback" not in err
    assert (sample_vault / "raw/chapter-03.md").read_bytes() == raw_before
