"""The child side of :mod:`wikitui.core.vault.formats.isolated`: convert one file, print the result as JSON.

``python -m wikitui.core.vault.formats.isolated_child PATH KIND``
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Convert ``argv[0]`` as kind ``argv[1]``; the conversion goes to stdout as one JSON object."""
    try:  # background work, like the index's child: the workspace's keys and frames get the CPU first
        os.nice(10)
    except (AttributeError, OSError):
        pass
    from wikitui.core.vault.formats.dispatch import convert_file

    conv = convert_file(Path(argv[0]), argv[1])
    data = conv.as_dict() | {"text": conv.text}
    sys.stdout.write(json.dumps(data, ensure_ascii=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
