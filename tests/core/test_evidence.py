"""Evidence for every claim the agent writes, and staleness at the claim (DESIGN §11 "Evidence", issue 25.1-2).

An agent turn through the fake server proposes with evidence: the good quote is kept, the bad
one goes back to the model once and comes back fixed; the pending changeset keeps it per hunk;
the second reviewer is given the evidence lines, not the whole source; log.md summarises it;
footnotes are written when WIKI.md asks; a one-line change in a long source marks only the
claim drawing on that line.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_run import run_wikitui
from tests.core.test_review_model import REVIEWER
from tests.core.test_session import Chat, sent
from tests.fakeserver import Dynamic, text, tool_call
from wikitui.core.agent.review_pass import review_messages
from wikitui.core.changes.builder import Changeset, ChangesetBuilder
from wikitui.core.changes.evidence_hunks import unbacked, wants_footnotes
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.claims import ClaimRecords
from wikitui.core.vault.evidence import Evidence
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.lint import run_lint
from wikitui.core.vault.staleness import SourceRecords
from wikitui.core.workspace import Workspace

DODO = "wiki/characters/dodo.md"
OLD = "Its remedy is the Caucus-race."
NEW = "Its remedy is the Caucus-race, the best thing, it says, to get everyone dry."
GOOD = {"source": "raw/chapter-03.md", "quote": "the best thing to get us dry would be a Caucus-race"}
BAD = {"source": "raw/chapter-03.md", "quote": "a race run in a perfect square"}
FIXED = {"source": "raw/chapter-03.md", "quote": "in a sort of  circle", "lines": "39"}  # folded: two spaces


def edit_with(old: str, new: str, *evidence: dict):
    return tool_call("propose_edit", path=DODO, edits=[{"old": old, "new": new, "evidence": list(evidence)}],
                     reason="the remedy's purpose")


async def test_a_bad_quote_goes_back_once_and_the_fixed_evidence_is_kept_per_hunk(fake_llm, sample_vault):
    fake_llm.script(edit_with(OLD, NEW, GOOD, BAD), text("Noted on [[Dodo]]."),
                    edit_with(NEW, NEW, GOOD, FIXED), text("Noted on [[Dodo]], with its evidence."))
    chat = Chat(sample_vault)
    done = await chat.session.ask("Note why the Dodo wants a race")
    assert not done.failed and len(fake_llm.requests) == 4
    feedback = sent(fake_llm, 2)[-1]["content"]  # returned once, before the turn ended
    assert feedback.startswith("[wikitui: evidence checked:")
    assert "raw/chapter-03.md does not hold the quote “a race run in a perfect square” (evidence for " \
           f"{DODO})" in feedback
    assert "best thing to get us dry" not in feedback  # the good quote is not returned
    notes = [e.text for e in chat.events if type(e).__name__ == "Notice"]
    assert not any("does not hold" in n for n in notes[-3:])  # fixed: nothing left to say at the end
    (pending,) = PendingStore(Vault.open(sample_vault)).list()
    data = json.loads((sample_vault / ".wikitui/pending" / f"{pending.id}.json").read_text())
    carried = [(h["id"], h["evidence"]) for f in data["files"] for h in f["hunks"] if h.get("evidence")]
    assert len(carried) == 1  # on the hunk that adds the claim, not the `updated:` date's hunk
    (hunk_id, evidence) = carried[0]
    assert [(e["quote"], e["match"], e["start"], e["end"]) for e in evidence] == [
        (GOOD["quote"], "exact", 33, 33), (FIXED["quote"], "folded", 39, 39)]
    assert all(e["claim"] == NEW for e in evidence)
    assert "+" + NEW in "".join(Changeset.from_dict(data).hunk(hunk_id).lines)
    assert Changeset.from_dict(data).to_dict() == data  # the JSON round trip keeps the evidence


async def test_a_quote_still_wrong_after_the_one_return_is_told_and_marked(fake_llm, sample_vault):
    fake_llm.script(edit_with(OLD, NEW, BAD), text("Done."), text("Done, as asked."))
    chat = Chat(sample_vault)
    done = await chat.session.ask("Note why the Dodo wants a race")
    assert len(fake_llm.requests) == 3  # once only: the third request is not a second return
    assert [e.text for e in chat.events if type(e).__name__ == "Notice" and "does not hold" in e.text] == [
        "Evidence its source does not hold (marked ⚠ in the review): raw/chapter-03.md does not hold the quote "
        f"“a race run in a perfect square” (for {DODO})"]
    (fc,) = done.changeset.files
    hunk = next(h for h in fc.hunks if h.evidence)
    assert hunk.evidence[0].match == "missing" and not hunk.evidence[0].found


def _reviewed(body: dict):
    hunks = body["messages"][-1]["content"]
    ids = [line.split()[2].rstrip(":") for line in hunks.splitlines() if line.startswith("--- hunk ")]
    return text(json.dumps([{"hunk": i, "verdict": "ok", "note": "backed"} for i in ids]), usage=(50, 5))


async def test_the_second_reviewer_gets_the_evidence_lines_not_the_whole_source(fake_llm, sample_vault):
    fake_llm.script(edit_with(OLD, NEW, GOOD), text("Noted."), Dynamic(_reviewed))
    chat = Chat(sample_vault, review_model=REVIEWER)
    done = await chat.session.ask("Note why the Dodo wants a race")
    body = fake_llm.requests[-1]
    assert body["model"] == REVIEWER.split("/", 1)[1]
    user = body["messages"][-1]["content"]
    line33 = (sample_vault / "raw/chapter-03.md").read_text().splitlines()[32]
    assert f"evidence raw/chapter-03.md lines 33:\n   33| {line33}" in user
    assert "=== source raw/chapter-03.md ===" not in user  # not the whole source
    source = (sample_vault / "raw/chapter-03.md").read_text().splitlines()
    assert source[0] not in user and source[38][:60] not in user  # other lines of the source are not sent
    hunks = done.changeset.files[0].hunks
    assert {h.review["verdict"] for h in hunks if h.review} == {"ok"}  # the reviewer's answer was read


def test_without_evidence_the_reviewer_still_gets_the_sources_a_page_lists(sample_vault):
    vault = Vault.open(sample_vault)
    b = ChangesetBuilder(vault, LinkGraph.load(vault))
    b.edit(DODO, [{"old": OLD, "new": NEW}], "r")
    user = review_messages(vault, b.build("edit", "t"))[-1]["content"]
    assert "=== source raw/chapter-03.md ===" in user


def apply_edit(root, *evidence: dict, new: str = NEW, old: str = OLD, path: str = DODO):
    vault = Vault.open(root)
    ws = Workspace.open(root)
    ws.require_graph()
    b = ChangesetBuilder(vault, LinkGraph.load(vault))
    b.edit(path, [{"old": old, "new": new, "evidence": list(evidence)}], "r")
    changeset = b.build("edit", "the remedy")
    ws.apply(changeset)
    return changeset


def test_log_md_summarises_the_evidence_of_what_was_applied(sample_vault):
    apply_edit(sample_vault, GOOD, BAD)
    log = (sample_vault / "wiki/log.md").read_text()
    entry = log[log.rindex("## ["):]
    assert "- evidence: 2 quotes from raw/chapter-03.md; 1 not found in its source" in entry


def test_footnotes_are_written_when_wiki_md_asks_and_not_otherwise(sample_vault):
    plain = apply_edit(sample_vault, GOOD)
    assert "[^" not in (sample_vault / DODO).read_text() and plain.files
    schema = sample_vault / "WIKI.md"
    schema.write_text(schema.read_text() + "\n## Evidence\n\nEvidence: footnotes\n")
    assert wants_footnotes(schema.read_text())
    later = "It marks out a course in a sort of circle."
    apply_edit(sample_vault, FIXED, GOOD, old=NEW, new=NEW + " " + later)
    page = (sample_vault / DODO).read_text()
    assert f"{NEW} {later}[^1][^2]" in page
    assert page.rstrip().endswith('[^1]: raw/chapter-03.md#L39 "in a sort of circle"\n'
                                  '[^2]: raw/chapter-03.md#L33 "the best thing to get us dry would be a Caucus-race"')


def test_hunks_that_add_claims_with_no_evidence_are_found(sample_vault):
    vault = Vault.open(sample_vault)
    b = ChangesetBuilder(vault, LinkGraph.load(vault))
    b.edit(DODO, [{"old": OLD, "new": NEW}], "r")
    (fc,) = b.build("edit", "t").files
    claims = [h for h in fc.hunks if unbacked(fc, h)]
    assert len(claims) == 1 and any(line.startswith("+" + NEW) for line in claims[0].lines)
    assert not any(unbacked(fc, h) for h in fc.hunks if "updated:" in "".join(h.lines))  # the date is no claim


LONG = "raw/long-source.md"


def body_line_of(text: str) -> str:
    """The first line of prose below a page's frontmatter."""
    body = text.split("\n---\n", 1)[1]
    return next(ln for ln in body.splitlines() if len(ln.split()) > 8 and not ln.startswith(("#", ">")))


def long_source(root, n: int = 400) -> list[str]:
    lines = [f"Line {i} of the long source says fact number {i} about the Dodo." for i in range(1, n + 1)]
    (root / LONG).write_text("\n".join(lines) + "\n")
    return lines


def test_a_one_line_change_in_a_long_source_marks_only_the_claim_on_that_line(sample_vault):
    lines = long_source(sample_vault)
    pages = []
    for i, page in enumerate(("wiki/characters/dodo.md", "wiki/characters/mouse.md", "wiki/characters/alice.md")):
        text = (sample_vault / page).read_text()
        body_line = body_line_of(text)
        claim = body_line + f" It also states fact {100 * (i + 1)}."
        quote = {"source": LONG, "quote": f"fact number {100 * (i + 1)} about", "lines": f"{100 * (i + 1)}"}
        apply_edit(sample_vault, quote, old=body_line, new=claim, path=page)
        pages.append(page)
    vault = Vault.open(sample_vault)
    assert len(ClaimRecords(vault).load()) == 3
    lines[149] = "Line 150 was corrected by hand."  # not a line any claim draws on
    (sample_vault / LONG).write_text("\n".join(lines) + "\n")
    report = run_lint(vault, LinkGraph.load(vault))
    assert [p for p in report.problems if p.check in ("stale", "stale-claim") and p.target == LONG] == []
    lines[199] = "Line 200 now says something else entirely."  # the mouse's claim drew on line 200
    (sample_vault / LONG).write_text("\n".join(lines) + "\n")
    graph = LinkGraph.load(vault)
    report = run_lint(vault, graph)
    found = [(p.check, p.path, p.target) for p in report.problems if p.target == LONG]
    assert found == [("stale-claim", "wiki/characters/mouse.md", LONG)]
    (problem,) = [p for p in report.problems if p.check == "stale-claim"]
    assert "lines 200, which no longer hold its quote" in problem.message and problem.line is not None
    assert SourceRecords(vault).stale_sources("wiki/characters/dodo.md", graph) == []  # not stale as a page
    cli = run_wikitui(["lint", "--json"], cwd=sample_vault)
    assert cli.returncode in (0, 1), cli.stderr
    reported = json.loads(cli.stdout)
    assert [(p["check"], p["path"]) for p in reported["problems"] if p["check"] in ("stale", "stale-claim")
            and p["target"] == LONG] == [("stale-claim", "wiki/characters/mouse.md")]
    assert reported["counts"]["stale-claim"] == 1


def test_a_quote_pushed_down_by_new_lines_is_moved_not_vanished(sample_vault):
    lines = long_source(sample_vault)
    text = (sample_vault / DODO).read_text()
    apply_edit(sample_vault, {"source": LONG, "quote": "fact number 300 about"}, old=OLD, new=OLD + " Fact 300.")
    (sample_vault / LONG).write_text("\n".join(["A new preface.", "Another.", *lines]) + "\n")
    (stale,) = ClaimRecords(Vault.open(sample_vault)).stale()
    assert (stale.page, stale.state, stale.was, stale.now) == (DODO, "moved", (300, 300), (302, 302))
    assert text != (sample_vault / DODO).read_text()


def test_evidence_round_trips_through_json():
    ev = Evidence(source="raw/x.md", quote="a “quote”\n", lines=(3, 4), claim="c", match="folded", start=3, end=4)
    assert Evidence.from_dict(json.loads(json.dumps(ev.to_dict()))) == ev
    assert ev.anchor == "raw/x.md#L3-L4"


def test_inits_schema_asks_for_footnotes_and_the_sample_does_not(tmp_path):
    from wikitui.core.vault.create import default_schema, init_vault

    assert wants_footnotes(default_schema())
    assert wants_footnotes("- Evidence: every factual sentence added to a page carries a footnote naming the lines")
    assert not wants_footnotes("Evidence matters.\nFootnotes are fine.")
    assert not wants_footnotes((Path(__file__).resolve().parents[2] / "sample" / "WIKI.md").read_text())
    init_vault(tmp_path / "v")
    (tmp_path / "v/raw/notes.md").write_text("Title line\n\nThe moon is made of rock and dust.\n")
    (tmp_path / "v/wiki/moon.md").write_text("---\ntitle: Moon\ntype: entity\nsummary: The moon\n---\n# Moon\n\n"
                                             "About the moon.\n")
    apply_edit(tmp_path / "v", {"source": "raw/notes.md", "quote": "made of rock and dust"}, path="wiki/moon.md",
               old="About the moon.", new="The moon is made of rock and dust.")
    page = (tmp_path / "v/wiki/moon.md").read_text()
    assert "The moon is made of rock and dust.[^1]" in page and page.endswith('[^1]: raw/notes.md#L3 "made of rock and dust"\n')


def test_the_prompts_ask_for_evidence_on_every_factual_sentence():
    from wikitui.core.agent.prompts import compact, fold, ingest, system

    assert "Back each fact you add with `evidence`" in system.ROLE
    assert "Give each added fact evidence" in compact.ROLE
    assert "evidence with every factual sentence" in ingest.ingest_write_task("raw/x.md", True)
    assert "each with the evidence it draws on" in fold.FOLD
