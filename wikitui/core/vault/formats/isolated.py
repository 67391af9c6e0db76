"""Converting a source in a child process, with a time limit.

Parsers of PDFs and Office files are large, and a hostile or broken file can send
one into a loop; a thread cannot be stopped, a process can. :func:`convert_isolated`
runs :func:`dispatch.convert_file` in a fresh interpreter (``python -m
wikitui.core.vault.formats.isolated_child PATH KIND``) and kills it past ``timeout``. It costs a
process start and the format library's import (a fraction of a second to ~2 s), so
it suits a conversion that is cached afterwards.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from wikitui.core.vault.formats.conversion import Conversion, failed
from wikitui.core.vault.formats.kinds import kind_of

#: Seconds a conversion may take in the child.
TIMEOUT = 120.0


def convert_isolated(path: Path | str, kind: str | None = None, *, timeout: float = TIMEOUT) -> Conversion:
    """Convert ``path`` in a child process; a timeout or a crash is one line (never cached)."""
    path = Path(path)
    kind = kind or kind_of(path) or "text"
    try:
        proc = subprocess.run([sys.executable, "-m", "wikitui.core.vault.formats.isolated_child", str(path), kind],
                              capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return failed(kind, f"{path.name} took longer than {timeout:g} s to convert; it was stopped",
                      cacheable=False)
    except OSError as exc:
        return failed(kind, f"{path.name} could not be converted ({exc.strerror or exc})", cacheable=False)
    try:
        data = json.loads(proc.stdout.decode("utf-8"))
        return Conversion(data["kind"], data["text"], error=data["error"], title=data["title"],
                          pages=data["pages"], notes=data["notes"], cacheable=data["cacheable"])
    except (ValueError, KeyError, TypeError):
        why = "ran out of memory" if b"MemoryError" in proc.stderr else f"exit status {proc.returncode}"
        return failed(kind, f"{path.name} could not be converted (the converter stopped: {why})", cacheable=False)
