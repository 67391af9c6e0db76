"""What the inbox brought in already: ``.wikitui/inbox-seen.json``, by address and by content hash.

An item is new when neither its address (:func:`~wikitui.core.inbox.item.url_key`) nor
the hash of its text (:func:`~wikitui.core.inbox.item.item_key`) is in the ledger. The
ledger is written atomically (:meth:`SeenLedger.flush`, every few seconds of a run and at
its end), merged with what is on disk at that moment, so a background run and a command
run at the same time both keep their items. An item written but not yet recorded when a
run is killed is still known next time by the ``source_url`` of its file in raw/.
A ledger that cannot be read is set aside (renamed ``.bad``) and started afresh, with a
warning: an unreadable file never stops the inbox.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from wikitui.core.inbox.item import url_key
from wikitui.core.vault.files import atomic_write

LEDGER_NAME = "inbox-seen.json"


class SeenLedger:
    """The addresses and content hashes of the items brought in, each with the file it became.

    Args:
        state_dir: The vault's ``.wikitui/`` folder.
    """

    def __init__(self, state_dir: Path) -> None:
        self.path = Path(state_dir) / LEDGER_NAME
        #: Problems met reading the ledger (shown once, never fatal).
        self.warnings: list[str] = []
        self.urls, self.hashes = self._load()
        self._dirty = False

    def _load(self) -> tuple[dict[str, str], dict[str, str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}, {}
        except (OSError, ValueError) as exc:
            return self._set_aside(f"cannot be read ({type(exc).__name__})")
        if not isinstance(data, dict) or not isinstance(data.get("urls"), dict) \
                or not isinstance(data.get("hashes"), dict):
            return self._set_aside("is not an inbox ledger")
        urls = {str(k): str(v) for k, v in data["urls"].items()}
        hashes = {str(k): str(v) for k, v in data["hashes"].items()}
        return urls, hashes

    def _set_aside(self, why: str) -> tuple[dict[str, str], dict[str, str]]:
        try:
            os.replace(self.path, self.path.with_suffix(".json.bad"))
        except OSError:
            pass
        self.warnings.append(f".wikitui/{LEDGER_NAME} {why}: set aside as {LEDGER_NAME}.bad; started afresh "
                             "(what is in raw/inbox/ is still known by its source_url)")
        return {}, {}

    def seen(self, *, url: str = "", content: str = "") -> str | None:
        """The file an item with this address (first) or this content hash became, or None: it is new."""
        key = url_key(url)
        if key and key in self.urls:
            return self.urls[key]
        if content and content in self.hashes:
            return self.hashes[content]
        return None

    def seen_url(self, url: str) -> str | None:
        """The file an item with this address became, or None."""
        return self.seen(url=url)

    def add(self, path: str, *, urls: tuple[str, ...] = (), content: str = "") -> None:
        """Remember that the item with these addresses and this content hash became ``path`` (saved by
        :meth:`flush`)."""
        for url in urls:
            key = url_key(url)
            if key:
                self.urls[key] = path
        if content:
            self.hashes[content] = path
        self._dirty = True

    def flush(self) -> None:
        """Write what was added since the last flush (nothing when nothing was)."""
        if self._dirty:
            self._save()
            self._dirty = False

    def _save(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                for name, mine in (("urls", self.urls), ("hashes", self.hashes)):
                    theirs = data.get(name)
                    if isinstance(theirs, dict):
                        for k, v in theirs.items():
                            mine.setdefault(str(k), str(v))
        except (OSError, ValueError):
            pass
        text = json.dumps({"version": 1, "urls": self.urls, "hashes": self.hashes}, ensure_ascii=False, indent=1,
                          sort_keys=True)
        atomic_write(self.path, text + "\n")
