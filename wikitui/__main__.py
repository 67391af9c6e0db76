"""``python -m wikitui``: the same as the ``wikitui`` command."""

from wikitui.cli import main

raise SystemExit(main())
