"""The ``wikitui`` command line (DESIGN §6): subcommands, JSON contracts and exit statuses.

Most tests call :func:`wikitui.cli.main` in-process with capsys; a few run the real
``wikitui`` script in a subprocess to prove that a user error is one line, never a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from tests.fakeserver import text
from wikitui import __version__
from wikitui import cli
from wikitui.cli.parser import COMMANDS, build_parser, command_parser
from wikitui.core.vault.lint import CHECKS

WIKITUI = Path(sys.executable).parent / "wikitui"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def content(root: Path) -> dict[str, bytes]:
    """Every file of the vault outside dot-folders (wikitui's own state may change; pages may not)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    }


def one_error_line(err: str) -> str:
    assert err.startswith("wikitui: error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err[len("wikitui: error: ") : -1]


# ------------------------------------------------------------------- basics
def test_version_and_help(capsys):
    assert run(capsys, "--version") == (0, f"wikitui {__version__}\n", "")
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for command in COMMANDS:
        assert command in out
    code, out, _ = run(capsys, "search", "--help")
    assert code == 0 and "--scope {wiki,raw,all}" in out and out.startswith("usage: wikitui search")


def test_a_command_parsed_alone_reads_its_arguments_as_the_whole_parser_does():
    """`wikitui search ...` builds only the search parser: help and parsing must not differ."""
    import argparse

    whole = build_parser()
    (subparsers,) = [a for a in whole._actions if isinstance(a, argparse._SubParsersAction)]
    for name in COMMANDS:
        assert command_parser(name).format_help() == subparsers.choices[name].format_help(), name
    for argv in (["search", "rabbit", "--limit", "3", "--scope", "wiki", "--json", "--vault", "v"],
                 ["links", "Alice", "--json"], ["lint"], ["index", "--rebuild"], ["init", "here"],
                 ["ask", "why?", "--file", "--model", "m"], ["ingest", "raw/a.md", "--apply"]):
        alone = vars(command_parser(argv[0]).parse_args(argv[1:])) | {"command": argv[0]}
        expected = {k: v for k, v in vars(whole.parse_args(argv)).items() if v is not None or k in alone}
        assert alone == expected, argv


def test_argument_errors_are_one_line_with_status_2(capsys):
    code, out, err = run(capsys, "search", "rabbit", "--limit", "zero")
    assert (code, out) == (2, "")
    assert "--limit" in one_error_line(err)
    code, _, err = run(capsys, "serch", "rabbit")
    assert code == 2 and "no such command or folder: 'serch'" in one_error_line(err)
    code, _, err = run(capsys, "ask")
    assert code == 2 and "QUESTION" in one_error_line(err)


def test_init_then_init_again(capsys, tmp_path):
    target = tmp_path / "new vault"
    code, out, err = run(capsys, "init", str(target))
    assert code == 0 and err == ""
    assert "created wiki/index.md" in out and "created WIKI.md" in out
    assert (target / "wiki/index.md").is_file()
    code, out, _ = run(capsys, "init", "--vault", str(target))
    assert code == 0 and "nothing to do" in out


# ------------------------------------------------------------------- search
def test_search_json_contract(capsys, sample_vault):
    code, out, err = run(capsys, "search", "rabbit", "--json", "--vault", str(sample_vault))
    assert code == 0, err
    hits = json.loads(out)
    assert 1 <= len(hits) <= 10
    for hit in hits:
        assert list(hit) == ["path", "kind", "title", "score", "snippet"]
        assert isinstance(hit["path"], str) and not hit["path"].startswith("/") and "\\" not in hit["path"]
        assert hit["kind"] in ("page", "raw")
        assert isinstance(hit["title"], str) and hit["title"]
        assert isinstance(hit["score"], float)
        assert isinstance(hit["snippet"], str)
        assert (sample_vault / hit["path"]).is_file()
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert any("**" in h["snippet"] for h in hits)


def test_search_limit_scope_and_human_output(capsys, sample_vault):
    vault = str(sample_vault)
    code, out, _ = run(capsys, "search", "rabbit", "--json", "--limit", "2", "--vault", vault)
    assert code == 0 and len(json.loads(out)) == 2
    code, out, _ = run(capsys, "search", "rabbit", "--json", "--scope", "raw", "--vault", vault)
    raw_hits = json.loads(out)
    assert raw_hits and {h["kind"] for h in raw_hits} == {"raw"} and all(h["path"].startswith("raw/") for h in raw_hits)
    code, out, _ = run(capsys, "search", "rabbit", "--scope", "wiki", "--json", "--vault", vault)
    assert {h["kind"] for h in json.loads(out)} == {"page"}

    code, out, _ = run(capsys, "search", "rabbit", "--limit", "3", "--vault", vault)
    blocks = out.strip().split("\n\n")
    assert code == 0 and len(blocks) == 3
    for block in blocks:
        where, title = block.splitlines()[:2]
        assert (sample_vault / where.split(":")[0].split("  (")[0]).is_file()
        assert title.startswith("  ") and title.strip()


def test_search_shows_and_opens_a_phrase_at_its_line(capsys, sample_vault):
    # Issue 21.7: "mad here" was listed at raw/chapter-06.md:47, a line with "here" only.
    code, out, _ = run(capsys, "search", '"mad here"', "--scope", "raw", "--vault", str(sample_vault))
    where = out.splitlines()[0].split("  (")[0]
    path, line = where.split(":")
    text = (sample_vault / path).read_text(encoding="utf-8").splitlines()[int(line) - 1]
    assert code == 0 and "mad here" in text.lower()


def test_a_search_ranked_by_any_word_says_so_on_stderr(capsys, sample_vault):
    # Issue 21.9: no page holds every word: any word ranks, a note says so; --json stays one array.
    vault = str(sample_vault)
    code, out, err = run(capsys, "search", "how do I find the hatter zzyzzx", "--json", "--vault", vault)
    hits = json.loads(out)
    assert code == 0 and isinstance(hits, list) and hits and "hatter" in hits[0]["title"].lower()
    assert err == "note: no result has every word; showing results with any of them\n"
    code, out, err = run(capsys, "search", "how do I find the hatter zzyzzx", "--vault", vault)
    assert code == 0 and "any of them" in err and out.strip()
    code, out, err = run(capsys, "search", "hatter", "--vault", vault)
    assert code == 0 and err == ""


def test_search_sees_a_page_written_since_the_last_search(capsys, sample_vault):
    vault = str(sample_vault)
    assert json.loads(run(capsys, "search", "zyzzyva", "--json", "--vault", vault)[1]) == []
    (sample_vault / "wiki/zyzzyva.md").write_text("---\ntitle: Zyzzyva\n---\nA zyzzyva weevil.\n", encoding="utf-8")
    hits = json.loads(run(capsys, "search", "zyzzyva", "--json", "--vault", vault)[1])
    assert [h["path"] for h in hits] == ["wiki/zyzzyva.md"]


def test_bad_query_is_a_user_error(capsys, sample_vault):
    code, out, err = run(capsys, "search", '"white rabbit', "--vault", str(sample_vault))
    assert (code, out) == (2, "")
    assert "quote" in one_error_line(err)


# -------------------------------------------------------------------- links
def test_links_json_contract_and_page_by_path_title_or_alias(capsys, sample_vault):
    vault = str(sample_vault)
    code, out, err = run(capsys, "links", "The Hatter", "--json", "--vault", vault)
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["path", "outgoing", "backlinks", "unlinked"]
    assert data["path"] == "wiki/characters/mad-hatter.md"
    assert data["outgoing"] and data["backlinks"]
    for o in data["outgoing"]:
        assert list(o) == ["target", "path", "line"]
        assert isinstance(o["target"], str) and (o["path"] is None or isinstance(o["path"], str))
        assert isinstance(o["line"], int)
    for group in ("backlinks", "unlinked"):
        for b in data[group]:
            assert list(b) == ["path", "line", "context"]
            assert isinstance(b["path"], str) and isinstance(b["line"], int) and isinstance(b["context"], str)
    # The same page by title, by path and by wiki-relative path.
    for name in ("Mad Hatter", "wiki/characters/mad-hatter.md", "characters/mad-hatter"):
        assert json.loads(run(capsys, "links", name, "--json", "--vault", vault)[1]) == data


def test_links_reports_unresolved_targets_as_null(capsys, sample_vault):
    code, out, _ = run(capsys, "links", "wiki/characters/mock-turtle.md", "--json", "--vault", str(sample_vault))
    data = json.loads(out)
    assert code == 0
    assert {"target": "Lobster Quadrille", "path": None, "line": 18} in data["outgoing"]
    code, out, _ = run(capsys, "links", "Mock Turtle", "--vault", str(sample_vault))
    assert code == 0 and "Lobster Quadrille → unresolved" in out and "Backlinks (" in out


def test_unknown_page_is_a_user_error(capsys, sample_vault):
    code, out, err = run(capsys, "links", "No Such Page", "--vault", str(sample_vault))
    assert (code, out) == (2, "")
    assert one_error_line(err) == "no page named 'No Such Page' (give a path, a title or an alias)"


# --------------------------------------------------------------------- lint
def test_lint_json_contract_and_exit_1_on_problems(capsys, sample_vault):
    code, out, _ = run(capsys, "lint", "--json", "--vault", str(sample_vault))
    assert code == 1
    data = json.loads(out)
    assert list(data) == ["problems", "counts"]
    assert list(data["counts"]) == list(CHECKS)
    assert all(isinstance(n, int) for n in data["counts"].values())
    assert sum(data["counts"].values()) == len(data["problems"])
    for p in data["problems"]:
        assert list(p) == ["check", "path", "line", "target", "message"]
        assert p["check"] in CHECKS and isinstance(p["path"], str) and isinstance(p["message"], str)
        assert p["line"] is None or isinstance(p["line"], int)
        assert p["target"] is None or isinstance(p["target"], str)
    broken = [p for p in data["problems"] if p["check"] == "broken-link"]
    assert broken == [{
        "check": "broken-link", "path": "wiki/characters/mock-turtle.md", "line": 18,
        "target": "Lobster Quadrille", "message": "link [[Lobster Quadrille]] resolves to nothing",
    }]


def test_lint_exit_0_on_a_clean_vault_and_human_output(capsys, tmp_path):
    assert run(capsys, "init", str(tmp_path))[0] == 0
    assert run(capsys, "lint", "--vault", str(tmp_path)) == (0, "", "0 problems\n")
    (tmp_path / "wiki/a.md").write_text("[[Nowhere]]\n", encoding="utf-8")
    code, out, err = run(capsys, "lint", "--vault", str(tmp_path))
    assert code == 1
    assert "wiki/a.md:1: broken-link: link [[Nowhere]] resolves to nothing" in out.splitlines()
    assert err.startswith("4 problems (1 broken-link, 1 orphan, 1 not-in-index, 1 missing-frontmatter)")


# -------------------------------------------------------------------- index
def test_index_and_rebuild(capsys, sample_vault):
    code, out, _ = run(capsys, "index", "--vault", str(sample_vault))
    assert code == 0 and out.startswith("Search index")
    first_total = int(out.split(": ")[1].split(" files")[0])
    assert first_total == len([p for p in content(sample_vault) if p.startswith(("wiki/", "raw/"))])
    code, out, _ = run(capsys, "index", "--vault", str(sample_vault))
    assert code == 0 and "(0 added, 0 updated, 0 removed)" in out
    for path in (sample_vault / "raw").iterdir():  # as a checkout or a sync tool leaves them
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 3_000_000_000))
    code, out, _ = run(capsys, "index", "--vault", str(sample_vault))
    assert code == 0 and "(0 added, 0 updated, 0 removed; 12 touched but unchanged)" in out
    code, out, _ = run(capsys, "index", "--rebuild", "--vault", str(sample_vault))
    assert code == 0 and out.startswith("Search index rebuilt")


# --------------------------------------------------------- vault and safety
def test_vault_defaults_to_the_current_folder(capsys, sample_vault, monkeypatch):
    monkeypatch.chdir(sample_vault / "wiki")  # a subfolder is not the vault
    code, _, err = run(capsys, "lint")
    assert code == 2 and "is not a wikitui vault" in one_error_line(err)
    monkeypatch.chdir(sample_vault)
    code, out, _ = run(capsys, "links", "Alice", "--json")
    assert code == 0 and json.loads(out)["path"] == "wiki/characters/alice.md"


def test_bad_vault_is_a_user_error_for_every_reading_command(capsys, tmp_path):
    for argv in (["search", "x"], ["links", "x"], ["lint"], ["index"]):
        code, out, err = run(capsys, *argv, "--vault", str(tmp_path / "missing"))
        assert (code, out) == (2, "")
        assert "no such folder" in one_error_line(err)


def test_reading_commands_never_change_a_page(capsys, sample_vault):
    before = content(sample_vault)
    vault = str(sample_vault)
    for argv in (
        ["search", "queen", "--json"], ["search", "tarts"], ["links", "Alice"], ["links", "Alice", "--json"],
        ["lint"], ["lint", "--json"], ["index"], ["index", "--rebuild"],
    ):
        cli.main([*argv, "--vault", vault])
    capsys.readouterr()
    assert content(sample_vault) == before


def test_keyboard_interrupt_exits_130(capsys, sample_vault, monkeypatch):
    def interrupted(_args):
        raise KeyboardInterrupt

    monkeypatch.setitem(cli.HANDLERS, "lint", interrupted)
    assert run(capsys, "lint", "--vault", str(sample_vault))[0] == 130


# ------------------------------------------------------------ ask / ingest
@pytest.fixture
def fake_headless(monkeypatch):
    """Stand in for wikitui.core.agent.headless, recording calls (the CLI's wiring is under test)."""
    import wikitui.core.agent as agent_pkg

    calls: list[tuple] = []
    mod = types.ModuleType("wikitui.core.agent.headless")
    def run_ask(workspace, question, *, file, model, as_json, fold=False):
        calls.append(("ask", workspace.root, question, file, model, as_json) + (("fold",) if fold else ()))
        return 0

    def run_ingest(workspace, source, *, apply, model, as_json):
        calls.append(("ingest", workspace.root, source, apply, model, as_json))
        return 4

    mod.run_ask, mod.run_ingest = run_ask, run_ingest
    monkeypatch.setitem(sys.modules, "wikitui.core.agent.headless", mod)
    monkeypatch.setattr(agent_pkg, "headless", mod, raising=False)
    return calls


def test_ask_and_ingest_call_the_headless_agent_with_their_flags(capsys, sample_vault, fake_headless):
    root = sample_vault.resolve()
    assert run(capsys, "ask", "Who stole the tarts?", "--vault", str(root))[0] == 0
    assert run(capsys, "--model", "m1", "ask", "Why?", "--file", "--vault", str(root))[0] == 0
    assert run(capsys, "ingest", "raw/chapter-01.md", "--apply", "--model", "m2", "--vault", str(root))[0] == 4
    assert run(capsys, "ask", "Why?", "--json", "--vault", str(root))[0] == 0
    assert run(capsys, "ingest", "raw/chapter-01.md", "--json", "--vault", str(root))[0] == 4
    assert run(capsys, "ask", "Why?", "--file", "--fold", "--vault", str(root))[0] == 0
    assert fake_headless == [
        ("ask", root, "Who stole the tarts?", False, None, False),
        ("ask", root, "Why?", True, "m1", False),
        ("ingest", root, "raw/chapter-01.md", True, "m2", False),
        ("ask", root, "Why?", False, None, True),
        ("ingest", root, "raw/chapter-01.md", False, None, True),
        ("ask", root, "Why?", True, None, False, "fold"),
    ]


def test_ask_a_bad_vault_is_reported_before_the_agent_loads(capsys, tmp_path, fake_headless):
    code, _, err = run(capsys, "ask", "Why?", "--vault", str(tmp_path))
    assert code == 2 and "is not a wikitui vault" in one_error_line(err)
    assert fake_headless == []


def test_ask_answers_on_stdout_through_the_real_agent(capsys, sample_vault, fake_llm):
    fake_llm.script(text("The Cat grins and vanishes ([[Cheshire Cat]])."))
    code, out, err = run(capsys, "ask", "What does the Cheshire Cat do?", "--vault", str(sample_vault))
    assert code == 0, err
    assert "The Cat grins and vanishes ([[Cheshire Cat]])." in out
    assert "What does the Cheshire Cat do?" in json.dumps(fake_llm.requests[0])


def test_ask_without_a_model_is_a_user_error(capsys, sample_vault):
    code, out, err = run(capsys, "ask", "Who?", "--vault", str(sample_vault))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "model" in err and "Traceback" not in err


# ------------------------------------------------------------------ launch
@pytest.fixture
def fake_app(monkeypatch):
    """Stand in for wikitui.ui.app so launching does not start a terminal UI."""
    import wikitui.ui as ui_pkg

    opened: list[Path] = []
    mod = types.ModuleType("wikitui.ui.app")
    mod.run_app = lambda path: opened.append(Path(path)) or 0
    monkeypatch.setitem(sys.modules, "wikitui.ui.app", mod)
    monkeypatch.setattr(ui_pkg, "app", mod, raising=False)
    return opened


def test_launch_opens_the_app_on_a_vault(capsys, sample_vault, fake_app, monkeypatch):
    assert run(capsys, str(sample_vault))[0] == 0
    monkeypatch.chdir(sample_vault)
    assert run(capsys)[0] == 0
    assert fake_app == [sample_vault.resolve(), sample_vault.resolve()]


def test_launch_in_a_plain_folder_asks_before_initialising(capsys, tmp_path, fake_app, monkeypatch):
    answers = iter(["n", "y"])
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr("builtins.input", lambda prompt: (prompts.append(prompt), next(answers))[1])
    prompts: list[str] = []

    assert run(capsys, str(tmp_path))[0] == 1
    assert list(tmp_path.iterdir()) == [] and fake_app == []
    assert run(capsys, str(tmp_path))[0] == 0
    assert prompts == [f"Initialise a wikitui vault in {tmp_path.resolve()}? [y/N] "] * 2
    assert (tmp_path / "wiki/index.md").is_file() and fake_app == [tmp_path.resolve()]


# -------------------------------------------------------------- subprocess
@pytest.mark.parametrize(
    "argv, status, needle",
    [
        (["lint", "--vault", "{missing}"], 2, "no such folder"),
        (["links", "Nobody", "--vault", "{vault}"], 2, "no page named 'Nobody'"),
        (["search", "(rabbit", "--vault", "{vault}"], 2, "parenthes"),
        (["search", "x", "--scope", "everywhere"], 2, "--scope"),
    ],
)
def test_the_real_command_prints_one_line_and_no_traceback(sample_vault, tmp_path, argv, status, needle):
    argv = [a.format(vault=sample_vault, missing=tmp_path / "missing") for a in argv]
    proc = subprocess.run([str(WIKITUI), *argv], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == status
    assert proc.stdout == ""
    assert needle in one_error_line(proc.stderr)


def test_the_real_command_lint_json_exits_1(sample_vault):
    proc = subprocess.run(
        [str(WIKITUI), "lint", "--json", "--vault", str(sample_vault)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1 and proc.stderr == ""
    assert json.loads(proc.stdout)["counts"]["broken-link"] == 1
