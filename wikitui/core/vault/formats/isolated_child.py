"""The child side of :mod:`wikitui.core.vault.formats.isolated`: convert files, write each result as a frame.

``python -m wikitui.core.vault.formats.isolated_child`` reads one request per line on
stdin (``{"path": ..., "kind": ...}``) until stdin closes; ``... isolated_child PATH
KIND`` converts that one file. Each result is a *frame* on stdout: one short JSON
line (the :class:`~wikitui.core.vault.formats.conversion.Conversion`'s fields and the
text's length in bytes), then the text as UTF-8. The parent reads the text in
chunks and never JSON-decodes it: a JSON decode of megabytes is one long C call
that would hold the parent's interpreter lock (and freeze the workspace's frames).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def frame(conversion) -> bytes:
    """The frame of one conversion: its JSON header line, then its text."""
    body = conversion.text.encode("utf-8", "replace")
    head = conversion.as_dict() | {"length": len(body)}
    return json.dumps(head, ensure_ascii=True).encode("ascii") + b"\n" + body


def _convert(path: Path, kind: str):
    from wikitui.core.vault.formats.conversion import failed
    from wikitui.core.vault.formats.dispatch import convert_file

    try:
        return convert_file(path, kind)
    except MemoryError:
        why = "ran out of memory"
    except Exception as exc:  # noqa: BLE001 - a converter's bug: one line, and the next file still converts
        why = type(exc).__name__
    return failed(kind, f"{path.name} could not be converted (the converter stopped: {why})", cacheable=False)


def _die_with_parent() -> None:
    """Be killed when the parent dies (Linux): a build killed mid-way leaves no conversion running on.

    The index's child converts through this child; when the app stops the index's
    child (it quits), a file hanging its parser here would otherwise go on forever.
    The kernel's signal reaches a parser looping inside C code too, where a thread
    polling for the parent could not run.
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    from wikitui.core.vault.formats.isolated import PARENT_ENV

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError, ctypes.ArgumentError):
        return
    if os.environ.get(PARENT_ENV) not in (None, str(os.getppid())):
        os._exit(1)  # the parent died before the signal was asked for


def main(argv: list[str]) -> int:
    """Convert ``argv[0]`` as kind ``argv[1]``, or (no arguments) each file requested on stdin."""
    try:  # background work, like the index's child: the workspace's keys and frames get the CPU first
        os.nice(10)
    except (AttributeError, OSError):
        pass
    _die_with_parent()
    # Frames go to the real stdout; anything a parser prints (Python or C) goes to stderr instead.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if argv:
        out.write(frame(_convert(Path(argv[0]), argv[1])))
        out.flush()
        return 0
    for line in sys.stdin:
        try:
            request = json.loads(line)
            path, kind = Path(request["path"]), str(request["kind"])
        except (ValueError, KeyError, TypeError):
            return 2  # not our parent speaking
        out.write(frame(_convert(path, kind)))
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
