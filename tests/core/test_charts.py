"""Charts from a spec (DESIGN §9): validated with messages a model can act on, drawn by matplotlib,
deterministic PNG bytes, and a sidecar that renders the same picture again."""

from __future__ import annotations

import io
import json
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from wikitui.core.outputs.chart_spec import (
    SPEC_HELP,
    ChartSpecError,
    check_chart_path,
    sidecar_path,
    spec_text,
    validate_spec,
)
from wikitui.core.outputs.charts import build_chart, render_chart, render_from_sidecar

BAR = {"kind": "bar", "title": "Glacier loss", "x_label": "glacier", "y_label": "percent",
       "series": [{"name": "2025", "x": ["Gries", "Aletsch", "Rhone"], "y": [6.1, 2.2, 3.0]},
                  {"name": "2026", "x": ["Gries", "Aletsch", "Rhone"], "y": [5, 2.5, 3.3]}]}
SPECS = {
    "bar": BAR,
    "line": {"kind": "line", "title": "Mass balance", "series": [{"name": "m w.e.", "x": [2020, 2021, 2022],
                                                                   "y": [-1.2, -0.8, -3.1]}]},
    "scatter": {"kind": "scatter", "series": [{"name": "", "x": [1, 2.5, 3], "y": [3, 1, 2]}]},
    "pie": {"kind": "pie", "title": "Surface", "series": [{"name": "", "x": ["ice", "rock"], "y": [70, 30]}]},
    "hist": {"kind": "hist", "series": [{"name": "depth", "x": [0, 10, 20, 40], "y": [1, 5, 12, 12, 30, 35]}]},
}
TAB_BLUE, TAB_ORANGE = (31, 119, 180), (255, 127, 14)


def picture(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    img.load()
    return img.convert("RGB")


def pixels_of(img: Image.Image, colour: tuple[int, int, int]) -> int:
    return dict((c, n) for n, c in img.getcolors(img.width * img.height)).get(colour, 0)


# ------------------------------------------------------------ drawing
@pytest.mark.parametrize("kind", sorted(SPECS))
def test_every_kind_draws_an_800_by_500_png(kind):
    img = picture(render_chart(SPECS[kind]))
    assert img.size == (800, 500)
    assert pixels_of(img, TAB_BLUE) > 15  # the data is drawn, in the first series' colour (3 dots at least)


def test_a_bar_chart_draws_each_series_in_its_colour():
    img = picture(render_chart(BAR))
    assert pixels_of(img, TAB_BLUE) > 5000 and pixels_of(img, TAB_ORANGE) > 5000
    one = picture(render_chart({**BAR, "series": BAR["series"][:1]}))
    assert pixels_of(one, TAB_ORANGE) == 0


def test_the_png_is_deterministic_and_carries_no_version_stamp():
    first = render_chart(BAR)
    assert render_chart(json.loads(json.dumps(BAR))) == first
    results = []
    threads = [threading.Thread(target=lambda: results.append(render_chart(BAR))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [first] * 3
    assert b"matplotlib" not in first.lower() and b"Software" not in first
    assert render_chart({**BAR, "title": "Another title"}) != first


def test_the_sidecar_renders_the_same_picture_again():
    files = build_chart("wiki/assets/loss.png", BAR)
    assert (files.png_path, files.sidecar_path) == ("wiki/assets/loss.png", "wiki/assets/loss.chart.json")
    assert json.loads(files.sidecar) == files.spec == validate_spec(BAR)
    assert files.sidecar.endswith("\n") and '"kind": "bar"' in files.sidecar
    assert render_from_sidecar(files.sidecar) == files.png


def test_labels_are_text_never_formulas_or_code(tmp_path):
    marker = tmp_path / "ran"
    spec = {"kind": "line", "title": "$\\frac{1}{$ broken maths", "x_label": "__import__('os').system('x')",
            "y_label": f"open('{marker}', 'w')", "series": [{"name": "$x^2$", "x": [1, 2], "y": [1, 4]}]}
    assert picture(render_chart(spec)).size == (800, 500)
    assert not marker.exists()


def test_labels_and_years_on_x():
    labels = {"kind": "line", "series": [{"name": "", "x": [f"week {i}" for i in range(20)], "y": list(range(20))}]}
    years = {"kind": "bar", "series": [{"name": "", "x": [2024, 2025], "y": [1, 2]}]}
    mixed = {"kind": "line", "series": [{"name": "", "x": ["Q1", 2, 3.5], "y": [1, 2, 3]}]}
    for spec in (labels, years, mixed):
        assert picture(render_chart(spec)).size == (800, 500)
    assert validate_spec(mixed)["series"][0]["x"] == ["Q1", "2", "3.5"]


# ------------------------------------------------------------ invalid specs
@pytest.mark.parametrize("spec, problem", [
    ({**BAR, "kind": "area"}, 'kind: must be one of bar, line, scatter, pie, hist; got "area"'),
    ({"kind": "bar"}, "series: expected a non-empty list of {name, x, y}, got null"),
    ({**BAR, "colour": "red"}, 'unknown keys "colour" (the keys are kind, title, x_label, y_label, series)'),
    ({**BAR, "title": 7}, "title: expected a string, got 7"),
    ({**BAR, "title": "x" * 201}, "title: at most 200 characters (got 201)"),
    ({**BAR, "title": "two\nlines"}, "title: must not hold control characters"),
    ({**BAR, "title": "bad \ud800"}, "title: must not hold control characters, newlines or invalid characters"),
    ({"kind": "line", "series": [{"x": [1, 2], "y": [1, "n/a"]}]},
     'series[0].y[1]: expected a finite number, got "n/a"'),
    ({"kind": "line", "series": [{"x": [1, 2], "y": [1, float("nan")]}]}, "series[0].y[1]: expected a finite number"),
    ({"kind": "line", "series": [{"x": [1, 2], "y": [True, 2]}]}, "series[0].y[0]: expected a finite number, got true"),
    ({"kind": "line", "series": [{"x": [1, 2], "y": [1e300, 2]}]}, "series[0].y[0]: expected a finite number"),
    ({"kind": "line", "series": [{"x": [1, 2, 3], "y": [1, 2]}]},
     "series[0]: x and y must have the same length (x has 3, y has 2)"),
    ({"kind": "scatter", "series": [{"x": ["a"], "y": [1]}]}, 'series[0].x[0]: expected a finite number, got "a"'),
    ({"kind": "pie", "series": [{"x": ["a"], "y": [1]}, {"x": ["b"], "y": [2]}]},
     "a pie has exactly one series (got 2)"),
    ({"kind": "pie", "series": [{"x": ["a", "b"], "y": [1, -2]}]}, "a pie's values must be >= 0 and not all 0"),
    ({"kind": "hist", "series": [{"x": [3, 1], "y": [1, 2]}]}, "a histogram's x is empty or the bin edges"),
    ({"kind": "hist", "series": [{"x": [], "y": []}]}, "a histogram needs the values to count"),
    ({"kind": "bar", "series": [{"x": ["a"], "y": [1]}, {"x": ["b"], "y": [1]}]}, "must have the same x"),
    ({"kind": "bar", "series": [{"x": ["a"], "y": [1], "z": [1]}]},
     'series[0]: unknown keys "z" (the keys are name, x, y)'),
    ({"kind": "bar", "series": [{"x": ["a"], "y": 5}]}, "series[0].y: expected a list, got 5"),
    ({"kind": "bar", "series": ["a"]}, 'series[0]: expected an object {name, x, y}, got "a"'),
    ({"kind": "line", "series": [{"x": list(range(10_001)), "y": list(range(10_001))}]}, "at most 10,000 values"),
    ({"kind": "line", "series": [{"x": [1], "y": [1]}] * 21}, "series: at most 20 series (got 21)"),
    ([1, 2], "expected an object, got [1, 2]"),
    ("{not json", "not valid JSON"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_an_invalid_spec_says_what_is_wrong_and_what_a_spec_is(spec, problem):
    with pytest.raises(ChartSpecError) as info:
        build_chart("wiki/assets/x.png", spec)
    message = str(info.value)
    assert problem in message and message.startswith("invalid chart spec: ")
    assert message.endswith(SPEC_HELP) and "\n" not in message
    assert info.value.exit_code == 2


def test_all_problems_are_listed_at_once():
    spec = {"kind": "line", "title": 1, "series": [{"x": [1, 2], "y": ["a", "b"]}]}
    message = str(pytest.raises(ChartSpecError, validate_spec, spec).value)
    assert "title: expected a string" in message and "y[0]" in message and "y[1]" in message


def test_a_spec_as_a_json_string_is_accepted():
    assert validate_spec(json.dumps(BAR)) == validate_spec(BAR)


# ------------------------------------------------------------ where charts go
@pytest.mark.parametrize("given, prefix, expected", [
    ("wiki/assets/loss.png", "wiki", "wiki/assets/loss.png"),
    ("assets/loss.png", "wiki", "wiki/assets/loss.png"),
    ("wiki/assets/2026/loss.png", "wiki", "wiki/assets/2026/loss.png"),
    ("assets/loss.png", "", "assets/loss.png"),
    ("notes/assets/loss.png", "notes", "notes/assets/loss.png"),
])
def test_chart_paths_under_the_wikis_assets(given, prefix, expected):
    assert check_chart_path(given, prefix) == expected
    assert sidecar_path(expected) == expected[:-4] + ".chart.json"


@pytest.mark.parametrize("bad", ["wiki/loss.png", "wiki/assets/loss.jpg", "wiki/assets/../loss.png",
                                 "/wiki/assets/loss.png", "raw/assets/loss.png", "wiki/assets/.hidden.png",
                                 "wiki\\assets\\loss.png", "", "wiki/assets/.png", "wiki/assets/x\x00.png",
                                 "C:/wiki/assets/x.png", "wiki/assets/loss.PNG.md", None])
def test_other_chart_paths_are_refused(bad):
    with pytest.raises(ChartSpecError, match="a chart path is wiki/assets/<name>.png"):
        build_chart(bad, BAR)


# ------------------------------------------------------------ properties
_label = st.text(st.characters(min_codepoint=32, exclude_categories=("Cs",)), max_size=20)
_series = st.integers(1, 6).flatmap(lambda n: st.fixed_dictionaries({
    "name": _label,
    "x": st.lists(st.integers(-1000, 1000), min_size=n, max_size=n),
    "y": st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=n, max_size=n),
}))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["line", "scatter"]), _label, st.lists(_series, min_size=1, max_size=4))
def test_a_valid_spec_survives_its_sidecar_unchanged(kind, title, series):
    normal = validate_spec({"kind": kind, "title": title, "series": series})
    assert validate_spec(spec_text(normal)) == normal
    assert validate_spec(normal) == normal


# ------------------------------------------------------------ bounded work (issue 20.5c)
def _bars(categories: int, series: int = 1) -> dict:
    labels = [f"c{i}" for i in range(categories)]
    return {"kind": "bar", "series": [{"name": f"s{j}", "x": labels, "y": list(range(categories))}
                                      for j in range(series)]}


@pytest.mark.parametrize("spec, problem", [
    (_bars(10_000), "a bar chart has at most 100 categories (got 10,000)"),
    (_bars(101), "a bar chart has at most 100 categories (got 101)"),
    (_bars(100, 5), "a bar chart has at most 400 bars, categories times series (got 500)"),
    ({"kind": "pie", "series": [{"x": [f"w{i}" for i in range(500)], "y": [1] * 500}]},
     "a pie has at most 100 categories (got 500)"),
    ({"kind": "line", "series": [{"x": [f"d{i}" for i in range(5000)], "y": list(range(5000))}]},
     "a line chart with text labels on x has at most 100 categories (got 5,000)"),
    ({"kind": "hist", "series": [{"x": list(range(10_000)), "y": [1, 2]}]}, "a histogram has at most 100 bins (got 9,999)"),
    ({"kind": "hist", "series": [{"x": list(range(51)), "y": [1, 2]}] * 10},
     "a histogram has at most 400 bars, bins times series (got 500)"),
])
def test_what_matplotlib_draws_one_by_one_is_capped_and_the_error_names_the_limit(spec, problem):
    with pytest.raises(ChartSpecError) as info:
        build_chart("wiki/assets/x.png", spec)
    assert problem in str(info.value) and str(info.value).endswith(SPEC_HELP)


def test_the_largest_charts_within_the_caps_are_drawn():
    assert render_chart(_bars(100, 4))[:8] == b"\x89PNG\r\n\x1a\n"
    assert render_chart({"kind": "line", "series": [{"x": [f"d{i}" for i in range(100)], "y": list(range(100))}]})


def test_a_histogram_matplotlib_would_give_millions_of_bins_gets_the_cap():
    from wikitui.core.outputs.charts import MAX_BINS, _auto_bins

    wide = [{"name": "", "x": [], "y": [0.0, 0.0, 0.0, 1.0, 1.0, 1.0] * 500 + [1e15]}]
    assert _auto_bins(wide) == MAX_BINS
    assert _auto_bins([{"name": "", "x": [], "y": [1.0, 2.0, 2.0, 3.0]}]) == "auto"  # matplotlib's own choice kept
    assert render_chart({"kind": "hist", "series": wide})[:4] == b"\x89PNG"
