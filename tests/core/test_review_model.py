"""A second reviewer (DESIGN §11): `review_model` notes each hunk before the human sees it."""

from __future__ import annotations

import io
import json
import re

import pytest

from tests.core.test_headless import CAUCUS, ingest_script
from tests.fakeserver import Dynamic, text
from wikitui.core.agent.headless import run_ingest
from wikitui.core.agent.llm import LLMClient
from wikitui.core.agent.review_pass import parse_verdicts
from wikitui.core.changes.pending import PendingStore
from wikitui.core.config.settings import load_settings
from wikitui.core.vault.layout import Vault
from wikitui.core.workspace import Workspace

REVIEWER = "openai/second-opinion"


def hunks_in(body: dict) -> dict[str, str]:
    """Hunk id -> its text, from the reviewer's request."""
    user = body["messages"][-1]["content"]
    parts = re.split(r"^--- hunk (\S+): ", user, flags=re.MULTILINE)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def judge(body: dict):
    """The reviewer: the Dodo's new link is `wrong`, everything else `ok`."""
    assert body["model"] == REVIEWER.split("/", 1)[1]  # the request went to the review model
    verdicts = [{"hunk": hid, "verdict": "wrong" if "+Its remedy is the [[Caucus-Race]]" in hunk else "ok",
                 "note": "the source calls it a caucus-race, lower case" if "[[Caucus-Race]]." in hunk else "fine"}
                for hid, hunk in hunks_in(body).items()]
    return text(json.dumps(verdicts), usage=(900, 60))


@pytest.fixture
def reviewed_vault(sample_vault):
    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui/config.toml").write_text(f'review_model = "{REVIEWER}"\n')
    return sample_vault


def ingest(vault_path, **kw) -> tuple[int, str, str]:
    async def no_wait(_):
        return None

    out, err = io.StringIO(), io.StringIO()
    client = LLMClient(load_settings(), base_delay=0, sleep=no_wait)
    code = run_ingest(Workspace.open(vault_path), "raw/chapter-03.md", client=client, out=out, err=err, **kw)
    return code, out.getvalue(), err.getvalue()


def test_a_review_model_marks_one_hunk_wrong_in_the_pending_json(fake_llm, reviewed_vault):
    fake_llm.script(*ingest_script(), Dynamic(judge))
    code, _out, err = ingest(reviewed_vault)
    assert code == 0, err
    assert fake_llm.remaining == 0
    review_request = fake_llm.prompt_texts()[-1]
    assert "raw/chapter-03.md" in review_request and "Caucus" in review_request  # the hunk with its source
    (pending,) = PendingStore(Vault.open(reviewed_vault)).list()
    data = json.loads((reviewed_vault / ".wikitui/pending" / f"{pending.id}.json").read_text())
    reviews = {h["id"]: h["review"] for f in data["files"] for h in f["hunks"]}
    wrong = [hid for hid, r in reviews.items() if r["verdict"] == "wrong"]
    assert len(wrong) == 1 and reviews[wrong[0]]["model"] == REVIEWER
    assert "lower case" in reviews[wrong[0]]["note"]
    assert all(r["verdict"] == "ok" for hid, r in reviews.items() if hid not in wrong)
    assert data["review"]["tokens"] == {"in": 900, "out": 60}  # its usage, apart from the turn's
    assert "review: 960 tokens, $0.0000" in err


def test_the_review_usage_is_logged_apart_in_log_md(fake_llm, reviewed_vault):
    fake_llm.script(*ingest_script(), Dynamic(judge))
    code, _out, err = ingest(reviewed_vault, apply=True)
    assert code == 0, err
    log = (reviewed_vault / "wiki/log.md").read_text()
    entry = log[log.rindex("## ["):]
    assert f"- review: {REVIEWER}, 960 tokens, $0.0000" in entry
    assert "- tokens:" in entry  # the turn's own usage, on its own line


def test_a_garbage_review_answer_leaves_the_hunks_unannotated_with_a_notice(fake_llm, reviewed_vault):
    fake_llm.script(*ingest_script(), text("Looks fine to me, mostly! [not json"))
    code, _out, err = ingest(reviewed_vault)
    assert code == 0, err
    assert "not the JSON asked for" in err and "no hunk is annotated" in err
    (pending,) = PendingStore(Vault.open(reviewed_vault)).list()
    data = json.loads((reviewed_vault / ".wikitui/pending" / f"{pending.id}.json").read_text())
    assert all("review" not in h for f in data["files"] for h in f["hunks"])


def test_a_failed_review_request_still_leaves_the_changeset_pending(fake_llm, reviewed_vault):
    from tests.fakeserver import error

    fake_llm.script(*ingest_script(), error(401, "bad key for the reviewer"))
    code, _out, err = ingest(reviewed_vault)
    assert code == 0, err
    assert "review by openai/second-opinion failed" in err
    assert len(PendingStore(Vault.open(reviewed_vault)).list()) == 1


@pytest.mark.parametrize("answer, expected", [
    ('[{"hunk": "f0h0", "verdict": "WRONG", "note": "no"}]', {"f0h0": ("wrong", "no")}),
    ('```json\n[{"hunk": "f0h1", "verdict": "doubt"}]\n```', {"f0h1": ("doubt", "")}),
    ('Here: [{"hunk": "zz", "verdict": "ok"}]', None),  # unknown hunk only
    ('[{"hunk": "f0h0", "verdict": "great"}]', None),
    ("[" * 100_000, None),
    ('{"hunk": "f0h0", "verdict": "ok"}', None),
    ("", None),
])
def test_parse_verdicts(answer, expected):
    assert parse_verdicts(answer, ["f0h0", "f0h1"]) == expected


def test_the_notes_stay_on_the_hunks_left_pending_after_a_partial_apply(sample_vault):
    from wikitui.core.changes.builder import ChangesetBuilder

    ws = Workspace.open(sample_vault)
    graph = ws.load_graph()
    b = ChangesetBuilder(ws.vault, graph)
    b.new_page("wiki/themes/caucus-race.md", CAUCUS, "new concept")
    b.edit("wiki/characters/dodo.md", [{"old": "Its remedy is the Caucus-race.",
                                        "new": "Its remedy is the [[Caucus-Race]]."}], "link")
    cs = b.build("ingest", "chapter 3")
    dodo = cs.files[1]
    for h in dodo.hunks:
        h.review = {"verdict": "doubt", "note": f"about {h.id}", "model": REVIEWER}
    PendingStore(ws.vault).save(cs)
    result = ws.apply(cs, {cs.files[0].hunks[0].id})  # the new page only; the Dodo's hunks stay undecided
    left = PendingStore(ws.vault).load(cs.id)
    assert result.remaining is not None and [f.path for f in left.files] == ["wiki/characters/dodo.md"]
    assert [h.review for h in left.files[0].hunks] == [h.review for h in dodo.hunks]


def test_the_review_request_stays_bounded_on_a_huge_changeset(sample_vault):
    from wikitui.core.agent.review_pass import HUNKS_TOTAL, SOURCES_TOTAL, review_messages
    from wikitui.core.changes.builder import ChangesetBuilder

    ws = Workspace.open(sample_vault)
    b = ChangesetBuilder(ws.vault, ws.load_graph())
    for n in range(40):  # 40 new pages of 20,000 characters each, every one listing every chapter
        sources = ", ".join(f"raw/chapter-{i:02d}.md" for i in range(1, 13))
        b.new_page(f"wiki/big/page-{n}.md", f"---\ntitle: P{n}\nsources: [{sources}]\n---\n" + "word " * 4000, "big")
    messages = review_messages(ws.vault, b.build("ingest", "huge"))
    user = messages[-1]["content"]
    assert len(user) < HUNKS_TOTAL + SOURCES_TOTAL + 40 * 400  # headers and notes aside, the budgets hold
    assert "--- hunk f39h0" in user  # every hunk is still named, so each can get a verdict
