"""Conversions in a child process with a time limit: the index build's (one child for the run) and the viewer's.

A file that hangs its parser costs its time limit, is indexed by its name and its
one line, and the build goes on with the others; the line is noted for the user.
The parent reads a conversion's text in chunks and never JSON-decodes it (a decode
of megabytes holds the interpreter lock, and the workspace's frames wait for it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from tests.core import formats_samples as samples
from wikitui import cli
from wikitui.core.base.faults import HANG_CONVERTING_ENV
from wikitui.core.search.facade import SearchIndex
from wikitui.core.vault.formats import dispatch, isolated
from wikitui.core.vault.layout import Vault

#: Seconds the tests give the hanging file's conversion: it costs this much, each time.
LIMIT = 1
#: Seconds the tests give every other file's: a cold child's start (the interpreter, pypdf's import, at
#: nice 10) takes seconds on a loaded machine, and must never be what stops it.
GENEROUS = 120


@pytest.fixture
def sources(sample_vault, monkeypatch):
    """The sample vault with a PDF that converts, one whose converter hangs, and a CSV.

    The hanging file (``stuck.pdf``) gets :data:`LIMIT` seconds, the others :data:`GENEROUS`:
    one limit for both would make a hanging file cost as long as a cold start may take.
    """
    raw = sample_vault / "raw"
    samples.make_pdf(raw / "good.pdf", ("Zanzibar glaciers retreat quickly", "Second page"))
    samples.make_pdf(raw / "stuck.pdf", ("Quokka words never indexed",))
    (raw / "table.csv").write_text("station,melt\nXylophone Ridge,4.2\n", encoding="utf-8")
    monkeypatch.setenv(HANG_CONVERTING_ENV, "stuck.pdf")
    real_convert = isolated.Converter.convert

    def convert(self, path, kind=None):
        self.timeout = LIMIT if os.path.basename(path) == "stuck.pdf" else GENEROUS
        return real_convert(self, path, kind)

    monkeypatch.setattr(isolated.Converter, "convert", convert)
    return sample_vault


def paths(index: SearchIndex, query: str) -> list[str]:
    return [hit.path for hit in index.search(query, limit=50)]


def test_a_full_build_stops_a_source_that_hangs_its_converter_and_indexes_the_others(sources):
    stopped = f"stuck.pdf took longer than {LIMIT} s to convert; it was stopped"
    with SearchIndex(Vault.open(sources)) as index:
        stats = index.rebuild()
        assert stats.notes == [stopped]
        assert paths(index, "zanzibar") == ["raw/good.pdf"]
        assert paths(index, "xylophone") == ["raw/table.csv"]
        assert paths(index, "quokka") == []  # its words were never read...
        assert "raw/stuck.pdf" in paths(index, "stuck")  # ...it is found by its name and its line
        assert paths(index, "caucus")  # the sample's pages are indexed as ever


def test_wikitui_index_notes_the_stopped_file_in_one_line_and_finishes(sources, capsys):
    code = cli.main(["--vault", str(sources), "index"])
    out, err = capsys.readouterr()
    assert code == 0
    assert err == f"wikitui: note: stuck.pdf took longer than {LIMIT} s to convert; it was stopped\n"
    assert out.startswith("Search index")


def test_the_watchers_update_of_a_hanging_source_is_bounded_too(sources):
    with SearchIndex(Vault.open(sources)) as index:
        index.update()
        (sources / "raw" / "stuck.pdf").write_bytes((sources / "raw" / "stuck.pdf").read_bytes() + b"\n")
        stats = index.update_paths(["raw/stuck.pdf"])
        assert stats.notes == [f"stuck.pdf took longer than {LIMIT} s to convert; it was stopped"]
        assert paths(index, "zanzibar") == ["raw/good.pdf"]


def test_one_child_converts_a_run_of_files_and_a_fresh_one_follows_a_stopped_file(sources, monkeypatch):
    starts = []
    real_popen = subprocess.Popen

    def counting(*args, **kwargs):
        proc = real_popen(*args, **kwargs)
        starts.append(proc.pid)
        return proc

    monkeypatch.setattr(isolated.subprocess, "Popen", counting)
    raw = sources / "raw"
    with isolated.Converter() as converter:
        first = converter.convert(raw / "good.pdf")
        second = converter.convert(raw / "table.csv")
        assert first.ok and "Zanzibar" in first.text and "Xylophone Ridge" in second.text
        assert len(starts) == 1  # the process start and pypdf's import are paid once
        stuck = converter.convert(raw / "stuck.pdf")
        assert stuck.error == f"stuck.pdf took longer than {LIMIT} s to convert; it was stopped"
        assert stuck.cacheable is False
        again = converter.convert(raw / "good.pdf")
        assert again == first and len(starts) == 2
    assert converter.stopped == [stuck.error]
    for pid in starts:  # every child is gone: reaped, none left converting
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_the_parent_reads_the_text_in_chunks_and_never_json_decodes_it(tmp_path, monkeypatch):
    src = tmp_path / "field-notes.txt"
    row = "Zürich glacier station: 4.2 m, thinning fast, with a long note\n"
    src.write_text(row * 55_000, encoding="utf-8")  # ~3.5 MB of text
    decoded, reads = [], []
    real_loads, real_read = json.loads, os.read

    def loads(data, *args, **kwargs):
        decoded.append(len(data))
        return real_loads(data, *args, **kwargs)

    def read(fd, size):
        data = real_read(fd, size)
        reads.append((size, len(data)))
        return data

    monkeypatch.setattr(json, "loads", loads)
    monkeypatch.setattr(os, "read", read)
    conversion = isolated.convert_isolated(src)
    monkeypatch.undo()
    assert conversion == dispatch.convert_file(src)
    text_bytes = len(conversion.text.encode("utf-8"))
    assert text_bytes > 3_000_000 and "Zürich glacier station" in conversion.text
    assert max(decoded) < 1_000  # only the frame's short header line
    assert max(size for size, _ in reads) <= isolated.READ_CHUNK
    assert sum(got for _, got in reads) > text_bytes and len(reads) >= text_bytes // isolated.READ_CHUNK


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_conversion_child_does_not_outlive_its_killed_parent(sources):
    """The app kills the index's child when it quits: a file hanging the converter must not run on alone."""
    script = (
        "import sys, threading, time\n"
        "from wikitui.core.vault.formats.isolated import Converter\n"
        "converter = Converter(timeout=3600)\n"
        f"threading.Thread(target=converter.convert, args=[{str(sources / 'raw' / 'stuck.pdf')!r}]).start()\n"
        "while converter._proc is None:\n"
        "    time.sleep(0.01)\n"
        "print(converter._proc.pid, flush=True)\n"
        "time.sleep(3600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        assert alive(child)  # converting the hanging file
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 30
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_parser_that_prints_cannot_corrupt_the_answer(tmp_path):
    """Frames go to the child's real stdout; what a library prints there goes to stderr instead."""
    src = tmp_path / "note.csv"
    src.write_text("a,b\n1,2\n", encoding="utf-8")
    code = (
        "import os\n"
        "from wikitui.core.vault.formats import dispatch, isolated_child\n"
        "real = dispatch.convert_file\n"
        "def chatty(path, kind):\n"
        "    print('progress: 50%', flush=True)\n"
        "    os.write(1, b'a C library writing to fd 1\\n')\n"
        "    return real(path, kind)\n"
        "dispatch.convert_file = chatty\n"
        f"isolated_child.main([{str(src)!r}, 'csv'])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    head, _, text = proc.stdout.partition(b"\n")
    assert json.loads(head)["length"] == len(text) and text == b"a,b\n1,2\n"
    assert b"progress: 50%" in proc.stderr and b"a C library writing to fd 1" in proc.stderr
