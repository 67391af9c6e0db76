"""propose_chart with hostile arguments: an error the model reads, or a chart; never a raise, never half a chart."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.core.changes_util import make_vault, open_vault
from wikitui.core.agent.tools import ToolBox
from wikitui.core.changes.builder import ChangesetBuilder

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=False),
                     st.text(max_size=12))
_json = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8),
                                                                                              inner, max_size=4),
                     max_leaves=12)
_series = st.fixed_dictionaries({"name": st.text(max_size=8), "x": st.lists(_scalars, max_size=6),
                                 "y": st.lists(_scalars, max_size=6)})
_spec = st.one_of(_json, st.fixed_dictionaries({
    "kind": st.sampled_from(["bar", "line", "scatter", "pie", "hist", "donut", ""]),
    "title": st.text(max_size=20), "series": st.lists(_series, max_size=3)}))
_path = st.one_of(st.just("assets/x.png"), st.text(max_size=20), st.just("../../etc/x.png"),
                  st.just("wiki/assets/.hidden.png"), st.just("assets/x.md"))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=_path, spec=_spec)
@example(path="assets/x.png", spec={"kind": "pie", "series": [{"name": "", "x": ["a", "b"], "y": [1, 2]}]})
@example(path="assets/x.png", spec={"kind": "hist", "title": "\u202e", "series": [{"name": "", "x": [], "y": [0.5]}]})
def test_any_call_is_a_chart_or_an_error_and_nothing_is_half_recorded(tmp_path_factory, path, spec):
    root = make_vault(tmp_path_factory.mktemp("v") / "v", {})
    vault, graph = open_vault(root)
    builder = ChangesetBuilder(vault, graph)
    outcome = ToolBox(vault, graph, builder=builder).call(
        "propose_chart", json.dumps({"path": path, "spec": spec, "reason": "r"}))
    changeset = builder.build("query", "t")
    if outcome.ok:
        assert changeset is not None and [(f.path.endswith(".png"), f.binary) for f in changeset.files] == [
            (True, True), (False, False)]
        assert all(f.path.startswith("wiki/assets/") for f in changeset.files)
    else:
        assert outcome.text.startswith("error: ") and changeset is None
    assert not (root / "wiki" / "assets").exists()  # a proposal writes nothing
