"""The second reviewer binds headless too (DESIGN §8, §11): ``--apply`` and ``pending apply`` leave a hunk the
reviewer found ``wrong`` pending, say so on stderr, and ``pending list/show --json`` carry each hunk's review
and decision."""

from __future__ import annotations

import json

from tests.core.test_headless import ingest_script
from tests.core.test_review_model import REVIEWER, ingest, judge, reviewed_vault  # noqa: F401 - a fixture
from tests.fakeserver import Dynamic
from wikitui import cli
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.layout import Vault

DODO = "wiki/characters/dodo.md"
CAUCUS = "wiki/themes/caucus-race.md"
LINK = "Its remedy is the [[Caucus-Race]]."


def wrong_ids(pending) -> list[str]:
    return [h.id for f in pending.files for h in f.hunks if (h.review or {}).get("verdict") == "wrong"]


def test_ingest_apply_leaves_the_hunk_the_reviewer_found_wrong_pending(fake_llm, reviewed_vault):
    fake_llm.script(*ingest_script(), Dynamic(judge))
    code, _out, err = ingest(reviewed_vault, apply=True)
    assert code == 0, err
    assert "1 wrong (they start rejected)" in err
    assert (reviewed_vault / CAUCUS).exists()  # the rest is applied
    assert LINK not in (reviewed_vault / DODO).read_text()  # the wrong hunk is not written
    (pending,) = PendingStore(Vault.open(reviewed_vault)).list()
    assert [f.path for f in pending.files] == [DODO] and len(wrong_ids(pending)) == 1
    assert f"wikitui: {DODO} hunk " in err and "left pending: openai/second-opinion found it wrong" in err
    assert "lower case" in err and f"changeset {pending.id} keeps 1 hunk(s) pending" in err


def test_pending_apply_leaves_the_wrong_hunk_pending_and_the_json_carries_reviews(fake_llm, reviewed_vault, capsys):
    fake_llm.script(*ingest_script(), Dynamic(judge))
    code, _out, err = ingest(reviewed_vault)
    assert code == 0, err
    (pending,) = PendingStore(Vault.open(reviewed_vault)).list()
    (wrong,) = wrong_ids(pending)

    assert cli.main(["pending", "list", "--json", "--vault", str(reviewed_vault)]) == 0
    (item,) = json.loads(capsys.readouterr().out)
    hunks = {h["id"]: h for h in item["hunks"]}
    assert set(hunks) == set(pending.hunk_ids())
    assert hunks[wrong]["path"] == DODO and hunks[wrong]["decision"] == "rejected"
    assert hunks[wrong]["review"]["verdict"] == "wrong" and hunks[wrong]["review"]["model"] == REVIEWER
    assert "lower case" in hunks[wrong]["review"]["note"]
    others = [h for hid, h in hunks.items() if hid != wrong]
    assert others and all(h["decision"] == "undecided" and h["review"]["verdict"] == "ok" for h in others)

    assert cli.main(["pending", "show", pending.id, "--json", "--vault", str(reviewed_vault)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["hunks"] == item["hunks"] and "patch" in shown

    assert cli.main(["pending", "apply", pending.id, "--vault", str(reviewed_vault)]) == 0
    captured = capsys.readouterr()
    assert CAUCUS in captured.out.splitlines()
    assert f"{DODO} hunk {wrong} left pending: {REVIEWER} found it wrong" in captured.err
    assert LINK not in (reviewed_vault / DODO).read_text()
    (left,) = PendingStore(Vault.open(reviewed_vault)).list()
    assert left.id == pending.id and [f.path for f in left.files] == [DODO] and len(wrong_ids(left)) == 1


def test_without_a_reviewer_the_json_says_no_review_and_every_hunk_is_undecided(fake_llm, sample_vault, capsys):
    fake_llm.script(*ingest_script())
    code, _out, err = ingest(sample_vault)
    assert code == 0, err
    assert cli.main(["pending", "list", "--json", "--vault", str(sample_vault)]) == 0
    (item,) = json.loads(capsys.readouterr().out)
    assert item["hunks"] and all(h["review"] is None and h["decision"] == "undecided" for h in item["hunks"])


def test_ingest_apply_json_names_the_hunks_it_held_back(fake_llm, reviewed_vault):
    fake_llm.script(*ingest_script(), Dynamic(judge))
    code, out, err = ingest(reviewed_vault, apply=True, as_json=True)
    assert code == 0, err
    doc = json.loads(out)
    # The ids are the proposal's, as in doc["changeset"] ("f1h1": file 1's hunk 1); that file's hunk stays pending.
    assert doc["applied"] is True and len(doc["held"]) == 1
    (held,) = doc["held"]
    file_no = int(held[1:].split("h")[0])
    assert doc["changeset"]["files"][file_no]["path"] == DODO
    (pending,) = PendingStore(Vault.open(reviewed_vault)).list()
    assert [f.path for f in pending.files] == [DODO] and len(wrong_ids(pending)) == 1
