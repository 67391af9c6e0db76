"""On a fresh clone without the corpora, every test that needs one skips and says where they belong."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import conftest

ROOT = Path(__file__).resolve().parents[2]
#: How a test module asks for the corpus marker (on a test, or on all of the module's).
MARKED = re.compile(r"^(?:@pytest\.mark\.corpus\b|pytestmark = .*\bpytest\.mark\.corpus\b)", re.MULTILINE)


def corpus_test_files() -> list[str]:
    """The test modules with a corpus-marked test (the only ones `-m corpus` selects from)."""
    return sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("test_*.py")
        if MARKED.search(path.read_text(encoding="utf-8"))
    )


def test_a_missing_corpus_skips_naming_where_the_corpora_are_expected(tmp_path, monkeypatch):
    monkeypatch.setattr(conftest, "CORPUS", tmp_path / "no-corpus-here")
    with pytest.raises(pytest.skip.Exception) as skipped:
        conftest.corpus_path("vault-small")
    reason = str(skipped.value)
    assert "vault-small" in reason and str(tmp_path / "no-corpus-here") in reason
    assert "../shared/corpus" in reason and "WIKITUI_CORPUS" in reason


def test_every_corpus_test_skips_naming_where_the_corpora_are_expected(tmp_path):
    # Only the modules with a corpus-marked test are collected: `-m corpus` deselects every other test,
    # so the tree's other modules would only be imported (a nested run over the whole tree took minutes).
    files = corpus_test_files()
    assert "tests/core/test_search.py" in files and len(files) >= 5, files
    env = {**os.environ, "WIKITUI_CORPUS": str(tmp_path / "no-corpus-here")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-m", "corpus", "-p", "no:cacheprovider", "-n", "0",
         *files],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    skipped = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    # vault-small and vault-large in the search, graph, scan, frontmatter, apply and page tests, and alice.
    assert int(re.search(r"(\d+) skipped", out).group(1)) >= 20 and skipped, out[-3000:]
    for line in skipped:
        assert "../shared/corpus" in line and "WIKITUI_CORPUS" in line, line
    assert re.search(r"\d+ passed", out)  # the sample vault's cases of the same tests still run
