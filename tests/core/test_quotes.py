"""The quote check behind evidence (DESIGN §11): a pure function, checked with properties.

Exact first, then whitespace- and case-folded; quotes across line breaks; line ranges in and
out of bounds; lone surrogates; huge sources. Lines are numbered as ``read`` numbers them.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from wikitui.core.vault.evidence import parse_lines
from wikitui.core.vault.quotes import find_quote, fold, lines_digest

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéàüøñÉÀÜØÑ"
words = st.text(alphabet=LETTERS, min_size=1, max_size=8)
spaces = st.sampled_from([" ", "  ", "\t", "\n", " \n ", "\r\n"])
any_text = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(["\n", "\r", "\x0c", "\u2028", "\ud800"]),
                   max_size=300)


@st.composite
def prose(draw, min_words=2):
    """Words joined by whitespace of several kinds, line breaks among them."""
    parts = draw(st.lists(words, min_size=min_words, max_size=40))
    out = parts[0]
    for w in parts[1:]:
        out += draw(spaces) + w
    return out


def _held(text: str, start: int, end: int) -> str:
    return "".join(text.splitlines(keepends=True)[start - 1:end])


@given(text=prose(), data=st.data())
def test_a_piece_of_the_source_is_found_exactly_on_the_lines_that_hold_it(text, data):
    i = data.draw(st.integers(0, len(text) - 1))
    j = data.draw(st.integers(i + 1, len(text)))
    quote = text[i:j]
    found = find_quote(text, quote)
    if quote.strip():
        assert found.kind == "exact"
        assert quote.strip() in _held(text, found.start, found.end)
        assert 1 <= found.start <= found.end <= len(text.splitlines())
    else:
        assert found.kind == "missing"  # blanks quote nothing


@given(text=prose(min_words=3), data=st.data())
def test_a_quote_with_other_case_and_other_whitespace_is_found_folded(text, data):
    tokens = text.split()
    a = data.draw(st.integers(0, len(tokens) - 2))
    b = data.draw(st.integers(a + 2, len(tokens)))
    gaps = data.draw(st.lists(st.sampled_from([" ", "   ", "\n", "\t "]), min_size=b - a - 1, max_size=b - a - 1))
    quote = tokens[a].swapcase()
    for gap, w in zip(gaps, tokens[a + 1:b]):
        quote += gap + w.swapcase()
    found = find_quote(text, quote)
    assert found.kind in ("exact", "folded")
    assert fold(quote) in fold(_held(text, found.start, found.end))


@given(first=st.lists(words, min_size=1, max_size=6), second=st.lists(words, min_size=1, max_size=6),
       before=st.integers(0, 5))
@example(first=["A", "E"], second=["A"], before=1)  # "line" ends in e and the next line starts with A: not the quote
def test_a_quote_across_a_line_break_with_a_space_for_it_spans_both_lines(first, second, before):
    lines = ["filler line"] * before + [" ".join(first), " ".join(second), "after"]
    text = "\n".join(lines)
    quote = first[-1] + " " + second[0]
    found = find_quote(text, quote)
    assert found.found and fold(quote) in fold(_held(text, found.start, found.end))
    if not any(fold(quote) in fold(line) for line in lines):  # on no one line: the match is across the break
        assert (found.kind, found.start, found.end) == ("folded", before + 1, before + 2)


@given(n=st.integers(0, 50), a=st.integers(-5, 60), b=st.integers(-5, 60))
def test_a_line_range_alone_must_lie_in_the_source(n, a, b):
    text = "".join(f"line {i}\n" for i in range(1, n + 1))
    found = find_quote(text, "", (a, b))
    lo, hi = sorted((a, b))
    if 1 <= lo and hi <= n:
        assert (found.kind, found.start, found.end) == ("lines", lo, hi)
        assert lines_digest(text, lo, hi) is not None
    else:
        assert found.kind == "out-of-range" and not found.found
        assert lines_digest(text, lo, hi) is None


@given(n=st.integers(3, 40), data=st.data())
def test_a_quote_outside_its_range_is_still_found_where_it_is(n, data):
    lines = [f"sentence number {i} here" for i in range(1, n + 1)]
    text = "\n".join(lines)
    k = data.draw(st.integers(1, n))
    wrong = data.draw(st.integers(1, n))
    found = find_quote(text, f"sentence number {k} here", (wrong, wrong))
    assert (found.kind, found.start, found.end) == ("exact", k, k)


@given(before=st.text(max_size=40), after=st.text(max_size=40))
def test_a_lone_surrogate_neither_breaks_the_check_nor_the_digest(before, after):
    text = before + "\ud800 kept byte\udcff" + after
    found = find_quote(text, "\ud800 kept byte\udcff")
    assert found.kind == "exact"
    assert lines_digest(text, found.start, found.end) is not None
    assert find_quote(text, "KEPT BYTE").found


@settings(max_examples=5, deadline=None)
@given(copies=st.integers(20_000, 60_000), tail=words)
def test_a_huge_source_is_searched_to_its_end(copies, tail):
    text = "an ordinary line of a very long source\n" * copies + f"the last line says {tail}\n"
    found = find_quote(text, f"THE LAST   line says {tail}", (1, 2))  # a wrong range: looked for everywhere
    assert (found.kind, found.start) == ("folded", copies + 1) or (found.kind, found.start) == ("exact", copies + 1)
    assert find_quote(text, "", (copies + 2, copies + 2)).kind == "out-of-range"


@given(text=any_text, quote=any_text, lines=st.none() | st.tuples(st.integers(-3, 400), st.integers(-3, 400)))
def test_the_check_never_raises_and_what_it_finds_is_in_bounds(text, quote, lines):
    found = find_quote(text, quote, lines)
    if found.found:
        assert 1 <= found.start <= found.end <= len(text.splitlines())
    else:
        assert (found.start, found.end) == (0, 0)


@given(a=st.integers(1, 10**6), b=st.integers(1, 10**6), style=st.sampled_from(["{a}-{b}", "L{a}-L{b}", "{a}–{b}",
                                                                              " {a} to {b} ", "{a}..{b}"]))
def test_a_line_range_reads_in_the_ways_models_write_it(a, b, style):
    assert parse_lines(style.format(a=a, b=b)) == (a, b)
    assert parse_lines(str(a)) == (a, a) == parse_lines([a]) == parse_lines(a)
    assert parse_lines([a, b]) == (a, b)


@given(value=st.text(max_size=20) | st.lists(st.integers(-3, 3), max_size=4) | st.integers(-5, 0))
def test_a_line_range_that_is_not_one_is_refused_with_a_message(value):
    try:
        got = parse_lines(value)
    except ValueError as exc:
        assert "line numbers" in str(exc)
    else:
        assert got is None or (1 <= got[0] and 1 <= got[1])
