"""Deterministic lint checks (DESIGN §6): one small vault per check, each triggering only that check."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.lint import CHECKS, LintReport, run_lint
from wikitui.core.vault.staleness import SourceRecords


def page(title: str, body: str = "", *, type_: str = "concept", summary: str | None = None, sources: str = "") -> str:
    fm = [f"title: {title}", f"type: {type_}", f"summary: {summary if summary is not None else title + ' in a line'}"]
    if sources:
        fm.append(f"sources: {sources}")
    return "---\n" + "\n".join(fm) + "\n---\n\n" + body + "\n"


def build(root: Path, extra: dict[str, str | None] | None = None) -> Path:
    """A clean vault (no problem at all), changed by ``extra`` (path -> text, None deletes)."""
    files: dict[str, str | None] = {
        "wiki/index.md": "# Index\n\n<!-- wikitui:index -->\n\n- [[Alpha]]\n- [[Beta]]\n",
        # History may name pages since deleted: log.md is never checked.
        "wiki/log.md": "# Log\n\n## [2026-01-01] ingest | Old\n\n- pages: [[Deleted Page]]\n",
        "wiki/alpha.md": page("Alpha", "See [[Beta]].", sources="[raw/src.md]"),
        "wiki/beta.md": page("Beta", "Back to [[alpha]]."),
        "raw/src.md": "The source.\n",
        "raw/assets/pic.png": "\x89PNG",
    }
    files.update(extra or {})
    for rel, text in files.items():
        path = root / rel
        if text is None:
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def lint(root: Path) -> LintReport:
    vault = Vault.open(root)
    return run_lint(vault, LinkGraph.load(vault))


def only(report: LintReport, check: str) -> list[tuple]:
    """The (path, line, target) of ``check``'s problems, after asserting no other check fired."""
    assert {c: n for c, n in report.counts.items() if n} == {check: len(report.problems)}, report.problems
    return [(p.path, p.line, p.target) for p in report.problems]


def test_a_clean_vault_has_no_problems_and_counts_every_check(tmp_path):
    report = lint(build(tmp_path))
    assert report.problems == []
    assert report.counts == dict.fromkeys(CHECKS, 0)
    assert list(report.to_dict()) == ["problems", "counts"]


def test_broken_link_one_per_occurrence_embeds_included_urls_not_checked(tmp_path):
    body = (
        "[[Beta]] [[Nowhere]] and again [[nowhere#Part]].\n"
        "![[missing.png]] ![[pic.png]] [web](https://example.com/x)"
    )
    root = build(tmp_path, {
        "wiki/alpha.md": page("Alpha", body, sources="[raw/src.md]"),
        "wiki/index.md": "# Index\n\n- [[Alpha]]\n- [[Beta]]\n- [[Gone]]\n",
    })
    report = lint(root)
    assert only(report, "broken-link") == [
        ("wiki/alpha.md", 8, "Nowhere"),
        ("wiki/alpha.md", 8, "nowhere#Part"),
        ("wiki/alpha.md", 9, "missing.png"),
        ("wiki/index.md", 5, "Gone"),  # index.md's links are checked
    ]
    assert report.problems[2].message == "embedded file ![[missing.png]] resolves to nothing"


def test_orphan_ignores_links_from_index_and_log(tmp_path):
    root = build(tmp_path, {
        "wiki/gamma.md": page("Gamma", "I link to [[Alpha]], but nothing links to me except [[Gamma|myself]]."),
        "wiki/index.md": "# Index\n\n- [[Alpha]]\n- [[Beta]]\n- [[Gamma]]\n",
        "wiki/log.md": "# Log\n\n- [[Gamma]]\n",
    })
    assert only(lint(root), "orphan") == [("wiki/gamma.md", None, None)]


def test_not_in_index_reports_pages_index_does_not_link(tmp_path):
    root = build(tmp_path, {
        "wiki/gamma.md": page("Gamma", "[[Alpha]]"),
        "wiki/beta.md": page("Beta", "[[alpha]] [[Gamma]]"),
    })
    assert only(lint(root), "not-in-index") == [("wiki/gamma.md", None, None)]
    # Without an index.md there is nothing to be missing from.
    (root / "wiki/index.md").unlink()
    assert lint(root).problems == []


def test_missing_frontmatter_no_block_or_no_title_type_summary(tmp_path):
    root = build(tmp_path, {
        "wiki/beta.md": "Back to [[alpha]], with no frontmatter at all.\n",
        "wiki/alpha.md": "---\ntitle: Alpha\nsources: [raw/src.md]\n---\n\nSee [[Beta]].\n",
    })
    report = lint(root)
    assert only(report, "missing-frontmatter") == [("wiki/alpha.md", 1, None), ("wiki/beta.md", 1, None)]
    assert report.problems[0].message == "frontmatter lacks type, summary (wikitui's catalog asks for title, type, summary)"


def test_invalid_frontmatter_is_reported_once(tmp_path):
    root = build(tmp_path, {"wiki/beta.md": "---\ntitle: [Beta\ntype: concept\n---\n\nBack to [[alpha]].\n"})
    report = lint(root)
    assert only(report, "invalid-frontmatter") == [("wiki/beta.md", 1, None)]
    assert report.problems[0].message.startswith("frontmatter does not parse:")


def test_duplicate_title_or_alias_case_insensitive(tmp_path):
    root = build(tmp_path, {
        "wiki/beta.md": "---\ntitle: ALPHA\ntype: concept\nsummary: s\n---\n\nBack to [[alpha]].\n",
        "wiki/gamma.md": "---\ntitle: Gamma\ntype: concept\nsummary: s\naliases: [beta]\n---\n\n[[Alpha]]\n",
        "wiki/index.md": "# Index\n\n- [[Alpha]]\n- [[beta]]\n- [[Gamma]]\n",
        "wiki/alpha.md": page("Alpha", "See [[beta]] and [[Gamma]].", sources="[raw/src.md]"),
    })
    # "Beta" is beta.md's stem, not its title: only titles and aliases are compared.
    assert only(lint(root), "duplicate-title") == [("wiki/alpha.md", None, "Alpha"), ("wiki/beta.md", None, "ALPHA")]


def test_uningested_source_tolerates_how_sources_are_written_and_skips_assets(tmp_path):
    root = build(tmp_path, {
        "raw/b.md": "b", "raw/c.md": "c", "raw/d.md": "d", "raw/book/e.md": "e", "raw/never.txt": "n",
        "raw/assets/diagram.svg": "<svg/>",
        "wiki/beta.md": (
            "---\ntitle: Beta\ntype: concept\nsummary: s\nsources:\n"
            "  - b.md\n  - \"[[raw/c.md]]\"\n  - [[d]]\n  - book/e.md\n---\n\nBack to [[alpha]].\n"
        ),
    })
    assert only(lint(root), "uningested-source") == [("raw/never.txt", None, None)]


def test_stale_when_a_recorded_source_changed_by_content(tmp_path):
    root = build(tmp_path)
    vault = Vault.open(root)
    assert lint(root).problems == []  # first seen: recorded, no verdict
    SourceRecords(vault).record("wiki/alpha.md", ["raw/src.md"])
    assert lint(root).problems == []

    src = root / "raw/src.md"
    st = src.stat()
    src.write_text("The source.\n", encoding="utf-8")  # same bytes, new mtime: not stale
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert lint(root).problems == []

    src.write_text("The source, revised.\n", encoding="utf-8")
    report = lint(root)
    assert only(report, "stale") == [("wiki/alpha.md", None, "raw/src.md")]
    assert report.problems[0].message == "raw/src.md changed since this page was written or reviewed"


def test_report_order_is_deterministic(tmp_path):
    root = build(tmp_path, {
        "wiki/zeta.md": "no frontmatter [[Nope]]\n",
        "wiki/eta.md": "---\ntitle: [\n---\n[[Nada]]\n",
        "raw/new.md": "new",
    })
    first = lint(root)
    again = run_lint(Vault.open(root), LinkGraph.load(Vault.open(root), use_cache=False))
    assert first == again
    assert [p.check for p in first.problems] == [
        "broken-link", "broken-link", "orphan", "orphan", "not-in-index", "not-in-index",
        "missing-frontmatter", "invalid-frontmatter", "uningested-source",
    ]
    assert [p.path for p in first.problems][:2] == ["wiki/eta.md", "wiki/zeta.md"]


def test_sample_vault_has_one_broken_link_and_one_orphan(sample_vault):
    report = lint(sample_vault)
    assert report.counts["broken-link"] == 1
    assert report.counts["orphan"] == 1
    assert [p.check for p in report.problems if p.check in ("broken-link", "orphan")] == ["broken-link", "orphan"]


def test_source_records_store_hashes_of_the_sources_a_page_lists(tmp_path):
    root = build(tmp_path, {"raw/book/two.md": "two"})
    records = SourceRecords(Vault.open(root))
    entry = records.record("wiki/alpha.md", ["[[raw/src.md]]", "book/two.md", "no-such-file.md"])
    assert list(entry) == ["raw/src.md", "raw/book/two.md"]
    stored = json.loads((root / ".wikitui/sources.json").read_text(encoding="utf-8"))
    assert stored == {"wiki/alpha.md": {"raw/src.md": hashlib.sha256(b"The source.\n").hexdigest(),
                                        "raw/book/two.md": hashlib.sha256(b"two").hexdigest()}}
    records.move("wiki/alpha.md", "wiki/first.md")
    assert list(records.load()) == ["wiki/first.md"]
    records.record("wiki/first.md", [])
    assert records.load() == {}
