"""Charts drawn from a spec with matplotlib (Agg): PNG bytes and the sidecar that re-renders them.

A spec is data (kinds, labels, numbers); nothing in it is run. Maths text
(``$...$``) is turned off, so labels are drawn as the characters they are. The PNG
is deterministic: a fixed style, size and resolution, and no metadata that changes
(matplotlib's version stamp is left out), so rendering the sidecar again gives the
same bytes on the same matplotlib.

matplotlib is imported on first use (~0.5-1.5 s): call :func:`render_chart` from a
worker thread. Rendering is serialised by a lock, because matplotlib's settings
are process-wide. What a spec may ask matplotlib to draw is capped
(:mod:`~wikitui.core.outputs.chart_spec`: categories, bars, bins), which bounds a
render to about a second. The last few pictures are kept by spec, so a caller can
draw one ahead, outside its own lock (:func:`prerender`: the MCP server does, so its
other calls are answered meanwhile), and the proposal then takes the picture at once.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wikitui.core.outputs.chart_spec import (
    MAX_BARS,
    MAX_BINS,
    check_chart_path,
    sidecar_path,
    spec_text,
    validate_spec,
)

if TYPE_CHECKING:  # matplotlib is imported only to draw
    from matplotlib.typing import RcKeyType

#: Figure size in inches and resolution: 800×500 pixels.
FIGSIZE = (8.0, 5.0)
DPI = 100
_lock = threading.Lock()
#: Pictures drawn ahead by prerender(), by the spec's text, each for one render_chart (a PNG is ~50 KB).
_ahead: OrderedDict[str, bytes] = OrderedDict()
_KEEP = 4
_RC: dict[RcKeyType, object] = {
    "text.parse_math": False,  # "$x$" in a label is text, not a formula to parse
    "font.family": "DejaVu Sans",  # shipped with matplotlib: the same glyphs everywhere
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
}


@dataclass(slots=True)
class ChartFiles:
    """The two files of a chart, ready to be put into a changeset.

    Attributes:
        png_path: Vault-relative path of the picture (``wiki/assets/x.png``).
        png: The picture's bytes.
        sidecar_path: Vault-relative path of the spec (``wiki/assets/x.chart.json``).
        sidecar: The spec as JSON text.
        spec: The spec in its normal form.
    """

    png_path: str
    png: bytes
    sidecar_path: str
    sidecar: str
    spec: dict


def build_chart(path: str, spec: object, *, wiki_prefix: str = "wiki") -> ChartFiles:
    """What ``propose_chart(path, spec, reason)`` makes: the checked path, the PNG and the sidecar.

    Raises:
        ChartSpecError: a bad path or spec (the message is meant for the model).
    """
    png_path = check_chart_path(path, wiki_prefix)
    normal = validate_spec(spec)
    return ChartFiles(png_path, render_chart(normal), sidecar_path(png_path), spec_text(normal), normal)


def render_from_sidecar(text: str) -> bytes:
    """Render a chart again from its sidecar's text.

    Raises:
        ChartSpecError: the sidecar does not hold a valid spec (edited by hand, say).
    """
    return render_chart(validate_spec(text))


def render_chart(spec: object) -> bytes:
    """The PNG bytes of a chart (validated first).

    Raises:
        ChartSpecError: an invalid spec.
    """
    spec = validate_spec(spec)
    key = spec_text(spec)
    with _lock:
        ahead = _ahead.pop(key, None)  # drawn by prerender() for this very call
        return ahead if ahead is not None else _draw(spec)


def prerender(spec: object) -> None:
    """Draw ``spec``'s picture now, for the :func:`render_chart` of it that comes next; never raises.

    An invalid spec is left for that call to report. At most a few pictures are kept.
    """
    try:
        spec = validate_spec(spec)
    except Exception:
        return
    key = spec_text(spec)
    with _lock:
        if key in _ahead:
            return
        try:
            _ahead[key] = _draw(spec)
        except Exception:
            return
        while len(_ahead) > _KEEP:
            _ahead.popitem(last=False)


def _draw(spec: dict) -> bytes:
    """The PNG of a valid spec (the caller holds ``_lock``)."""
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.style.context("default"), matplotlib.rc_context(_RC):
        fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        _DRAW[spec["kind"]](ax, spec["series"])
        if spec["title"]:
            ax.set_title(spec["title"])
        if spec["kind"] != "pie":
            ax.set_xlabel(spec["x_label"])
            ax.set_ylabel(spec["y_label"])
            if any(s["name"] for s in spec["series"]):
                ax.legend()
        out = io.BytesIO()
        # No "Software" stamp: the bytes depend on the spec alone.
        fig.savefig(out, format="png", dpi=DPI, metadata={"Software": None})
    return out.getvalue()


def _tick_labels(ax, labels: list[str]) -> None:
    if len(labels) > 8 or any(len(label) > 10 for label in labels):
        ax.tick_params(axis="x", labelrotation=45)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")


def _bar(ax, series: list[dict]) -> None:
    labels = [_label(x) for x in series[0]["x"]]
    positions = range(len(labels))
    width = 0.8 / len(series)
    for i, s in enumerate(series):
        offset = (i - (len(series) - 1) / 2) * width
        ax.bar([p + offset for p in positions], s["y"], width=width, label=s["name"] or None)
    ax.set_xticks(list(positions), labels)
    ax.grid(axis="x", visible=False)
    _tick_labels(ax, labels)


def _line(ax, series: list[dict]) -> None:
    for s in series:
        x = [_label(v) for v in s["x"]] if any(isinstance(v, str) for v in s["x"]) else s["x"]
        ax.plot(x, s["y"], marker="o" if len(s["y"]) <= 40 else None, label=s["name"] or None)
    if series and any(isinstance(v, str) for v in series[0]["x"]):
        _tick_labels(ax, [str(v) for v in series[0]["x"]])
    else:
        _whole_numbers(ax, series)


def _whole_numbers(ax, series: list[dict]) -> None:
    """Years and counts on x get whole-number ticks (no 2020.25), written out in full (no offset)."""
    from matplotlib.ticker import MaxNLocator

    if all(isinstance(v, int) for s in series for v in s["x"]):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.ticklabel_format(axis="x", style="plain", useOffset=False)


def _scatter(ax, series: list[dict]) -> None:
    for s in series:
        ax.scatter(s["x"], s["y"], label=s["name"] or None)
    _whole_numbers(ax, series)


def _pie(ax, series: list[dict]) -> None:
    s = series[0]
    ax.pie(s["y"], labels=[_label(x) for x in s["x"]] or None, autopct="%1.0f%%", startangle=90,
           counterclock=False)
    ax.set_aspect("equal")


def _hist(ax, series: list[dict]) -> None:
    bins = series[0]["x"] or _auto_bins(series)
    names = [s["name"] or None for s in series]
    ax.hist([s["y"] for s in series], bins=bins, label=names if any(names) else None)


def _auto_bins(series: list[dict]) -> str | int:
    """matplotlib's own choice of bins ("auto"), but never more than the caps allow (a bar per bin and series).

    numpy's "auto" takes the narrower of the Sturges and Freedman-Diaconis widths; the
    count it would give is worked out here first, without making that many edges
    (a wide range with a narrow spread asks for millions).
    """
    import math

    import numpy as np

    values = np.concatenate([np.asarray(s["y"], dtype=float) for s in series])
    most = max(1, min(MAX_BINS, MAX_BARS // len(series)))
    span = float(values.max() - values.min()) if values.size else 0.0
    if span <= 0:
        return "auto"
    chosen = math.log2(values.size) + 1  # Sturges
    q75, q25 = np.percentile(values, [75, 25])
    width = 2.0 * float(q75 - q25) * values.size ** (-1 / 3)  # Freedman-Diaconis
    if width > 0:
        chosen = max(chosen, span / width)
    return "auto" if math.ceil(chosen) <= most else most


def _label(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


_DRAW = {"bar": _bar, "line": _line, "scatter": _scatter, "pie": _pie, "hist": _hist}
