"""Lint's trust checks (DESIGN §11): contradiction callouts, near-duplicate pages, staleness for every page."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from tests.core.test_lint import build, lint, only, page
from wikitui.core.vault.contradictions import find_contradictions
from wikitui.core.vault.duplicates import fold, near_duplicates
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.lint import run_lint
from wikitui.core.vault.staleness import SourceRecords

CALLOUT = "> [!contradiction] She shrinks to four inches — [[Beta]] says ten inches (raw/src.md)"


def test_every_contradiction_callout_is_listed_with_its_line_and_claim(tmp_path):
    body = (f"Intro.\n\n{CALLOUT}\n\n```markdown\n{CALLOUT}\n```\n\n"
            "> [!Contradiction]- the cake is blue, says nobody\n")
    root = build(tmp_path, {"wiki/alpha.md": page("Alpha", "See [[Beta]].\n\n" + body, sources="[raw/src.md]")})
    assert only(lint(root), "contradiction") == [("wiki/alpha.md", 12, "Beta"), ("wiki/alpha.md", 18, None)]
    problems = lint(root).problems
    assert problems[0].message == "She shrinks to four inches"
    assert problems[1].message == "the cake is blue, says nobody"  # not in the format: listed all the same


def test_a_deleted_callout_resolves_the_contradiction(tmp_path):
    root = build(tmp_path, {"wiki/alpha.md": page("Alpha", f"See [[Beta]].\n\n{CALLOUT}", sources="[raw/src.md]")})
    assert lint(root).counts["contradiction"] == 1
    (root / "wiki/alpha.md").write_text(page("Alpha", "See [[Beta]].", sources="[raw/src.md]"), encoding="utf-8")
    assert lint(root).counts["contradiction"] == 0


def test_the_parts_of_a_callout():
    [c] = find_contradictions("x\n" + CALLOUT + "\n")
    assert (c.line, c.claim, c.other, c.other_claim, c.source) == (
        2, "She shrinks to four inches", "Beta", "ten inches", "raw/src.md")
    [d] = find_contradictions("> [!contradiction] a — [[Size and Growth#Table|the table]] says b\n")
    assert (d.other, d.other_claim, d.source) == ("Size and Growth", "b", None)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_parses_without_error(text):
    for c in find_contradictions("> [!contradiction] " + text):
        assert c.line >= 1 and c.claim


def test_near_equal_titles_are_near_duplicates_but_subset_names_are_not(tmp_path):
    root = build(tmp_path, {
        "wiki/cafe.md": page("Café Society", "[[Alpha]]"),
        "wiki/cafe2.md": page("cafe society", "[[Alpha]]"),  # accents and case folded away
        "wiki/queen.md": page("Queen", "[[Alpha]]"),
        "wiki/queen-hearts.md": page("Queen of Hearts", "[[Alpha]]"),  # a subset, not the same thing
        "wiki/colour.md": page("Colour Theory", "[[Alpha]]"),
        "wiki/color.md": page("Color Theory", "[[Alpha]]"),  # spelling: near-equal
        "wiki/index.md": "# Index\n\n" + "".join(f"- [[{t}]]\n" for t in (
            "Alpha", "Beta", "cafe", "cafe2", "Queen", "Queen of Hearts", "Colour Theory", "Color Theory")),
        "wiki/beta.md": page("Beta", "Back to [[alpha]], [[cafe]] [[cafe2]] [[Queen]] [[Queen of Hearts]] "
                                     "[[Colour Theory]] [[Color Theory]]."),
    })
    report = lint(root)
    found = [(p.path, p.target) for p in report.problems if p.check == "near-duplicate"]
    assert found == [("wiki/cafe.md", "wiki/cafe2.md"), ("wiki/cafe2.md", "wiki/cafe.md"),
                     ("wiki/color.md", "wiki/colour.md"), ("wiki/colour.md", "wiki/color.md")]
    assert 'near-equal names' in report.problems[-1].message


def test_bodies_sharing_most_of_their_text_are_near_duplicates(tmp_path):
    words = " ".join(f"word{i}" for i in range(300))
    root = build(tmp_path, {
        "wiki/one.md": page("Rabbit Hole", words + " [[Alpha]]"),
        "wiki/two.md": page("Down Below", words + " and one more sentence at the end. [[Alpha]]"),
        "wiki/three.md": page("Elsewhere", " ".join(f"other{i}" for i in range(300)) + " [[Alpha]]"),
    })
    pairs = {(p.path, p.target) for p in lint(root).problems if p.check == "near-duplicate"}
    assert pairs == {("wiki/one.md", "wiki/two.md"), ("wiki/two.md", "wiki/one.md")}


def test_near_duplicates_do_not_compare_every_pair_of_a_shared_word():
    # 500 pages all titled "<unique> Notes": "notes" blocks nothing, being everywhere.
    names = {f"p{i}.md": [f"Topic{i:04d}xyz Notes"] for i in range(500)}
    assert near_duplicates(names, {}) == []
    assert fold("Ünïcode—Name_x") == "unicode name x"


def test_text_checks_read_pages_once_then_from_their_cache(tmp_path):
    root = build(tmp_path, {"wiki/alpha.md": page("Alpha", f"See [[Beta]].\n\n{CALLOUT}", sources="[raw/src.md]")})
    assert lint(root).counts["contradiction"] == 1
    cache = root / ".wikitui/cache/text-facts.json"
    stored = json.loads(cache.read_text(encoding="utf-8"))
    stored["pages"]["wiki/alpha.md"][2] = []  # the cache says no callout: a warm lint believes it
    cache.write_text(json.dumps(stored), encoding="utf-8")
    assert lint(root).counts["contradiction"] == 0
    vault = Vault.open(root)
    assert run_lint(vault, LinkGraph.load(vault), text_checks=False).counts["contradiction"] == 0
    cache.write_text("{not json", encoding="utf-8")  # a damaged cache is rebuilt
    assert lint(root).counts["contradiction"] == 1


def test_a_source_edited_after_ingest_makes_every_page_citing_it_stale(tmp_path):
    # beta.md was never written by wikitui; its sources were only ever seen by lint.
    root = build(tmp_path, {
        "wiki/beta.md": page("Beta", "Back to [[alpha]] and [[Gamma]].", sources="[src.md]"),
        "wiki/gamma.md": page("Gamma", "[[Alpha]] [[Beta]]", sources="[raw/other.md]"),
        "wiki/index.md": "# Index\n\n<!-- wikitui:index -->\n\n- [[Alpha]]\n- [[Beta]]\n- [[Gamma]]\n",
        "raw/other.md": "Other.\n",
    })
    assert lint(root).problems == []  # the first day: nothing is stale, the hashes are recorded
    records = json.loads((root / ".wikitui/sources.json").read_text(encoding="utf-8"))
    assert sorted(records) == ["wiki/alpha.md", "wiki/beta.md", "wiki/gamma.md"]
    (root / "raw/src.md").write_text("The source, revised.\n", encoding="utf-8")
    assert only(lint(root), "stale") == [("wiki/alpha.md", None, "raw/src.md"), ("wiki/beta.md", None, "raw/src.md")]

    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    assert SourceRecords(vault).stale_sources("wiki/beta.md", graph) == ["raw/src.md"]
    SourceRecords(vault).mark_reviewed("wiki/beta.md", graph)
    assert SourceRecords(vault).stale_sources("wiki/beta.md", graph) == []
    assert only(lint(root), "stale") == [("wiki/alpha.md", None, "raw/src.md")]


def test_recording_first_seen_sources_keeps_a_record_written_meanwhile(tmp_path, monkeypatch):
    import wikitui.core.vault.staleness as staleness

    root = build(tmp_path, {"wiki/beta.md": page("Beta", "Back to [[alpha]].", sources="[src.md]")})
    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    real = staleness.file_sha256
    calls = []

    def hashing(path):  # while the check hashes, the user marks alpha reviewed (another thread, say)
        if not calls:
            calls.append(path)
            SourceRecords(vault)._save({"wiki/alpha.md": {"raw/src.md": "reviewed-meanwhile"}})
        return real(path)

    monkeypatch.setattr(staleness, "file_sha256", hashing)
    SourceRecords(vault).stale(graph)
    records = SourceRecords(vault).load()
    assert records["wiki/alpha.md"] == {"raw/src.md": "reviewed-meanwhile"}
    assert "raw/src.md" in records["wiki/beta.md"]


def test_near_equal_names_are_kept_until_a_pages_names_change(tmp_path):
    root = build(tmp_path)
    assert lint(root).counts["near-duplicate"] == 0
    cache = root / ".wikitui/cache/near-titles.json"
    stored = json.loads(cache.read_text(encoding="utf-8"))
    stored["pairs"] = [["wiki/alpha.md", "wiki/beta.md", "planted"]]  # believed while no name changes
    cache.write_text(json.dumps(stored), encoding="utf-8")
    assert lint(root).counts["near-duplicate"] == 2
    (root / "wiki/beta.md").write_text(page("Beta Two", "Back to [[alpha]]."), encoding="utf-8")
    assert lint(root).counts["near-duplicate"] == 0  # a title changed: computed again
