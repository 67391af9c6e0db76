"""Issue 21, point 6: counts read right in the singular and the plural (``wikitui.core.base.words``)."""

from __future__ import annotations

from wikitui.core.agent.citations import feedback
from wikitui.core.changes.policy import refusal_at_apply
from wikitui.core.base.words import noun, plural, plural_form


def test_plural_says_one_hunk_and_two_hunks():
    assert [plural(n, "hunk") for n in (0, 1, 2)] == ["0 hunks", "1 hunk", "2 hunks"]
    assert plural(1, "heading") == "1 heading" and plural(12000, "line") == "12,000 lines"
    assert [plural_form(w) for w in ("entry", "match", "day", "box")] == ["entries", "matches", "days", "boxes"]
    assert plural(3, "child", "children") == "3 children" and noun(1, "link") == "link" and noun(2, "link") == "links"


def test_one_unresolved_citation_resolves_to_nothing_two_resolve():
    assert ", which resolves to nothing." in feedback(["Nowhere"], [])
    assert ", which resolve to nothing." in feedback(["Nowhere", "Elsewhere"], [])
    assert ", which resolve to nothing." in feedback(["Nowhere"], [("wiki/a.md", "Gone")])


def test_the_review_feedback_counts_one_hunk_accepted():
    from types import SimpleNamespace

    from wikitui.ui.chat.notes import review_feedback

    changeset = SimpleNamespace(id="cs-20261202-abcdef", hunk=lambda key: (_ for _ in ()).throw(KeyError(key)))
    one = review_feedback(changeset, SimpleNamespace(accepted={"f0h0"}, rejected={"f0h1"}, reasons={"x.md": "why"}))
    assert one.startswith("Review of changeset cs-20261202-abcdef: 1 hunk accepted, 1 rejected.")
    two = review_feedback(changeset, SimpleNamespace(accepted={"f0h0", "f0h2"}, rejected=set(), reasons={}))
    assert "2 hunks accepted, 0 rejected" in two


def test_a_locked_page_refusal_counts_its_hunk():
    from wikitui.core.changes.diffs import compute_hunks

    text = "---\ntitle: T\nllm: locked\n---\n\nBody.\n"
    hunks = compute_hunks(text, text.replace("Body.", "Body, edited."), 0)
    assert "(its 1 hunk stays pending)" in refusal_at_apply("wiki/t.md", text, hunks, "edit")
