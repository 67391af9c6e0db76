"""The eval's checks on hand-made outcomes: the callout format, tables, and hostile answers.

A model's answer is data like any other: whatever it says, a check answers "holds" or
"fails because...", and never crashes the run.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.core.eval import checks as c
from wikitui.core.eval.fixture import prepare_base
from wikitui.core.eval.outcome import Outcome, snapshot, tool_uses
from wikitui.core.eval.runner import score
from wikitui.core.eval.tasks import TASKS
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = prepare_base(tmp_path_factory.mktemp("eval") / "base")
    vault = Vault.open(root)
    files = snapshot(root)
    return vault, LinkGraph.load(vault, use_cache=False, save_cache=False), files


def outcome(world, answer: str = "", **kw) -> Outcome:
    vault, graph, files = world
    return Outcome(vault=vault, before=files, after=kw.pop("after", files), answer=answer, graph=graph, **kw)


def with_line(world, path: str, line: str) -> dict[str, bytes]:
    """The vault's files after adding ``line`` to the page at ``path``."""
    files = dict(world[2])
    files[path] = files[path] + f"\n{line}\n".encode()
    return files


@pytest.mark.parametrize("line", [
    "> [!contradiction] She shrinks to four inches — [[Size and Growth]] says ten inches (raw/chapter-01.md)",
    "> [!contradiction] She shrinks to four inches – [[Size and Growth|the table]] says ten inches",
    "> [!Contradiction] She shrinks to four inches - [[size and growth#Size changes by chapter]] says ten inches",
])
def test_the_callout_format_and_its_typographic_variants_count(world, line):
    page = "wiki/objects/drink-me-bottle.md"
    check = c.contradiction_callout(on=(page,), others=("wiki/themes/size-and-growth.md",))
    assert check(outcome(world, after=with_line(world, page, line))) is None


@pytest.mark.parametrize(("line", "why"), [
    ("> [!contradiction] four inches versus ten", "not in the format"),
    ("> Contradiction: four inches — [[Size and Growth]] says ten inches", "no '> [!contradiction]' callout"),
    ("> [!contradiction] four inches — [[Nowhere Page]] says ten inches", "no '> [!contradiction]' callout"),
    ("> [!contradiction] four inches — [[Drink Me Bottle]] says ten inches", "no '> [!contradiction]' callout"),
])
def test_a_callout_out_of_format_or_pointing_nowhere_does_not(world, line, why):
    page = "wiki/objects/drink-me-bottle.md"  # the last one points at its own page
    check = c.contradiction_callout(on=(page,), others=("wiki/themes/size-and-growth.md",))
    assert why in check(outcome(world, after=with_line(world, page, line)))


def test_a_callout_the_page_already_had_is_not_new(world):
    page = "wiki/objects/drink-me-bottle.md"
    line = "> [!contradiction] four — [[Size and Growth]] says ten"
    files = with_line(world, page, line)
    done = Outcome(vault=world[0], before=files, after=files, graph=world[1])
    assert "no '> [!contradiction]' callout" in c.contradiction_callout()(done)


@pytest.mark.parametrize(("answer", "rows"), [
    ("| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |", 2),
    ("a | b\n:--- | ---:\n1 | 2\n3 | 4\n5 | 6\n\nafter", 3),
    ("| a |\n|---|\n| 1 |", 0),  # one column is not a table the check counts
    ("- a\n- b\n| not | a table |", 0),
])
def test_tables_are_counted_by_their_rows(world, answer, rows):
    check = c.has_table(max(rows, 1))
    assert (check(outcome(world, answer)) is None) == (rows >= 1)


def test_quotes_and_case_do_not_hide_a_key_fact(world):
    assert c.says("we're all mad here")(outcome(world, "\u201cWe\u2019re ALL mad   here.\u201d")) is None
    assert c.says("eat me")(outcome(world, "**EAT ME**")) is None


def test_tool_uses_read_arguments_phases_and_refusals():
    messages = [
        {"role": "user", "content": "Ingest raw/x.md."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "propose_page", "arguments": '{"path": "wiki/x.md"}'}},
            {"id": "b", "type": "function", "function": {"name": "search", "arguments": "[1, 2"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "error: write the plan first"},
        {"role": "tool", "tool_call_id": "b", "content": "3 hits"},
        {"role": "assistant", "content": "Plan."},
        {"role": "user", "content": "Approved."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "propose_page", "arguments": '{"path": "wiki/x.md"}'}}]},
        {"role": "tool", "tool_call_id": "c", "content": "recorded new page wiki/x.md"},
    ]
    uses = tool_uses(messages, plan_count=5)
    assert [(u.phase, u.name, u.ok, u.args) for u in uses] == [
        ("plan", "propose_page", False, {"path": "wiki/x.md"}), ("plan", "search", True, {}),
        ("write", "propose_page", True, {"path": "wiki/x.md"})]


ANSWER_TASKS = [t for t in TASKS if t.op in ("ask", "lint")]


@settings(max_examples=200, deadline=None)
@given(answer=st.one_of(
    st.text(),
    st.text(alphabet=st.sampled_from("[]|#-—>!:\n `*\\\x00\ud800"), max_size=400),
    st.builds(lambda n: "[[" * n + "x" + "]]" * n, st.integers(0, 3000)),
    st.builds(lambda n: "|a|b|\n|---|---|\n" + "|1|2|\n" * n, st.integers(0, 500)),
))
def test_no_answer_crashes_a_check(world, answer):
    for task in ANSWER_TASKS:
        passed, why = score(outcome(world, answer), task)
        assert isinstance(passed, bool) and why
        assert "could not read" not in why, why
