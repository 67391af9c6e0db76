"""A converted source is prepared in the worker: the UI thread only swaps the prepared document in.

Cleaning 4 MB of converted text and cutting it into lines took ~50 ms, and laying
out down to a cited page parses many chunks: done on the UI thread, a key pressed
meanwhile waited for it. These tests record on which thread that work runs (never
how long it takes).
"""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.core import formats_samples as samples
from tests.ui.workspace_helpers import screen_text, wait_for, wait_ready, workspace
from wikitui.ui.markdown import chunks, document
from wikitui.ui.screens import source_display

#: Pages long enough that page 3 starts far below the first screen.
LONG_PAGES = tuple(f"{words}. " + "Filler sentence for the page. " * 200 for words in samples.PAGE_WORDS)


def record_threads(monkeypatch) -> dict[str, list[tuple[bool, bool]]]:
    """(on the UI thread, inside the arrival) per call of the steps preparing the PDF's text, and per arrival.

    ``source_blocks`` parses a chunk of a source shown as highlighted text (only the PDF is, here).
    """
    calls: dict[str, list[tuple[bool, bool]]] = {"render_lines": [], "source_blocks": [], "arrived": []}
    inside = threading.local()

    def where() -> tuple[bool, bool]:
        return threading.current_thread() is threading.main_thread(), getattr(inside, "on", False)

    def wrap(module, name):
        real = getattr(module, name)

        def recording(*args, **kwargs):
            if name != "render_lines" or "[page 1]" in args[0]:  # the PDF's text (not the messages' or pages')
                calls[name].append(where())
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, recording)

    wrap(document, "render_lines")
    wrap(document, "source_blocks")
    real_arrived = source_display._arrived

    def arrived(*args):
        calls["arrived"].append(where())
        inside.on = True
        try:
            real_arrived(*args)
        finally:
            inside.on = False

    monkeypatch.setattr(source_display, "_arrived", arrived)
    return calls


async def test_a_converted_pdf_is_cleaned_split_and_laid_out_in_the_worker(sample_vault, monkeypatch):
    samples.make_pdf(sample_vault / "raw" / "paper.pdf", LONG_PAGES)
    calls = record_threads(monkeypatch)
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("raw/paper.pdf")
        await wait_for(pilot, lambda: "Section 1" in screen_text(app), "the converted text", timeout=30)
        assert calls["arrived"] == [(True, False)]  # the arrival itself runs on the UI thread...
        # ...and finds the text already cleaned, split and its first screen parsed, by the worker:
        assert calls["render_lines"] and all(not ui for ui, _ in calls["render_lines"])
        assert any(not ui for ui, _ in calls["source_blocks"])
        assert not [c for c in calls["render_lines"] + calls["source_blocks"] if c[1]]  # none during the arrival


async def test_a_cited_page_is_laid_out_in_the_worker_too(sample_vault, monkeypatch):
    samples.make_pdf(sample_vault / "raw" / "paper.pdf", LONG_PAGES)
    calls = record_threads(monkeypatch)
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("raw/paper.pdf", anchor="page=3")
        await wait_for(pilot, lambda: "converting" not in str(app.main.query_one("#page").border_subtitle), "the text", timeout=30)
        await pilot.pause()
        text = screen_text(app)
        assert "[page 3]" in text and "Section 1" not in text  # scrolled to page 3
        in_worker = [c for c in calls["source_blocks"] if not c[0]]
        assert len(in_worker) > 3  # the chunks down to page 3, parsed by the worker
        assert not [c for c in calls["render_lines"] + calls["source_blocks"] if c[1]]  # none during the arrival


def test_prepare_gives_a_failed_conversion_its_line_and_no_document():
    from wikitui.core.vault.formats.conversion import failed

    shown = source_display.prepare("raw/locked.pdf", failed("pdf", "locked.pdf is encrypted"), anchor="",
                                   line=None, scroll_y=0, size=(80, 20))
    assert shown.doc is None and shown.subtitle == "not readable"
    assert shown.conversion.error == "locked.pdf is encrypted"


# ------------------------------------------------------------ cleaning and splitting in short steps
def reference_lines(text: str) -> list[str]:
    """What the lines are: the whole text cleaned and split in one go (one long C call for a big text)."""
    from wikitui.ui.markdown.chunks import clean_text

    return clean_text(text).split("\n")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \r\n\x00\x07\x1b\x85é\ud800"), max_size=300),
       st.integers(min_value=1, max_value=40))
def test_slices_give_the_lines_of_the_whole_text(text, slice_chars):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(chunks, "SLICE_CHARS", slice_chars)
        lines, long_lines = chunks.render_lines(text)
    assert lines == reference_lines(text) and long_lines == []


def test_four_megabytes_are_cleaned_in_short_steps(monkeypatch):
    text = "Zürich glacier station\r\nthinning\x07 fast, with a long note on the survey\n" * 60_000  # ~4 MB
    steps: list[int] = []
    real = chunks.clean_text

    def counting(piece: str) -> str:
        steps.append(len(piece))
        return real(piece)

    monkeypatch.setattr(chunks, "clean_text", counting)
    lines, _ = chunks.render_lines(text)
    monkeypatch.undo()
    assert lines == reference_lines(text)
    assert len(steps) >= len(text) // chunks.SLICE_CHARS  # many steps...
    assert max(steps) <= chunks.SLICE_CHARS + 100  # ...each a slice (up to the next newline)
