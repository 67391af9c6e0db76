"""On a fresh clone without the corpora, every test that needs one skips and says where they belong."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_corpus_test_skips_naming_where_the_corpora_are_expected(tmp_path):
    env = {**os.environ, "WIKITUI_CORPUS": str(tmp_path / "no-corpus-here")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-m", "corpus", "-p", "no:cacheprovider", "tests"],
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
