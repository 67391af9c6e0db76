"""The background indexing child: catches the index up, then merges its segments."""

from __future__ import annotations

from wikitui.core.search.child_process import run_indexing
from wikitui.core.search.facade import SearchIndex
from wikitui.core.vault.layout import Vault


def test_the_indexing_child_merges_segments_left_by_incremental_updates(sample_vault):
    vault = Vault.open(sample_vault)
    index = SearchIndex(vault)
    index.update()
    page = sample_vault / "wiki" / "characters" / "dodo.md"
    page.write_text(page.read_text() + "\nThe Dodo proposes a Caucus-race zzyzx.\n")
    index.update_paths(["wiki/characters/dodo.md"])
    assert index.segment_count() > 1  # incremental updates add segments

    progress = []
    finished, error = run_indexing(sample_vault, lambda done, total: progress.append((done, total)), lambda: False)
    assert finished and not error
    fresh = SearchIndex(vault)
    assert fresh.segment_count() == 1
    assert [h.path for h in fresh.search("zzyzx")] == ["wiki/characters/dodo.md"]
