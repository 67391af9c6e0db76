"""Run the ``wikitui`` command line in this process: ``wikitui.cli.main(argv)`` with its output captured.

A real ``wikitui`` process costs a second or more (the interpreter, then litellm's and
Textual's imports), so tests call the command in process and keep one real-process
smoke test per command (``real_wikitui``). Both return a :class:`subprocess.CompletedProcess`
(``returncode``, ``stdout``, ``stderr`` as text), so a test reads the same either way.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from wikitui import cli

#: The console script of the interpreter running the tests.
WIKITUI = Path(sys.executable).parent / "wikitui"


def run_wikitui(argv: Sequence[str], *, cwd: Path | str | None = None) -> subprocess.CompletedProcess:
    """``wikitui ARGV`` in process (in ``cwd`` if given): its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        try:
            code = cli.main(list(argv))
        except SystemExit as exc:  # main() returns its status; a stray exit still reads as one
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return subprocess.CompletedProcess(list(argv), code, out.getvalue(), err.getvalue())


def real_wikitui(argv: Sequence[str], *, cwd: Path | str | None = None,
                 timeout: float = 300) -> subprocess.CompletedProcess:
    """``wikitui ARGV`` as a real process of the console script (the smoke test of a command)."""
    return subprocess.run([str(WIKITUI), *argv], capture_output=True, text=True, timeout=timeout, cwd=cwd)
