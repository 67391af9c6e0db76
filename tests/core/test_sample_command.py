"""``wikitui sample``: a copy of the built-in sample vault to try, never the installed copy (issue 21 §12)."""

from __future__ import annotations

import hashlib

from wikitui.cli import main
from wikitui.core.eval.sample import sample_vault_dir


def _digest(folder) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and ".wikitui" not in p.parts):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def test_sample_copies_the_shipped_vault_to_a_new_numbered_folder_and_leaves_the_package_alone(
        tmp_path, monkeypatch, capsys):
    before = _digest(sample_vault_dir())
    monkeypatch.chdir(tmp_path)
    assert main(["sample", "--no-open"]) == 0
    out, err = capsys.readouterr()
    first = tmp_path / "wikitui-sample"
    assert out.strip() == str(first) and f"Copied the sample vault to {first}" in err
    assert _digest(first) == before
    assert (first / "wiki" / "index.md").is_file() and not (first / ".wikitui" / "index").exists()
    # Again: a new folder beside it, the first one untouched.
    (first / "wiki" / "mine.md").write_text("# Mine\n", encoding="utf-8")
    assert main(["sample", "--no-open"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "wikitui-sample-2")
    assert (first / "wiki" / "mine.md").exists() and not (tmp_path / "wikitui-sample-2" / "wiki" / "mine.md").exists()
    assert _digest(sample_vault_dir()) == before


def test_sample_into_a_named_folder_refuses_one_that_exists(tmp_path, capsys):
    dest = tmp_path / "try-it"
    assert main(["sample", str(dest), "--no-open"]) == 0
    assert (dest / "raw" / "chapter-06.md").is_file()
    capsys.readouterr()
    assert main(["sample", str(dest), "--no-open"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already exists" in err


def test_sample_opens_the_workspace_on_the_copy(tmp_path, monkeypatch, capsys):
    opened = []
    monkeypatch.setattr("wikitui.ui.app.run_app", lambda path: opened.append(path) or 0)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert main(["sample", str(tmp_path / "s")]) == 0
    assert opened == [(tmp_path / "s").resolve()]


def test_a_dumb_terminal_gets_one_line_instead_of_a_screen_it_cannot_draw(sample_vault, monkeypatch, capsys):
    opened = []
    monkeypatch.setattr("wikitui.ui.app.run_app", lambda path: opened.append(path) or 0)
    monkeypatch.setenv("TERM", "dumb")
    assert main([str(sample_vault)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "TERM=dumb" in err
    assert opened == []


def _prose(line: str) -> bool:
    """A line of running text: not blank, indented (verse, code), a heading, list, quote, table or markup."""
    import re

    return bool(line.strip()) and not re.match(r"\s|#|[-*+] |\d+[.)] |>|\||<|```|~~~|---", line)


def test_the_samples_paragraphs_are_one_line_each_as_obsidian_shows_them():
    from tests.conftest import SAMPLE

    wrapped = []
    for path in sorted([*SAMPLE.glob("raw/*.md"), *SAMPLE.glob("wiki/**/*.md")]):
        lines = path.read_text(encoding="utf-8").split("\n")
        start = lines.index("---", 1) + 1 if lines[0] == "---" else 0
        fenced = False
        for n in range(start, len(lines) - 1):
            if lines[n].startswith(("```", "~~~")):
                fenced = not fenced
            if not fenced and _prose(lines[n]) and _prose(lines[n + 1]) and not lines[n].endswith("  "):
                wrapped.append(f"{path.relative_to(SAMPLE)}:{n + 1}")
    assert wrapped == []
    # The verse stays verse, and the phrase other tests cite is where they say.
    chapter6 = (SAMPLE / "raw" / "chapter-06.md").read_text(encoding="utf-8").split("\n")
    assert "we're all mad here" in chapter6[128]


def test_the_samples_index_says_what_the_marker_means_in_inits_words():
    from wikitui.core.vault.create import INDEX_TEMPLATE
    from wikitui.core.vault.catalog import INDEX_MARKER

    from tests.conftest import SAMPLE

    (sentence,) = [s.strip() + "." for s in INDEX_TEMPLATE.replace("\n", " ").split(". ") if "marker" in s]
    above = (SAMPLE / "wiki" / "index.md").read_text(encoding="utf-8").split(INDEX_MARKER)[0]
    assert sentence.rstrip(".") + "." in " ".join(above.split())
