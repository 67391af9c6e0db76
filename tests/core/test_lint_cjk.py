"""Lint's near-duplicate check on numbered names (issue 24.3): another number is another page."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.core.test_lint import build, lint, page
from wikitui.core.vault.duplicates import title_pairs
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.lint import run_lint


def near(a: str, b: str) -> bool:
    return bool(title_pairs({"wiki/a.md": [a], "wiki/b.md": [b]}))


def test_monthly_letters_in_a_chinese_vault_are_not_near_duplicates(cjk_vault: Path):
    vault = Vault.open(cjk_vault)
    report = run_lint(vault, LinkGraph.load(vault))
    # Their aliases 致合伙人的信 1962年11月 and 致合伙人的信 1962年12月 differ in one character only.
    assert [p for p in report.problems if p.check == "near-duplicate"] == []


def test_a_difference_in_a_number_is_never_a_near_duplicate():
    for a, b in [("致股东的信 1962年11月", "致股东的信 1962年12月"), ("巴菲特致合伙人的信1962年11月", "巴菲特致合伙人的信1962年12月"),
                 ("Report2019", "Report2018"), ("Chapter 1", "Chapter 2"), ("Chapter10", "Chapter11"),
                 ("Annual letter 1962", "Annual letter 1963"), ("Partnership letter (1962-11)", "Partnership letter (1962-12)")]:
        assert not near(a, b), (a, b)
    # The rest of the rule is unchanged: the same numbers, near-equal words.
    assert near("Colour Theory 2", "Color Theory 2")
    assert near("致股东的信 1962年11月", "致股东的信  1962年11月。")


def test_name_pairs_cached_under_the_old_rules_are_computed_again(tmp_path):
    root = build(tmp_path, {"wiki/r1.md": page("Report2019", "[[Alpha]]"), "wiki/r2.md": page("Report2018", "[[Alpha]]")})
    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    special = {vault.index_path, vault.log_path}
    names = {p: list(graph.pages[p].names) for p in graph.pages if p not in special}
    old_key = hashlib.sha256(json.dumps(names, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()
    cache = root / ".wikitui/cache/near-titles.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"key": old_key, "pairs": [["wiki/r1.md", "wiki/r2.md", "old rules"]]}), encoding="utf-8")
    assert lint(root).counts["near-duplicate"] == 0
