"""`wikitui lint --semantic [--json]` (DESIGN §6, §11): the checks, then the model's pass; proposals stay pending."""

from __future__ import annotations

import json

import pytest

from tests.core.changes_util import make_vault, page
from tests.fakeserver import error, text, tool_call
from wikitui import cli
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.layout import Vault


def content(root) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def clean_vault(tmp_path):
    """A vault the deterministic checks find nothing wrong with."""
    root = make_vault(tmp_path / "v", {
        "Cat.md": page("Cat", "# Cat\n\nGrins at [[Alice]].\n").replace("---\n\n", "sources: [raw/chapter-01.md]\n---\n\n"),
        "Alice.md": page("Alice", "# Alice\n\nMeets the [[Cat]].\n"),
    }, index="# Index\n\n- [[Cat]]\n- [[Alice]]\n")
    return root


def test_lint_semantic_json_leaves_the_models_proposals_pending_and_exits_1(capsys, fake_llm, sample_vault):
    before = content(sample_vault)
    fake_llm.script(
        tool_call("read", path="wiki/characters/dodo.md"),
        tool_call("propose_edit", path="wiki/characters/dodo.md", reason="cross-reference",
                  edits=[{"old": "Its remedy is the Caucus-race.",
                          "new": "Its remedy is the [[nonsense-and-logic|Caucus-race]]."}]),
        text("Findings: the Dodo page should link the Caucus-race."),
    )
    (sample_vault / ".wikitui").mkdir(exist_ok=True)  # a 16k window: the full lint prompt (at 8k it is compact)
    (sample_vault / ".wikitui/config.toml").write_text("context_tokens = 16384\n")
    code, out, err = run(capsys, "lint", "--semantic", "--json", "--vault", str(sample_vault))
    assert code == 1, err
    data = json.loads(out)
    assert set(data) >= {"problems", "counts", "report", "changeset", "tokens", "cost"}
    assert data["changeset"]["files"] == [{"path": "wiki/characters/dodo.md", "op": "edit", "hunks": 2}]
    assert "should link the Caucus-race" in data["report"]
    assert "lint" in json.dumps(fake_llm.requests[0]).lower()  # the /lint flow's prompt
    (pending,) = PendingStore(Vault.open(sample_vault)).list()
    assert pending.id == data["changeset"]["id"] and pending.op == "lint"
    assert content(sample_vault) == before  # never applied


def test_lint_semantic_on_a_clean_wiki_with_no_finding_exits_0(capsys, fake_llm, clean_vault):
    fake_llm.script(text("No contradictions, no gaps: nothing to propose."))
    code, out, err = run(capsys, "lint", "--semantic", "--vault", str(clean_vault))
    assert code == 0, (out, err)
    assert "nothing to propose" in out  # the model's report on stdout
    assert PendingStore(Vault.open(clean_vault)).list() == []


def test_lint_semantic_prints_the_checks_problems_first_and_exits_1_without_proposals(capsys, fake_llm, clean_vault):
    (clean_vault / "wiki/Alice.md").write_text(page("Alice", "# Alice\n\nMeets the [[Hatter]].\n"))
    fake_llm.script(text("Only the broken link the checks found."))
    code, out, err = run(capsys, "lint", "--semantic", "--vault", str(clean_vault))
    assert code == 1
    first, *rest = out.splitlines()
    assert "broken-link" in first and "Hatter" in first
    assert "Only the broken link" in out.split(first, 1)[1]


def test_lint_semantic_exits_3_when_the_model_fails(capsys, fake_llm, clean_vault):
    fake_llm.script(error(401, "invalid api key"))
    code, out, err = run(capsys, "lint", "--semantic", "--json", "--vault", str(clean_vault))
    assert code == 3
    assert out == "" and "wikitui:" in err and "Traceback" not in err


def test_lint_semantic_without_a_model_is_a_user_error(capsys, clean_vault, monkeypatch):
    monkeypatch.delenv("WIKITUI_MODEL", raising=False)
    code, out, err = run(capsys, "lint", "--semantic", "--vault", str(clean_vault))
    assert code == 2 and "no model configured" in err


def test_lint_semantic_says_how_to_add_a_search_provider_for_the_sources_it_names(capsys, fake_llm, clean_vault):
    """Lint's "sources worth looking for" (issue 28.2): with no provider, one line says how to add one; with one,
    nothing (the agent has web_search then)."""
    fake_llm.script(text("Sources worth looking for: the Cat's first edition."))
    code, _out, err = run(capsys, "lint", "--semantic", "--vault", str(clean_vault))
    assert code == 0
    [line] = [ln for ln in err.splitlines() if "on the web" in ln]
    assert '[research] searxng_url = "http://..."' in line
    (clean_vault / ".wikitui").mkdir(exist_ok=True)
    (clean_vault / ".wikitui" / "config.toml").write_text('[research]\nsearxng_url = "http://127.0.0.1:9/"\n')
    fake_llm.script(text("Nothing to propose."))
    code, _out, err = run(capsys, "lint", "--semantic", "--vault", str(clean_vault))
    assert code == 0 and "on the web" not in err
