"""The ``propose_chart`` tool (DESIGN §9): a chart from a spec, proposed as a picture and its sidecar.

wikitui renders the spec with matplotlib (:mod:`wikitui.core.outputs.charts`: data
only, no model-written code runs) into a PNG and a sidecar ``<name>.chart.json``
holding the spec; both join the turn's changeset (the picture as a binary file
change). An invalid spec or path is an error result the model can correct; the turn
goes on. Tools run in a worker thread, so matplotlib's first import blocks no key.
"""

# No `from __future__ import annotations`: TypedDict reads Required[...] only from real annotations.
from typing import Literal, Required, TypedDict

from wikitui.core.agent.tools.registry import tool
from wikitui.core.changes.model import ProposalError
from wikitui.core.vault.visible_text import describe, proposal_control


class ChartSeries(TypedDict, total=False):
    """One series of a chart."""

    name: str
    x: Required[list[str | float]]
    y: Required[list[str | float]]


class ChartSpec(TypedDict, total=False):
    """A chart spec (see SPEC_HELP in wikitui.core.outputs.chart_spec)."""

    kind: Required[Literal["bar", "line", "scatter", "pie", "hist"]]
    title: str
    x_label: str
    y_label: str
    series: Required[list[ChartSeries]]


@tool("propose", lambda arg, args: f"proposed the chart {arg('path')}")
def propose_chart(box, path: str, spec: ChartSpec, reason: str) -> str:
    """Propose a chart: wikitui draws the spec into a PNG (plus a sidecar NAME.chart.json holding the spec).

    Never write a script to make a chart: use this tool. Embed the chart in a page with
    ![[assets/NAME.png]] (propose that page too). bar: x are the categories (the same in every
    series), y their values. line: x numbers or labels, y numbers. scatter: x and y numbers.
    pie: one series, x the labels, y values >= 0. hist: y the values to count; x empty or the
    bin edges in increasing order.

    Args:
        path: Where the picture goes: assets/NAME.png (under the wiki folder).
        spec: {"kind", "title", "x_label", "y_label", "series": [{"name", "x": [...], "y": [...]}]}.
        reason: One line saying why, shown to the user.
    """
    from wikitui.core.changes.asset_proposals import propose_asset
    from wikitui.core.outputs.charts import build_chart

    _refuse_controls(spec)
    chart = build_chart(path, dict(spec), wiki_prefix=box.vault.wiki_prefix)  # ChartSpecError: the model's to fix
    first = propose_asset(box.builder, chart.png_path, chart.png, reason)
    propose_asset(box.builder, chart.sidecar_path, chart.sidecar, reason)
    name = chart.png_path.rsplit("/", 1)[-1]
    return f"{first} and its spec {chart.sidecar_path}; embed it in a page with ![[assets/{name}]]"


def _refuse_controls(value, where: str = "spec") -> None:
    """Refuse a control character in any string of the spec: its sidecar is text the person reviews (DESIGN §8).

    Raises:
        ProposalError: naming the field and the character.
    """
    if isinstance(value, str):
        found = proposal_control("", value)
        if found is not None:
            raise ProposalError(f"the chart's {where} holds the control character {describe(found[0])}; leave it out")
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_controls(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _refuse_controls(item, f"{where}[{i}]")
