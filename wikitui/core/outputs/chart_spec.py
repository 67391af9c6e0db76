"""The chart spec of ``propose_chart`` (DESIGN §9), checked into a normal form, and where charts may go.

A spec is JSON data::

    {"kind": "bar"|"line"|"scatter"|"pie"|"hist", "title": str, "x_label": str, "y_label": str,
     "series": [{"name": str, "x": [...], "y": [...]}]}

An invalid spec raises :class:`ChartSpecError` whose message lists every problem
with where it is (``series[1].y[3]: expected a number, got "n/a"``) and what a
spec looks like, so a model can correct its call in one go.
"""

from __future__ import annotations

import json
import math
from pathlib import PurePosixPath

from wikitui.core.base.errors import WikituiError

KINDS = ("bar", "line", "scatter", "pie", "hist")
KEYS = ("kind", "title", "x_label", "y_label", "series")
SERIES_KEYS = ("name", "x", "y")
MAX_SERIES = 20
MAX_POINTS = 10_000
MAX_TOTAL_POINTS = 100_000
MAX_TEXT = 200
# What makes matplotlib slow is the number of things it draws with text or a patch
# each, not the numbers: 10,000 bar categories (a tick label and a bar each) took
# minutes. These caps keep every chart to about a second on a loaded machine.
#: Categories (bar x, pie wedges, a line's text labels on x) in one chart.
MAX_CATEGORIES = 100
#: Bars in one chart: a bar chart's categories times its series, a histogram's bins times its series.
MAX_BARS = 400
#: Bins of one histogram (from its bin edges, or the ones matplotlib chooses).
MAX_BINS = 100
#: Values beyond this are refused: matplotlib's axes overflow long before floats do.
MAX_ABS = 1e15
#: Problems listed in one message at most.
_SHOWN = 8

#: What a spec looks like, for the tool's description and every error message.
SPEC_HELP = (
    'A chart spec is {"kind": "bar"|"line"|"scatter"|"pie"|"hist", "title": "...", "x_label": "...", '
    '"y_label": "...", "series": [{"name": "...", "x": [...], "y": [...]}]}. '
    "bar: x are the categories (the same in every series), y their values. "
    "line: x numbers or labels, y numbers, as many as x. scatter: x and y numbers. "
    "pie: one series, x the labels, y values >= 0. "
    "hist: y the values to count; x empty, or the bin edges in increasing order."
)


class ChartSpecError(WikituiError):
    """A chart spec that cannot be drawn; the message says every problem and how to fix it."""


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
        and abs(value) <= MAX_ABS


def _text_problem(value: object) -> str | None:
    if not isinstance(value, str):
        return f"expected a string, got {_show(value)}"
    if len(value) > MAX_TEXT:
        return f"at most {MAX_TEXT} characters (got {len(value):,})"
    if any(ord(c) < 32 or 0xD800 <= ord(c) <= 0xDFFF for c in value):
        return "must not hold control characters, newlines or invalid characters"
    return None


def _show(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _values(where: str, values: object, problems: list[str], *, numbers: bool, labels: bool = False) -> list:
    """Check a list of numbers (or, with ``labels``, of strings or numbers); return it cleaned."""
    if not isinstance(values, list):
        problems.append(f"{where}: expected a list, got {_show(values)}")
        return []
    if len(values) > MAX_POINTS:
        problems.append(f"{where}: at most {MAX_POINTS:,} values (got {len(values):,})")
        return []
    out = []
    for i, v in enumerate(values):
        if _number(v):
            out.append(v)
        elif labels and isinstance(v, str) and _text_problem(v) is None:
            out.append(v)
        else:
            want = "a number or a label" if labels else "a finite number"
            problems.append(f"{where}[{i}]: expected {want}, got {_show(v)}")
            if len(problems) > _SHOWN:
                break
    if labels and not numbers and out and any(isinstance(v, str) for v in out):
        return [v if isinstance(v, str) else _label(v) for v in out]
    return out


def _label(v: float | int) -> str:
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def validate_spec(spec: object) -> dict:
    """Check a chart spec and return its normal form (every key present, in order).

    Args:
        spec: The spec as parsed JSON (a dict), or a JSON string of it.

    Raises:
        ChartSpecError: with every problem found, and :data:`SPEC_HELP`.
    """
    if isinstance(spec, str):
        try:
            spec = json.loads(spec)
        except RecursionError:
            raise ChartSpecError(f"invalid chart spec: nested too deeply. {SPEC_HELP}") from None
        except ValueError as exc:
            raise ChartSpecError(f"invalid chart spec: not valid JSON ({exc}). {SPEC_HELP}") from None
    if not isinstance(spec, dict):
        raise ChartSpecError(f"invalid chart spec: expected an object, got {_show(spec)}. {SPEC_HELP}")
    problems: list[str] = []
    unknown = [k for k in spec if k not in KEYS]
    if unknown:
        problems.append(f"unknown keys {', '.join(map(_show, unknown))} (the keys are {', '.join(KEYS)})")
    kind = spec.get("kind")
    if kind not in KINDS:
        problems.append(f"kind: must be one of {', '.join(KINDS)}; got {_show(kind)}")
    out: dict = {"kind": kind}
    for key in ("title", "x_label", "y_label"):
        value = spec.get(key, "")
        problem = _text_problem(value)
        if problem:
            problems.append(f"{key}: {problem}")
        out[key] = value if not problem else ""
    out["series"] = _series(spec.get("series"), kind, problems)
    if problems:
        more = f" (and {len(problems) - _SHOWN} more)" if len(problems) > _SHOWN else ""
        raise ChartSpecError(f"invalid chart spec: {'; '.join(problems[:_SHOWN])}{more}. {SPEC_HELP}")
    return out


def _series(series: object, kind: object, problems: list[str]) -> list[dict]:
    if not isinstance(series, list) or not series:
        problems.append(f"series: expected a non-empty list of {{name, x, y}}, got {_show(series)}")
        return []
    if len(series) > MAX_SERIES:
        problems.append(f"series: at most {MAX_SERIES} series (got {len(series)})")
        return []
    if kind == "pie" and len(series) != 1:
        problems.append(f"series: a pie has exactly one series (got {len(series)})")
    out = []
    total = 0
    for i, s in enumerate(series):
        where = f"series[{i}]"
        if not isinstance(s, dict):
            problems.append(f"{where}: expected an object {{name, x, y}}, got {_show(s)}")
            continue
        extra = [k for k in s if k not in SERIES_KEYS]
        if extra:
            problems.append(f"{where}: unknown keys {', '.join(map(_show, extra))} (the keys are name, x, y)")
        name = s.get("name", "")
        problem = _text_problem(name)
        if problem:
            problems.append(f"{where}.name: {problem}")
        x_raw, y_raw = s.get("x", []), s.get("y")
        y = _values(f"{where}.y", y_raw, problems, numbers=True)
        labels = kind in ("bar", "pie", "line")
        x = _values(f"{where}.x", x_raw, problems, numbers=not labels, labels=labels)
        total += len(x) + len(y)
        _shape(where, kind, x, y, x_raw, y_raw, problems)
        out.append({"name": name if not problem else "", "x": x, "y": y})
    if total > MAX_TOTAL_POINTS:
        problems.append(f"series: at most {MAX_TOTAL_POINTS:,} values in all (got {total:,})")
    if kind == "bar" and len({json.dumps(s["x"]) for s in out}) > 1:
        problems.append("series: every series of a bar chart must have the same x (the categories)")
    _drawn(kind, out, problems)
    return out


def _drawn(kind: object, series: list[dict], problems: list[str]) -> None:
    """The caps on what matplotlib draws one by one (:data:`MAX_CATEGORIES`, :data:`MAX_BARS`, :data:`MAX_BINS`)."""
    if not series:
        return
    if kind in ("bar", "pie") or (kind == "line" and any(isinstance(v, str) for s in series for v in s["x"])):
        what = {"bar": "a bar chart", "pie": "a pie", "line": "a line chart with text labels on x"}[kind]
        most = max(len(s["x"]) for s in series)
        if most > MAX_CATEGORIES:
            problems.append(f"series: {what} has at most {MAX_CATEGORIES} categories (got {most:,}); "
                            "group the rest, or use a line chart with numbers on x")
            return
    if kind == "bar" and len(series[0]["x"]) * len(series) > MAX_BARS:
        problems.append(f"series: a bar chart has at most {MAX_BARS} bars, categories times series (got "
                        f"{len(series[0]['x']) * len(series):,})")
    if kind == "hist":
        bins = max((len(s["x"]) - 1 for s in series if s["x"]), default=0)
        if bins > MAX_BINS:
            problems.append(f"series: a histogram has at most {MAX_BINS} bins (got {bins:,})")
        elif bins * len(series) > MAX_BARS:
            problems.append(f"series: a histogram has at most {MAX_BARS} bars, bins times series (got "
                            f"{bins * len(series):,})")


def _shape(where: str, kind: object, x: list, y: list, x_raw: object, y_raw: object, problems: list[str]) -> None:
    """Per-kind rules on lengths and values (only when both lists were well-formed)."""
    if not isinstance(x_raw, list) or not isinstance(y_raw, list):
        return
    if kind == "hist":
        if not y:
            problems.append(f"{where}.y: a histogram needs the values to count")
        if x and (len(x) < 2 or any(b <= a for a, b in zip(x, x[1:]))):
            problems.append(f"{where}.x: a histogram's x is empty or the bin edges, at least 2, increasing")
        return
    if len(x) != len(y):
        problems.append(f"{where}: x and y must have the same length (x has {len(x)}, y has {len(y)})")
    if not y:
        problems.append(f"{where}: no values")
    if kind == "pie" and y and (any(v < 0 for v in y) or sum(y) <= 0):
        problems.append(f"{where}.y: a pie's values must be >= 0 and not all 0")


def check_chart_path(path: str, wiki_prefix: str = "wiki") -> str:
    """The vault-relative path of a chart, when ``path`` is a ``.png`` under the wiki's ``assets/``.

    ``wiki/assets/x.png`` and ``assets/x.png`` (relative to the wiki folder) are the same chart.

    Raises:
        ChartSpecError: any other path, with what a chart path looks like.
    """
    assets = f"{wiki_prefix}/assets/" if wiki_prefix else "assets/"
    rule = f"a chart path is {assets}<name>.png"
    raw = path if isinstance(path, str) else ""
    p = PurePosixPath(raw)
    if not raw or "\\" in raw or "\x00" in raw or p.is_absolute() or (len(raw) > 1 and raw[1] == ":") \
            or any(part in ("..", ".") or part.startswith(".") for part in p.parts) \
            or any(ord(c) < 32 for c in raw):
        raise ChartSpecError(f"invalid chart path {_show(path)}: {rule}")
    norm = str(p)
    if wiki_prefix and norm.startswith("assets/"):
        norm = f"{wiki_prefix}/{norm}"
    if not norm.startswith(assets) or not norm.endswith(".png") or norm == assets + ".png" \
            or PurePosixPath(norm).name == ".png":
        raise ChartSpecError(f"invalid chart path {_show(path)}: {rule}")
    return norm


def sidecar_path(png_path: str) -> str:
    """The sidecar beside a chart: ``wiki/assets/x.png`` → ``wiki/assets/x.chart.json``."""
    return png_path[: -len(".png")] + ".chart.json"


def spec_text(spec: dict) -> str:
    """The sidecar's text: the normal spec as indented JSON (stable, so its diff is readable)."""
    return json.dumps(spec, indent=2, ensure_ascii=False) + "\n"
