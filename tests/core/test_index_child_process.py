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


def test_the_indexing_child_tells_which_source_it_could_not_convert(sample_vault, monkeypatch):
    from tests.core import formats_samples as samples
    from wikitui.core.base.faults import CRASH_CONVERTING_ENV

    samples.make_pdf(sample_vault / "raw" / "broken.pdf", ("Quokka words never indexed",))
    samples.make_pdf(sample_vault / "raw" / "fine.pdf", ("Zanzibar glaciers retreat",))
    monkeypatch.setenv(CRASH_CONVERTING_ENV, "broken.pdf")  # the child inherits it: its converter dies
    notes: list[str] = []
    finished, error = run_indexing(sample_vault, lambda done, total: None, lambda: False, notes.append)
    assert finished and not error
    assert notes == ["broken.pdf could not be converted (the converter stopped: exit status 3)"]
    index = SearchIndex(Vault.open(sample_vault))
    assert [h.path for h in index.search("zanzibar")] == ["raw/fine.pdf"]
    assert [h.path for h in index.search("quokka")] == []
