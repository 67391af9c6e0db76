"""The eval's invented world: its planted facts, its long chronicle, and the checks that read what was read.

The vault is the repository's ``evalworld/`` folder; these tests hold what makes it a
fixture memory cannot pass: the planted values are in its sources and nowhere in its
wiki, two sources contradict each other, the chronicle's later chapters lie past any
first screen, and a quote or a citation counts only when the transcript shows the read.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, SAMPLE
from wikitui.core.agent.numbered import MAX_READ_LINES
from wikitui.core.eval import report
from wikitui.core.eval import world as w
from wikitui.core.eval.checks import evidence as ev
from wikitui.core.eval.checks import reading as rd
from wikitui.core.eval.checks.common import fold
from wikitui.core.eval.fixture import prepare_world
from wikitui.core.eval.outcome import Outcome, snapshot, tool_uses
from wikitui.core.eval.runner import TaskResult
from wikitui.core.eval.sample import world_vault_dir
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault

WORLD = ROOT / "evalworld"
NAMES = ("Sallowmir", "Ostrevan", "Brelquist", "Vaskilde", "Quorrick", "Throssmund", "Keddering", "Pellumgate",
         "Marrowquin", "Drossavar", "Oskelby", "Tavrenna", "Ferrowick", "Hesselvey", "Skerrow")


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The world's base vault: (its files, the vault, its link graph), made once for the module."""
    root = prepare_world(tmp_path_factory.mktemp("world") / "base")
    vault = Vault.open(root)
    return snapshot(root), vault, LinkGraph.load(vault, use_cache=False, save_cache=False)


def outcome(base, answer: str = "", calls=(), after=None) -> Outcome:
    files, vault, graph = base
    return Outcome(vault=vault, before=files, after=after or files, answer=answer, calls=list(calls), graph=graph)


def read_call(path: str, lines: range, total: int = 30) -> list[dict]:
    """The messages of one ``read`` the tool answered with ``lines`` of ``path`` (as the tool words it)."""
    source = (WORLD / path).read_text("utf-8").splitlines()
    rows = [f"{n:>5}\t{source[n - 1]}" for n in lines]
    result = "\n".join([f"{path} (raw source, read-only) lines {lines.start}-{lines.stop - 1} of {total}", *rows])
    return [{"role": "assistant", "tool_calls": [{"id": f"r{lines.start}", "function": {
                "name": "read", "arguments": json.dumps({"path": path, "offset": lines.start - 1})}}]},
            {"role": "tool", "tool_call_id": f"r{lines.start}", "content": result}]


def test_the_shipped_vault_is_found_and_is_the_repositorys_evalworld_folder():
    assert world_vault_dir().resolve() == WORLD.resolve()


def test_every_planted_value_is_in_the_sources_and_nowhere_in_the_wiki():
    raw = fold("\n".join(p.read_text("utf-8") for p in (WORLD / "raw").glob("*.md")))
    wiki = "\n".join(p.read_text("utf-8") for p in (WORLD / "wiki").rglob("*.md"))
    for value in (*w.RAW_ONLY, w.TALLYMAN):
        assert rd.has_value(raw, value), value
    for value in w.RAW_ONLY:
        assert not rd.has_value(wiki, value), value  # only reading raw/ can answer
    assert rd.has_value(wiki, w.TALLYMAN)  # the tallyman has a page; the count he made does not


def test_two_sources_contradict_each_other_on_the_founding_year():
    charter, traveller = (WORLD / w.CHARTER).read_text("utf-8"), (WORLD / w.TRAVELLER).read_text("utf-8")
    assert rd.has_value(charter, w.FOUNDED_CHARTER) and not rd.has_value(charter, w.FOUNDED_TRAVELLER)
    assert rd.has_value(traveller, w.FOUNDED_TRAVELLER) and not rd.has_value(traveller, w.FOUNDED_CHARTER)


def test_the_invented_names_are_in_no_alice_page_and_are_no_common_words():
    alice = fold("\n".join(p.read_text("utf-8") for p in SAMPLE.rglob("*.md")))
    for name in NAMES:
        assert fold(name) not in alice, name
        assert name[0].isupper() and len(name) >= 7  # a made-up proper name, not a word like "harbour"


def test_the_long_chronicle_is_over_30000_words_made_the_same_each_time_with_late_facts_past_a_first_read():
    text = w.long_source()
    assert len(text.split()) >= 30_000
    assert w.long_source.__wrapped__() == text  # generated deterministically (no clock, no random)
    lines = text.splitlines()
    for fact in w.FACTS:
        (line,) = w.fact_lines(fact.chapter)
        assert line in w.chapter_lines(fact.chapter) and fact.sentence in lines[line - 1]
        assert sum(fact.sentence in row for row in lines) == 1
    # Not even one read of the most lines the tool gives reaches a late chapter's fact.
    assert min(w.fact_lines(n).start for n in w.LATE_CHAPTERS) > MAX_READ_LINES
    assert w.sources() == {w.LONG: text}


# ------------------------------------------------------------------ what was read
def test_read_rows_are_the_lines_the_model_was_shown(base):
    calls = tool_uses(read_call(w.LEDGER, range(3, 6)) + read_call(w.LEDGER, range(10, 12)))
    o = outcome(base, calls=calls)
    assert o.seen_lines() == {w.LEDGER: {3, 4, 5, 10, 11}}
    refused = tool_uses([{"role": "assistant", "tool_calls": [{"id": "x", "function": {
        "name": "read", "arguments": '{"path": "raw/harbour-ledger.md"}'}}]},
        {"role": "tool", "tool_call_id": "x", "content": "error: no such page"}])
    assert outcome(base, calls=refused).seen_lines() == {}


def test_a_citation_counts_only_when_it_was_read_in_the_task(base):
    ledger = tool_uses(read_call(w.LEDGER, range(1, 26), total=25))
    answer = "The Guild worked 218 pans (raw/harbour-ledger.md)."
    assert rd.cites_read(w.LEDGER)(outcome(base, answer, ledger)) is None
    assert "did not read in this task: raw/harbour-ledger.md" in rd.cites_read(w.LEDGER)(outcome(base, answer))
    with_title = answer + " See [[Ostrevan Salt Guild]]."  # a title index.md lists, never read
    assert "did not read in this task: " + w.GUILD_PAGE in rd.cites_read(w.LEDGER)(outcome(base, with_title, ledger))
    assert rd.cites_read()(outcome(base, "218.", ledger)) == "the answer cites nothing"


@pytest.mark.parametrize(("answer", "holds"), [
    ("They froze on 9 February 1811.", True), ("On February 9, 1811.", True), ("the 9th of Feb. 1811", True),
    ("1811-02-09", True), ("19 February 1811", False), ("9 February 1812", False), ("9 March 1811", False),
])
def test_a_planted_date_in_any_usual_form(base, answer, holds):
    assert (rd.says_date(*w.FREEZE_DATE)(outcome(base, answer)) is None) is holds


@pytest.mark.parametrize(("text", "value", "holds"), [
    ("worked 218 pans", "218", True), ("worked 2180 pans", "218", False), ("1218", "218", False),
    ("1406 barrels", "1,406 barrels", True), ("1,406 barrels", "1,406 barrels", True),
    ("CORVANE  PELLUMGATE", "Corvane Pellumgate", True), ("127 feet", "127 feet", True), ("127 ft", "127 feet", False),
    ("lit on November 2, 1824", "2 November 1824", True), ("1824-11-02", "2 November 1824", True),
    ("12 November 1824", "2 November 1824", False),
])
def test_a_planted_value_is_a_whole_word_or_number(text, value, holds):
    assert rd.has_value(text, value) is holds


# ------------------------------------------------------------------ evidence
LOCKED_LINE = 15


@pytest.mark.parametrize("where", [f"({w.DIARY}#L{LOCKED_LINE})", f"({w.DIARY}, line {LOCKED_LINE})",
                                   f"({w.DIARY}:{LOCKED_LINE})", f"({w.DIARY}, lines {LOCKED_LINE}-{LOCKED_LINE})"])
def test_a_quote_in_the_answer_holds_at_the_lines_given_when_they_were_read(base, where):
    diary = tool_uses(read_call(w.DIARY, range(1, 24), total=23))
    answer = f'She wrote: "the harbour is LOCKED and no boat can go in or out" {where}'  # case is folded
    assert ev.answer_quotes("the harbour is locked")(outcome(base, answer, diary)) is None
    assert "the model never read raw/tidewatch-diary.md" in ev.answer_quotes()(outcome(base, answer))
    elsewhere = tool_uses(read_call(w.DIARY, range(1, 10), total=23))
    assert "never shown those lines" in ev.answer_quotes()(outcome(base, answer, elsewhere))


def test_a_quote_at_the_wrong_lines_or_reworded_does_not_hold(base):
    diary = tool_uses(read_call(w.DIARY, range(1, 24), total=23))
    wrong_lines = f'"The harbour is locked and no boat can go in or out." ({w.DIARY}#L9)'
    assert "does not hold those words there" in ev.answer_quotes()(outcome(base, wrong_lines, diary))
    reworded = f'"The harbour was locked and no boat could move." ({w.DIARY}#L{LOCKED_LINE})'
    assert "does not hold those words there" in ev.answer_quotes()(outcome(base, reworded, diary))
    skipped = f'"The harbour froze ... no boat can go in or out." ({w.DIARY}#L{LOCKED_LINE})'
    assert ev.answer_quotes()(outcome(base, skipped, diary)) is None  # an ellipsis skips words, in order
    out_of_order = f'"no boat can go in or out ... The harbour froze" ({w.DIARY}#L{LOCKED_LINE})'
    assert "does not hold those words there" in ev.answer_quotes()(outcome(base, out_of_order, diary))
    past_the_end = f'"The harbour is locked" ({w.DIARY}#L90)'
    assert "lines raw/tidewatch-diary.md does not have" in ev.answer_quotes()(outcome(base, past_the_end, diary))
    assert "gives 0 quoted pieces" in ev.answer_quotes()(outcome(base, "She said the harbour was locked.", diary))


def propose(args: dict, ok: bool = True) -> list[dict]:
    return [{"role": "assistant", "tool_calls": [{"id": "p", "function": {
                "name": "propose_edit", "arguments": json.dumps(args)}}]},
            {"role": "tool", "tool_call_id": "p", "content": "recorded" if ok else "error: refused"}]


@pytest.mark.parametrize(("lines", "span"), [("15", (15, 15)), ("15-15", (15, 15)), ("L14-L15", (14, 15)),
                                             ([15], (15, 15)), ([14, 15], (14, 15)), (15, (15, 15))])
def test_evidence_arguments_of_an_accepted_proposal_are_checked_like_footnotes(base, lines, span):
    """The per-hunk ``evidence`` argument (issue 25.1): read from the calls the tools accepted."""
    evidence = [{"source": w.DIARY, "quote": "The harbour is locked", "lines": lines}]
    args = {"path": "wiki/events/great-freeze.md", "edits": [{"old": "a", "new": "b", "evidence": evidence}],
            "reason": "r"}
    diary = read_call(w.DIARY, range(1, 24), total=23)
    o = outcome(base, calls=tool_uses(diary + propose(args)))
    (item,) = ev.call_evidence(o)
    assert (item.source, item.lines, item.quote) == (w.DIARY, span, "The harbour is locked")
    assert ev.pages_evidence("the harbour is locked")(o) is None
    refused = outcome(base, calls=tool_uses(diary + propose(args, ok=False)))
    assert ev.call_evidence(refused) == []  # what the tools refused proposes nothing


def test_footnotes_the_changeset_added_are_the_pages_evidence(base):
    files = base[0]
    page = "wiki/events/great-freeze.md"
    note = f'\nIt froze.[^1]\n\n[^1]: {w.DIARY}#L{LOCKED_LINE} "The harbour is locked and no boat can go in or out."\n'
    after = {**files, page: files[page] + note.encode()}
    diary = tool_uses(read_call(w.DIARY, range(1, 24), total=23))
    o = outcome(base, calls=diary, after=after)
    assert [(e.source, e.lines) for e in ev.page_evidence(o)] == [(w.DIARY, (LOCKED_LINE, LOCKED_LINE))]
    assert ev.pages_evidence("the harbour is locked")(o) is None
    assert 'no evidence quotes the source for "23"' in ev.pages_evidence("23")(o)
    assert "at least 2 expected" in ev.pages_evidence(min_items=2)(o)
    # The same footnote already on the page before the run is not this changeset's evidence.
    same = outcome(base, calls=diary)
    assert "0 quoted pieces" in ev.pages_evidence()(same)


def test_the_json_and_the_table_report_each_group():
    results = [TaskResult(name=n, group=g, passed=p, why="", tokens=1, cost=0.0, seconds=0.1)
               for n, g, p in [("a", "ask", True), ("b", "ask", False), ("c", "world", False), ("d", "world", False)]]
    data = report.to_json("m", results)
    assert data["groups"] == {"ask": {"score": 50.0, "passed": 1, "total": 2},
                              "world": {"score": 0.0, "passed": 0, "total": 2}}
    assert data["score"] == 25.0 and [t["name"] for t in data["tasks"]] == ["a", "b", "c", "d"]
    assert "Groups: ask 50 (1/2), world 0 (0/2)" in report.table("m", results)


# ------------------------------------------------------------------ properties
DIARY_LINES = (WORLD / w.DIARY).read_text("utf-8").splitlines()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_any_quote_copied_from_lines_that_were_read_holds(base, data):
    first = data.draw(st.integers(1, len(DIARY_LINES)))
    last = data.draw(st.integers(first, min(len(DIARY_LINES), first + 2)))
    joined = " ".join(DIARY_LINES[first - 1:last])
    words = joined.split()
    if len(words) < 2 or any(ch in joined for ch in '"“”'):
        return
    start = data.draw(st.integers(0, len(words) - 2))
    end = data.draw(st.integers(start + 2, len(words)))
    quote = " ".join(words[start:end])
    if len(quote) < 3:
        return
    answer = f'"{quote}" ({w.DIARY}#L{first}-L{last})'
    diary = tool_uses(read_call(w.DIARY, range(1, len(DIARY_LINES) + 1), total=len(DIARY_LINES)))
    assert ev.answer_quotes()(outcome(base, answer, diary)) is None, answer


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300)
       | st.from_regex(r'"[^"]{0,40}" \((raw|wiki)/[a-z.-]{0,12}(#L\d{1,4}(-L?\d{1,4})?|, lines? \d{1,3}-\d{1,3})?\)'))
def test_no_text_breaks_the_evidence_and_value_parsers(base, answer):
    o = outcome(base, answer)
    for check in (ev.answer_quotes(), rd.says_date(*w.FREEZE_DATE), rd.says_value(w.PANS), rd.cites_read()):
        why = check(o)
        assert why is None or isinstance(why, str)
    assert isinstance(ev.answer_evidence(o), list)
