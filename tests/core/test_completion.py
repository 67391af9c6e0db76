"""``wikitui completion``: the bash script, sourced in a real bash, completes subcommands and page names."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wikitui.cli import main

BASH = shutil.which("bash")


def complete_in_bash(script: Path, cwd: Path, words: list[str]) -> list[str]:
    """What bash's completion function for wikitui offers for the command line ``words`` (the last is completed)."""
    driver = (
        f"source {script}\n"
        f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)})\n"
        f"COMP_CWORD={len(words) - 1}\n"
        "COMP_LINE=\"${COMP_WORDS[*]}\"; COMP_POINT=${#COMP_LINE}\n"
        "fn=$(complete -p wikitui | sed -E 's/.* -F ([^ ]+) .*/\\1/')\n"
        "$fn wikitui \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
        "printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    # The script runs `wikitui __complete pages`: the wikitui of this interpreter.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run([BASH, "--norc", "--noprofile", "-c", driver], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [line for line in proc.stdout.splitlines() if line]


@pytest.fixture
def bash_script(tmp_path, capsys) -> Path:
    assert main(["completion", "bash"]) == 0
    path = tmp_path / "wikitui.bash"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    return path


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_bash_completes_a_subcommand_and_a_page_name(bash_script, sample_vault):
    assert complete_in_bash(bash_script, sample_vault, ["wikitui", "li"]) == ["links", "lint"]
    assert "completion" in complete_in_bash(bash_script, sample_vault, ["wikitui", "com"])
    assert complete_in_bash(bash_script, sample_vault, ["wikitui", "sa"]) == ["sample"]
    pages = complete_in_bash(bash_script, sample_vault, ["wikitui", "links", "wiki/characters/whi"])
    assert pages == ["wiki/characters/white-rabbit.md"]
    # `export` completes the slide decks only (the sample has none).
    assert complete_in_bash(bash_script, sample_vault, ["wikitui", "export", "wiki/pl"]) == []
    # Options of a subcommand come from its parser too.
    assert complete_in_bash(bash_script, sample_vault, ["wikitui", "search", "--sc"]) == ["--scope"]
    assert complete_in_bash(bash_script, sample_vault, ["wikitui", "search", "--scope", "r"]) == ["raw"]


DECK = "---\ntitle: Wonderland in Ten Slides\naliases: [The Talk]\nmarp: true\n---\n\n# Wonderland\n\n---\n\n# The end\n"


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_bash_completes_page_titles_and_aliases_escaped_and_export_only_slide_decks(bash_script, sample_vault):
    assert complete_in_bash(bash_script, sample_vault, ["wikitui", "links", "Chesh"]) == [
        "Cheshire\\ Cat", "Cheshire\\ Puss"]  # the title and an alias, ready for the command line
    assert complete_in_bash(bash_script, sample_vault, ["wikitui", "links", "The\\ Ches"]) == ["The\\ Cheshire\\ Cat"]
    assert complete_in_bash(bash_script, sample_vault, ["wikitui", "links", "white rab"]) == ["White\\ Rabbit"]
    (sample_vault / "wiki" / "talk.md").write_text(DECK, encoding="utf-8")
    assert complete_in_bash(bash_script, sample_vault, ["wikitui", "export", ""]) == [
        "wiki/talk.md", "Wonderland\\ in\\ Ten\\ Slides", "The\\ Talk"]
    assert complete_in_bash(bash_script, sample_vault, ["wikitui", "export", "Wond"]) == ["Wonderland\\ in\\ Ten\\ Slides"]
    assert complete_in_bash(bash_script, sample_vault, ["wikitui", "links", "Wonderland\\ i"]) == [
        "Wonderland\\ in\\ Ten\\ Slides"]


def test_the_page_lister_is_quiet_outside_a_vault(tmp_path, capsys, sample_vault, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["__complete", "pages"]) == 0
    assert capsys.readouterr() == ("", "")
    monkeypatch.chdir(sample_vault)
    assert main(["__complete", "pages", "wiki/characters/ali"]) == 0
    assert capsys.readouterr().out.split() == ["wiki/characters/alice.md", "wiki/characters/alices-sister.md"]
    assert main(["__complete", "pages", "--vault", str(sample_vault), "wiki/ov"]) == 0
    assert capsys.readouterr().out.split() == ["wiki/overview.md"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_name_the_commands_and_the_page_lister(shell, capsys):
    assert main(["completion", shell]) == 0
    out = capsys.readouterr().out
    assert "wikitui __complete pages" in out and "wikitui __complete decks" in out
    for command in ("sample", "search", "links", "mcp", "serve", "completion"):
        assert command in out


def test_an_unknown_shell_is_a_usage_error(capsys):
    assert main(["completion", "tcsh"]) == 2
    assert "invalid choice" in capsys.readouterr().err
