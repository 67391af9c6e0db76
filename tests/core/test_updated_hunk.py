"""Issue 10, point 6: the ``updated:`` date is proposed as a hunk of its own, never added behind the review.

An edit to a page whose frontmatter has ``updated:`` (and that the agent left as it
was) carries today's date as one more hunk, alone, which the user accepts or
rejects like any other. What is written, and committed, is exactly what was accepted.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.core.changes_util import git, git_init, make_vault, open_vault, page, read
from wikitui.core.changes.apply import apply_changeset
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.diffs import apply_hunks, compute_hunks
from wikitui.core.changes.hunk_groups import groups
from wikitui.core.changes.pending import PendingStore

TODAY = "2026-12-01"


@pytest.fixture(autouse=True)
def fixed_day(monkeypatch):
    monkeypatch.setattr("wikitui.core.changes.updated.now", lambda: _dt.datetime(2026, 12, 1, 9, 30))
BODY = "".join(f"Paragraph {i}.\n\n" for i in range(1, 12))


@pytest.fixture
def root(tmp_path):
    return make_vault(tmp_path / "v", {
        "dated.md": page("Dated", BODY, updated="2026-01-05"),
        "plain.md": page("Plain", BODY),
        "linker.md": page("Linker", "See [[topics/dated-too]].\n", updated="2026-01-06"),
        "topics/dated-too.md": page("Dated too", BODY, updated="2026-01-07"),
    })


def date_hunks(fc):
    return [h for h in fc.hunks if any(ln.startswith("+updated:") for ln in h.lines)]


def test_an_edit_carries_the_date_as_a_hunk_of_its_own(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("dated.md", [{"old": "Paragraph 9.", "new": "Paragraph nine."}], "")
    b.edit("plain.md", [{"old": "Paragraph 9.", "new": "Paragraph nine."}], "")
    cs = b.build("edit", "t")
    dated, plain = cs.files
    [own] = date_hunks(dated)
    assert [ln for ln in own.lines if ln[0] in "+-"] == ["-updated: 2026-01-05\n", f"+updated: {TODAY}\n"]
    assert len(dated.hunks) == 2 and date_hunks(plain) == [] and len(plain.hunks) == 1


def test_rejecting_the_date_writes_and_commits_exactly_the_accepted_hunk(root):
    git_init(root)
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("dated.md", [{"old": "Paragraph 9.", "new": "Paragraph nine."}], "")
    cs = b.build("edit", "t")
    [own] = date_hunks(cs.files[0])
    [body] = [h for h in cs.files[0].hunks if h is not own]
    apply_changeset(vault, graph, cs, {body.id}, rejected={own.id})
    text = read(root, "wiki/dated.md")
    assert "Paragraph nine." in text and "updated: 2026-01-05\n" in text and TODAY not in text
    if shutil.which("git"):
        diff = git(root, "show", "--format=", "HEAD", "--", "wiki/dated.md")
        assert [ln for ln in diff.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")] == [
            "-Paragraph 9.", "+Paragraph nine."]


def test_accepting_everything_writes_the_date_and_the_edit(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("dated.md", [{"old": "Paragraph 9.", "new": "Paragraph nine."}], "")
    cs = b.build("edit", "t")
    apply_changeset(vault, graph, cs)
    assert read(root, "wiki/dated.md") == cs.files[0].new_text
    assert f"updated: {TODAY}\n" in cs.files[0].new_text


def test_an_edit_next_to_the_date_still_leaves_it_apart_and_the_patch_applies_with_git(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("dated.md", [{"old": "summary: Dated in one line", "new": "summary: A page with a date"}], "")
    cs = b.build("edit", "t")
    fc = cs.files[0]
    [own] = date_hunks(fc)
    [other] = [h for h in fc.hunks if h is not own]
    assert apply_hunks(fc.base_text, fc.hunks, {other.id}) == page("Dated", BODY, updated="2026-01-05").replace(
        "summary: Dated in one line", "summary: A page with a date")
    if shutil.which("git"):
        git(root, "init", "-q")
        patch = root.parent / "p.patch"
        patch.write_text(cs.to_patch(), encoding="utf-8")
        git(root, "apply", "--check", str(patch))


def test_the_agents_own_date_and_links_a_move_rewrites_get_no_extra_hunk(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("dated.md", [{"old": "updated: 2026-01-05", "new": "updated: 2026-02-01"}, {"old": "Paragraph 3.", "new": "P3."}], "")
    b.move("topics/dated-too.md", "archive/dated-too.md", "")
    cs = b.build("edit", "t")
    by_path = {f.path: f for f in cs.files}
    assert "+updated: 2026-02-01\n" in "".join(ln for h in by_path["wiki/dated.md"].hunks for ln in h.lines)
    assert TODAY not in by_path["wiki/dated.md"].new_text
    assert TODAY not in by_path["wiki/linker.md"].new_text  # only its link changed
    assert TODAY not in by_path["wiki/topics/dated-too.md"].new_text


def test_a_date_left_undecided_stays_a_hunk_of_its_own_in_what_remains_pending(root):
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("dated.md", [{"old": "Paragraph 9.", "new": "Paragraph nine."}, {"old": "Paragraph 2.", "new": "P2."}], "")
    cs = b.build("edit", "t")
    PendingStore(vault).save(cs)
    [own] = date_hunks(cs.files[0])
    first = next(h for h in cs.files[0].hunks if h is not own)
    result = apply_changeset(vault, graph, cs, {first.id})
    rest = PendingStore(vault).load(cs.id)
    [own_left] = date_hunks(rest.files[0])
    assert [ln for ln in own_left.lines if ln[0] in "+-"] == ["-updated: 2026-01-05\n", f"+updated: {TODAY}\n"]
    assert result.remaining == rest and len(rest.files[0].hunks) == 2


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_property_the_own_hunk_is_alone_and_every_choice_applies(data):
    lines = data.draw(st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "key: v\n"]), min_size=1, max_size=20))
    u = data.draw(st.integers(0, len(lines) - 1))
    agent, own = list(lines), u
    for _ in range(data.draw(st.integers(0, 5))):
        i = data.draw(st.integers(0, len(agent)))
        kind = data.draw(st.sampled_from(["ins", "del", "chg"]))
        if kind == "ins":
            agent.insert(i, "new\n")
            own += i <= own
        elif i < len(agent) and i != own:
            if kind == "del":
                del agent[i]
                own -= i < own
            else:
                agent[i] = "changed\n"
    final = list(agent)
    final[own] = "updated: today\n"
    base_t, agent_t, final_t = "".join(lines), "".join(agent), "".join(final)
    match = [i1 + own - j1 for tag, i1, _i2, j1, j2 in
             difflib.SequenceMatcher(None, lines, agent, autojunk=False).get_opcodes() if tag == "equal" and j1 <= own < j2]
    if not match or lines[match[0]] == "updated: today\n":
        return
    hunks = compute_hunks(base_t, final_t, 0, own_line=(match[0], own))
    ids = {h.id for h in hunks}
    [alone] = [h for h in hunks if "+updated: today\n" in h.lines]
    assert [ln for ln in alone.lines if ln[0] in "+-"] == ["-" + lines[match[0]], "+updated: today\n"]
    assert apply_hunks(base_t, hunks, None) == final_t
    assert apply_hunks(base_t, hunks, ids - {alone.id}) == agent_t
    only = apply_hunks(base_t, hunks, {alone.id}).splitlines(keepends=True)  # one line of the base replaced
    changed = [i for i, (x, y) in enumerate(zip(lines, only)) if x != y]
    assert len(only) == len(lines) and len(changed) == 1 and only[changed[0]] == "updated: today\n"
    assert lines[changed[0]] == lines[match[0]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n"]), max_size=30),
       st.lists(st.sampled_from(["a\n", "b\n", "c\n", "\n", "d\n"]), max_size=30))
def test_property_hunk_grouping_is_difflibs_own(a, b):
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    expected = [g for g in sm.get_grouped_opcodes(3) if any(op[0] != "equal" for op in g)] if a != b else []
    assert groups(sm.get_opcodes(), 3) == expected


def _three_hunks(root):
    """dated.md with its date hunk and two content hunks: (vault, graph, changeset, date, first, second)."""
    vault, graph = open_vault(root)
    b = ChangesetBuilder(vault, graph)
    b.edit("dated.md", [{"old": "Paragraph 2.", "new": "P2."}, {"old": "Paragraph 9.", "new": "P9."}], "")
    cs = b.build("edit", "t")
    PendingStore(vault).save(cs)
    [own] = date_hunks(cs.files[0])
    first, second = (h for h in cs.files[0].hunks if h is not own)
    return vault, graph, cs, own, first, second


def test_issue21_a_rejected_date_stays_rejected_when_a_content_hunk_is_accepted(root):
    vault, graph, cs, own, first, _second = _three_hunks(root)
    result = apply_changeset(vault, graph, cs, {first.id}, rejected={own.id})
    rest = PendingStore(vault).load(cs.id)
    assert result.remaining == rest and date_hunks(rest.files[0]) == [] and len(rest.files[0].hunks) == 1
    assert TODAY not in rest.files[0].new_text and "P9." in rest.files[0].new_text


def test_issue21_a_rejected_date_stays_rejected_when_nothing_of_the_page_is_accepted(root):
    """Nothing of the page written: what stays pending is the proposal less what the user rejected."""
    vault, graph, cs, own, first, second = _three_hunks(root)
    apply_changeset(vault, graph, cs, set(), rejected={own.id, first.id})
    rest = PendingStore(vault).load(cs.id)
    [left] = rest.files[0].hunks
    assert date_hunks(rest.files[0]) == [] and TODAY not in rest.files[0].new_text
    assert [ln for ln in left.lines if ln[0] in "+-"] == ["-Paragraph 9.\n", "+P9.\n"]
    assert read(root, "wiki/dated.md") == page("Dated", BODY, updated="2026-01-05")  # nothing written


def test_issue21_an_undecided_date_stays_its_own_hunk_when_another_hunk_is_rejected(root):
    vault, graph, cs, own, first, _second = _three_hunks(root)
    apply_changeset(vault, graph, cs, set(), rejected={first.id})
    rest = PendingStore(vault).load(cs.id)
    [own_left] = date_hunks(rest.files[0])
    assert [ln for ln in own_left.lines if ln[0] in "+-"] == ["-updated: 2026-01-05\n", f"+updated: {TODAY}\n"]
    assert len(rest.files[0].hunks) == 2 and "P2." not in rest.files[0].new_text


@pytest.mark.parametrize("written", ["2026-01-05", '"2026-01-05"', "!!str 2026-01-05", "2026-01-05T10:00:00Z",
                                     "2026-01-05 # checked", "[2026, 1]"])
def test_issue22_the_date_an_edit_reads_is_the_one_the_page_reader_reads(written):
    """Frontmatter is read by one stack: the value an edit compares is what the graph, lint and search see."""
    from wikitui.core.changes.updated import bump_updated
    from wikitui.core.vault.frontmatter_edit import frontmatter_value
    from wikitui.core.vault.page import parse_page

    text = f"---\ntitle: Dated\nupdated: {written}\n---\n{BODY}"
    assert frontmatter_value(text, "updated") == parse_page("dated.md", text).meta["updated"]
    bumped, line = bump_updated(text, text.replace("Paragraph 3.", "Paragraph three."))
    if written == "[2026, 1]":  # not a date: left alone
        assert line is None
    else:  # the tagged string too (ruamel read it as a tagged scalar, and the date stayed old)
        assert line is not None and "2026-12-01" in bumped.splitlines()[2], bumped
