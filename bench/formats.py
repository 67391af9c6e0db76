"""Benchmark sources in and outputs out (issue 12's targets): prints JSON figures; asserts nothing.

Run ``.venv/bin/python bench/formats.py`` (a minute or two; files are generated in a
temp folder). Figures, each with its target:

- converting a generated 300-page PDF: time and peak memory of a fresh process
  (target: peak <= 200 MB), and a second read through the cache (target <= 20 ms);
- a 50 MB file of each kind (PDF, HTML, CSV, JSON, JSON Lines, text, PNG, DOCX),
  converted in a fresh process: time, peak memory, and the note that bounds it;
- a chart rendered after matplotlib is imported (target <= 300 ms), per kind.

Each conversion runs in its own process so that its peak memory is its own. The
machine may be shared: the load average is printed with the figures, and a figure
taken on a loaded machine is noisy.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import loadavg, median, ms  # noqa: E402

MB = 1024 * 1024
WORDS = ("glacier ice retreat melt summer winter snow survey volume station altitude measurement "
         "network report loss thinning fragment tongue valley climate record decade").split()

# Imports done before the clock starts, so a figure is the conversion, not the library's import.
_PREIMPORT = {"pdf": "import pypdf", "html": "import trafilatura", "image": "import PIL.Image",
              "docx": "import markitdown", "csv": "", "json": "", "jsonl": "", "text": ""}
# Peak memory from /proc's VmHWM: unlike getrusage's ru_maxrss, it is not inherited across fork and exec.
_CHILD = """
import json, re, sys, time
from pathlib import Path
{preimport}
from wikitui.core.vault.formats import convert_file
def hwm():
    with open("/proc/self/status") as fh:
        return int(re.search(r"VmHWM:\\s+(\\d+)", fh.read()).group(1)) / 1024
base = hwm()
start = time.perf_counter()
conv = convert_file(Path(sys.argv[1]))
seconds = time.perf_counter() - start
peak = hwm()
print(json.dumps({{"seconds": seconds, "peak_mb": peak, "before_mb": base, "ok": conv.ok,
                   "error": conv.error, "notes": list(conv.notes), "chars": len(conv.text), "pages": conv.pages}}))
"""


def sentence(rng: random.Random, n: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def convert_in_child(path: Path, kind: str) -> dict:
    code = _CHILD.format(preimport=_PREIMPORT.get(kind, ""))
    proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=900,
                          cwd=Path(__file__).resolve().parent.parent)
    if proc.returncode != 0:
        return {"failed": proc.stderr.strip().splitlines()[-1:]}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"ms": ms(out["seconds"]), "peak_mb": round(out["peak_mb"], 1), "before_mb": round(out["before_mb"], 1),
            "ok": out["ok"], "error": out["error"], "notes": out["notes"], "chars": out["chars"],
            "pages": out["pages"], "file_mb": round(path.stat().st_size / MB, 1)}


# ------------------------------------------------------------ generated files
def make_text_pdf(path: Path, pages: int, rng: random.Random) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=10)
    for n in range(1, pages + 1):
        pdf.add_page()
        pdf.multi_cell(0, 5, f"Chapter {n}\n" + " ".join(sentence(rng) for _ in range(30)))
    pdf.output(str(path))
    return path


def noise_png(path: Path, side: int) -> Path:
    from PIL import Image

    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(path, compress_level=1)
    return path


def make_big_pdf(path: Path, folder: Path, rng: random.Random) -> Path:
    """~50 MB: text pages around a large scanned-like picture (what a big real PDF mostly holds)."""
    from fpdf import FPDF

    picture = noise_png(folder / "noise-pdf.png", 4000)
    pdf = FPDF()
    pdf.set_font("helvetica", size=10)
    for n in range(1, 41):
        pdf.add_page()
        if n == 20:
            pdf.image(str(picture), x=0, y=0, w=210)
        else:
            pdf.multi_cell(0, 5, " ".join(sentence(rng) for _ in range(30)))
    pdf.output(str(path))
    return path


def write_until(path: Path, size: int, line) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        written = 0
        i = 0
        while written < size:
            text = line(i)
            fh.write(text)
            written += len(text)
            i += 1
    return path


def make_big_files(folder: Path, rng: random.Random) -> dict[str, tuple[Path, str]]:
    size = 50 * MB
    para = [f"<p>{sentence(rng, 40)}</p>\n" for _ in range(200)]
    files = {
        "pdf": (make_big_pdf(folder / "big.pdf", folder, rng), "pdf"),
        "html": (write_until(folder / "big.html", size, lambda i: (
            "<html><body><article><h1>Survey</h1>\n" if i == 0 else para[i % 200])), "html"),
        "csv": (write_until(folder / "big.csv", size, lambda i: (
            "id,glacier,loss,altitude\n" if i == 0 else f"{i},glacier-{i % 977},{i % 61 / 10},{1500 + i % 2000}\n")),
            "csv"),
        "json": (write_until(folder / "big.json", size, lambda i: (
            "[" if i == 0 else f'{{"id": {i}, "text": "{sentence(rng, 8)}"}},\n')), "json"),
        "jsonl": (write_until(folder / "big.jsonl", size, lambda i: json.dumps({"id": i, "v": i * 7}) + "\n"), "jsonl"),
        "text": (write_until(folder / "big.txt", size, lambda i: sentence(rng) + "\n"), "text"),
        "image": (noise_png(folder / "big.png", 4096), "image"),
    }
    try:
        import docx

        doc = docx.Document()
        doc.add_heading("Survey with photographs", 0)
        for _ in range(50):
            doc.add_paragraph(sentence(rng, 30))
        doc.add_picture(str(noise_png(folder / "noise-docx.png", 4000)))
        doc.save(str(folder / "big.docx"))
        files["docx"] = (folder / "big.docx", "docx")
    except ImportError:
        pass
    return files


# ------------------------------------------------------------ the figures
def bench_pdf(folder: Path) -> dict:
    from wikitui.core.vault.formats import source_text
    from wikitui.core.vault.layout import Vault

    rng = random.Random(7)
    root = folder / "vault"
    (root / "raw").mkdir(parents=True)
    (root / ".wikitui").mkdir()
    pdf = make_text_pdf(root / "raw" / "book.pdf", 300, rng)
    first = convert_in_child(pdf, "pdf")
    vault = Vault.open(root)
    source_text(vault, "raw/book.pdf")  # converts and stores
    reads = []
    for _ in range(20):
        start = time.perf_counter()
        conv = source_text(vault, "raw/book.pdf")
        reads.append(time.perf_counter() - start)
    return {"file_mb": round(pdf.stat().st_size / MB, 2), "convert": first, "cached_read_ms_median": ms(median(reads)),
            "cached_read_ms_max": ms(max(reads)), "cached_chars": len(conv.text),
            "targets": {"peak_mb": 200, "cached_read_ms": 20}}


def bench_charts() -> dict:
    from wikitui.core.outputs.charts import render_chart

    start = time.perf_counter()
    import matplotlib.figure  # noqa: F401 - the import the app does once, in a worker

    imported = time.perf_counter() - start
    rng = random.Random(3)
    xs = list(range(2000, 2030))
    specs = {
        "bar": {"kind": "bar", "title": "Loss", "series": [{"name": n, "x": ["A", "B", "C", "D", "E"],
                                                             "y": [rng.random() for _ in range(5)]} for n in "xy"]},
        "line": {"kind": "line", "title": "Trend", "series": [{"name": "m", "x": xs, "y": [rng.random() for _ in xs]}]},
        "scatter": {"kind": "scatter", "series": [{"name": "", "x": [rng.random() for _ in range(500)],
                                                   "y": [rng.random() for _ in range(500)]}]},
        "pie": {"kind": "pie", "series": [{"name": "", "x": ["a", "b", "c"], "y": [3, 2, 1]}]},
        "hist": {"kind": "hist", "series": [{"name": "", "x": [], "y": [rng.gauss(0, 1) for _ in range(2000)]}]},
    }
    render_chart(specs["bar"])  # the first render loads fonts
    out = {"matplotlib_import_ms": ms(imported), "target_ms": 300}
    for kind, spec in specs.items():
        times = []
        for _ in range(5):
            start = time.perf_counter()
            render_chart(spec)
            times.append(time.perf_counter() - start)
        out[f"{kind}_ms_median"] = ms(median(times))
    out.update(bench_chart_proposal(specs["line"]))
    return out


def bench_chart_proposal(spec: dict) -> dict:
    """propose_chart end to end (spec checked, drawn, both files in the changeset, pending JSON), and the
    review's preview scaling the picture (in a worker there)."""
    import json as _json

    from wikitui.core.agent.tools import ToolBox
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.changes.pending import PendingStore
    from wikitui.core.vault.create import init_vault
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault
    from wikitui.ui.widgets.chart_preview import half_block_strips

    with tempfile.TemporaryDirectory(prefix="wikitui-bench-chart-") as tmp:
        init_vault(Path(tmp) / "v")
        vault = Vault.open(Path(tmp) / "v")
        graph = LinkGraph.load(vault)
        proposals, previews = [], []
        for _ in range(5):
            builder = ChangesetBuilder(vault, graph)
            start = time.perf_counter()
            ToolBox(vault, graph, builder=builder).call(
                "propose_chart", _json.dumps({"path": "assets/b.png", "spec": spec, "reason": "bench"}))
            changeset = builder.build("query", "bench")
            PendingStore.encode(changeset)
            proposals.append(time.perf_counter() - start)
            png = changeset.files[0].new_text.encode("utf-8", "surrogateescape")
            start = time.perf_counter()
            half_block_strips(png, 100, 22)
            previews.append(time.perf_counter() - start)
    return {"propose_chart_ms_median": ms(median(proposals)), "preview_scale_ms_median": ms(median(previews))}


def main() -> None:
    report: dict = {"loadavg_before": loadavg()}
    with tempfile.TemporaryDirectory(prefix="wikitui-bench-formats-") as tmp:
        folder = Path(tmp)
        report["pdf_300_pages"] = bench_pdf(folder)
        big = {}
        for kind, (path, conv_kind) in make_big_files(folder, random.Random(11)).items():
            big[kind] = convert_in_child(path, conv_kind)
        report["files_50mb"] = big
    report["charts"] = bench_charts()
    report["loadavg_after"] = loadavg()
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
