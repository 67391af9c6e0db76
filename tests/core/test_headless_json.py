"""``ask --json`` and ``ingest --json`` in the cases a script must be able to rely on (DESIGN §10).

One document on stdout or none at all (a failure), the agent's words on stderr, and
the exit status the command has without ``--json``.
"""

from __future__ import annotations

import json

from tests.core.test_headless import fast_client, ingest_script_with_a_human_edit, run
from tests.fakeserver import error, text, tool_call
from wikitui.core.agent.headless import run_ask, run_ingest


def test_ask_json_without_file_streams_nothing_but_the_document(fake_llm, sample_vault):
    fake_llm.script(tool_call("search", query="grin"),
                    text("It grins ([[Cheshire Cat]]), see [the cat](wiki/characters/cheshire-cat.md) and "
                         "[[Cheshire Cat|the Cat]] and https://example.com/cat."))
    code, out, err = run(run_ask, sample_vault, "What does the Cat do?", client=fast_client(), as_json=True)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["answer"].startswith("It grins") and "It grins" in err  # the answer streams on stderr
    assert doc["citations"] == [  # each target once, in order; a URL is not a citation
        {"target": "Cheshire Cat", "path": "wiki/characters/cheshire-cat.md"},
        {"target": "wiki/characters/cheshire-cat.md", "path": "wiki/characters/cheshire-cat.md"},
    ]
    assert doc["unresolved"] == [] and doc["changeset"] is None
    assert doc["tokens"]["in"] > 0 and doc["cost"] >= 0


def test_a_failed_ask_prints_no_document(fake_llm, sample_vault):
    fake_llm.script(*[error(500)] * 4)
    code, out, err = run(run_ask, sample_vault, "hi", client=fast_client(), as_json=True)
    assert (code, out) == (3, "") and "HTTP 500" in err


def test_ingest_apply_json_on_a_conflict_exits_4_and_says_not_applied(fake_llm, sample_vault):
    fake_llm.script(*ingest_script_with_a_human_edit(sample_vault))
    code, out, err = run(run_ingest, sample_vault, "raw/chapter-03.md", apply=True, client=fast_client(),
                         as_json=True)
    assert code == 4 and "wiki/characters/dodo.md" in err
    doc = json.loads(out)
    assert doc["applied"] is False and doc["changeset"]["id"].startswith("cs-")
    assert [f["path"] for f in doc["changeset"]["files"]] == ["wiki/themes/caucus-race.md", "wiki/characters/dodo.md"]
    assert not (sample_vault / "wiki/themes/caucus-race.md").exists()
