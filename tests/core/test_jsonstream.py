"""Streamed JSON is byte for byte what ``json.dumps(indent=2, ensure_ascii=False)`` writes, generators included.

But for what a terminal would obey (DEL, C1, bidi and invisible format characters): those are ``\\uXXXX``
escapes, the same data (:func:`~wikitui.core.vault.visible_text.json_visible`).
"""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.core.outputs.jsonstream import write_json
from wikitui.core.vault.visible_text import json_visible

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)


def streamed(data) -> str:
    out = io.StringIO()
    write_json(out, data)
    return out.getvalue()


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_any_json_value_is_written_as_json_dumps_writes_it(data):
    text = streamed(data)
    assert text == json_visible(json.dumps(data, ensure_ascii=False, indent=2)) + "\n"
    assert json.loads(text) == json.loads(json.dumps(data))


def test_generators_are_written_as_lists_and_consumed_once():
    rows = ({"path": f"p{i}", "line": i, "context": "\ud7ff é \"q\""} for i in range(3))
    text = streamed({"path": "x", "outgoing": rows, "empty": (r for r in ()), "counts": {"a": 0}})
    assert text == json.dumps(
        {"path": "x", "outgoing": [{"path": f"p{i}", "line": i, "context": "\ud7ff é \"q\""} for i in range(3)],
         "empty": [], "counts": {"a": 0}}, ensure_ascii=False, indent=2) + "\n"


def test_what_json_cannot_write_is_a_type_error():
    with pytest.raises(TypeError):
        streamed({"x": object()})
