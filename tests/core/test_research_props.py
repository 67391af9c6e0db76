"""Property tests of the search engines' answers as wikitui reads them (whatever JSON comes back)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.core.research.provider import SNIPPET_CHARS, TITLE_CHARS, hits_text, parse_hits
from wikitui.core.vault.visible_text import has_unsafe

_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=400)
_url = st.one_of(_text, st.builds(lambda host, path: f"http://{host}/{path}", st.from_regex(r"[a-z]{1,8}\.org",
                                  fullmatch=True), _text))
_json = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), _text),
                     lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_text, inner, max_size=4)),
                     max_leaves=12)
_hit = st.fixed_dictionaries({"url": _url, "title": st.one_of(_text, _json), "content": st.one_of(_text, _json),
                              "description": _text})
_answer = st.one_of(_json, st.fixed_dictionaries({"results": st.lists(st.one_of(_hit, _json), max_size=8)}),
                    st.fixed_dictionaries({"web": st.fixed_dictionaries(
                        {"results": st.lists(st.one_of(_hit, _json), max_size=8)})}))


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(["searxng", "brave"]), answer=_answer, limit=st.integers(1, 10))
def test_any_answer_gives_web_addresses_with_short_visible_text(kind, answer, limit):
    hits = parse_hits(kind, answer, limit)
    assert len(hits) <= limit
    assert len({h.url for h in hits}) == len(hits)
    for hit in hits:
        assert hit.url.lower().startswith(("http://", "https://"))
        assert not any(ord(c) < 0x21 or 0x7F <= ord(c) <= 0x9F for c in hit.url)
        assert len(hit.title) <= TITLE_CHARS and len(hit.snippet) <= SNIPPET_CHARS
        assert not has_unsafe(hit.title) and not has_unsafe(hit.snippet)
    assert not has_unsafe(hits_text("q", hits))
