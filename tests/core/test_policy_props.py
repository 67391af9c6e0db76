"""Property tests for the two small parsers of the trust features: a page's `llm:` policy and a reviewer's
verdicts. Whatever the text, they answer (never raise) and only with what they may answer."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.core.agent.review_pass import VERDICTS, parse_verdicts
from wikitui.core.changes.policy import page_policy

IDS = ["f0h0", "f0h1", "f1h0"]
texts = st.text(alphabet=st.characters(blacklist_categories=()), max_size=400)


@settings(max_examples=200, deadline=None)
@given(texts)
def test_any_text_has_a_known_policy_or_none(text):
    assert page_policy(text) in (None, "locked", "append")
    assert page_policy("---\nllm: " + text + "\n---\n") in (None, "locked", "append")


@settings(max_examples=200, deadline=None)
@given(texts)
def test_any_answer_parses_to_known_hunks_and_verdicts_or_none(text):
    found = parse_verdicts(text, IDS)
    assert found is None or (found and all(h in IDS and v in VERDICTS for h, (v, _note) in found.items()))


entries = st.lists(st.fixed_dictionaries({
    "hunk": st.sampled_from(IDS + ["zz", ""]), "verdict": st.sampled_from([*VERDICTS, "OK", "meh", 3]),
    "note": st.one_of(st.text(max_size=50), st.integers(), st.none()),
}), max_size=6)


@settings(max_examples=200, deadline=None)
@given(entries, st.sampled_from(["{}", "```json\n{}\n```", "Sure! {} Hope it helps."]))
def test_a_json_answer_keeps_exactly_its_valid_entries(items, wrapping):
    found = parse_verdicts(wrapping.format(json.dumps(items)), IDS) or {}
    valid = {i["hunk"] for i in items if i["hunk"] in IDS and isinstance(i["verdict"], str)
             and i["verdict"].lower() in VERDICTS}
    assert set(found) == valid
    assert all("\n" not in note and len(note) <= 300 for _v, note in found.values())


def test_hostile_frontmatter_sets_no_policy():
    assert page_policy("---\nllm: " + "[" * 100_000 + "\n---\n") is None
    assert page_policy("---\nllm: locked\x00\n---\n") is None
    assert page_policy("---\nllm: \ud800\n---\n") is None
    # A block that is not valid YAML (aliases are refused) still has its plain `llm:` line: a lock never fails open.
    assert page_policy("---\na: &x [1]\nb: *x\nllm: locked\n---\n") == "locked"
    assert page_policy("---\ntitle: [unclosed\nllm: append  # diary\n---\n") == "append"
