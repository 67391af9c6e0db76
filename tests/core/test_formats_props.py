"""Properties of the text converters' pure parts, under hypothesis: page markers, cleaning, the cache."""

from __future__ import annotations

import re

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wikitui.core.vault.formats.cache import TextCache
from wikitui.core.vault.formats.citations import page_line, parse_citation
from wikitui.core.vault.formats.conversion import Conversion, clean_text, escape_markers, finish
from wikitui.core.vault.formats.pdf import NO_TEXT_PAGE, join_pages

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# Page text as a PDF gives it: any characters, often lines that look like markers.
page_text = st.lists(
    st.one_of(st.text(max_size=30), st.sampled_from(["[page 1]", "[page 2]", "[slide 3]", "[note: x]", ""])),
    max_size=6,
).map("\n".join)


@SETTINGS
@given(st.lists(page_text, min_size=1, max_size=8), st.lists(st.text(max_size=20), max_size=2))
def test_every_page_marker_is_found_on_its_own_line(pages, notes):
    cleaned = [clean_text(p).strip() for p in pages]
    conv = finish("pdf", join_pages(cleaned), notes=[" ".join(n.split()) for n in notes], pages=len(pages))
    lines = conv.text.split("\n")
    starts = []
    for n in range(1, len(pages) + 1):
        line = page_line(conv.text, n)
        assert line is not None and lines[line - 1] == f"[page {n}]"
        starts.append(line)
    assert starts == sorted(starts)
    assert page_line(conv.text, len(pages) + 1) is None
    # Between two markers lies that page's text (escaped where it looked like a marker).
    for n, (a, b) in enumerate(zip(starts, [*starts[1:], len(lines) + 1]), 1):
        body = "\n".join(lines[a:b - 1]).strip("\n")
        expected = cleaned[n - 1] or NO_TEXT_PAGE
        assert body == (escape_markers(expected) if cleaned[n - 1] else expected)


@SETTINGS
@given(st.text())
def test_clean_text_gives_utf8_without_control_characters(text):
    out = clean_text(text)
    out.encode("utf-8")  # no lone surrogate survives
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\r]", out)


@SETTINGS
@given(st.text(), st.text(max_size=40), st.one_of(st.none(), st.integers(0, 10_000)),
       st.lists(st.text(max_size=30), max_size=3), st.one_of(st.none(), st.text(max_size=40)))
def test_the_cache_gives_back_what_it_stored(tmp_path_factory, text, title, pages, notes, error):
    cache = TextCache(tmp_path_factory.mktemp("cache"))
    body = clean_text(text)
    conv = Conversion("pdf", "" if error else body, error=error, title=title or None, pages=pages, notes=notes)
    cache.put("ab" * 32, conv)
    assert cache.get("ab" * 32, "pdf") == conv
    assert cache.get("ab" * 32, "html") is None


@SETTINGS
@given(st.text(max_size=60), st.integers(1, 10**6))
def test_parse_citation_finds_any_page_anchor(path, page):
    # "#", "|" and "]" end a link's path; a leading "!" or "[[" is embed syntax.
    path = path.replace("#", "").replace("|", "").replace("]", "").strip().lstrip("![").strip()
    assert parse_citation(f"{path}#page={page}") == (path, page)
    assert parse_citation(f"[[{path}#page={page}|label]]") == (path.strip(), page)


@SETTINGS
@given(st.text(alphabet=st.sampled_from("ab \r\n\x00\x07\x1b\x7fé\ud800\udc00"), max_size=300),
       st.integers(min_value=1, max_value=40))
def test_cleaning_in_slices_gives_what_cleaning_in_one_go_gives(text, slice_chars):
    from wikitui.core.vault.formats import conversion

    whole = conversion._clean(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(conversion, "SLICE_CHARS", slice_chars)
        assert conversion.clean_text(text) == whole


def test_four_megabytes_of_text_are_cleaned_in_short_steps(monkeypatch):
    """The viewer's worker reads a large text file in-process: one C call over 4 MB held the UI's lock ~30 ms."""
    from wikitui.core.vault.formats import conversion

    text = "Zürich station\r\nthinning\x07 fast \x00 with a long note on the survey\n" * 60_000  # ~4 MB
    steps: list[int] = []
    real = conversion._clean

    def counting(piece: str) -> str:
        steps.append(len(piece))
        return real(piece)

    monkeypatch.setattr(conversion, "_clean", counting)
    cleaned = conversion.clean_text(text)
    assert cleaned == ("Zürich station\nthinning fast  with a long note on the survey\n" * 60_000)
    assert len(steps) >= len(text) // conversion.SLICE_CHARS and max(steps) <= conversion.SLICE_CHARS + 100
