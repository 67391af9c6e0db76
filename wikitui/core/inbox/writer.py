"""An inbox item as a clipped source in ``raw/inbox/``, through clip's writer (which never replaces a file).

The file is ``raw/inbox/<slug>.md``: the slug is made from the title (else the
address), and a taken name gets a number (``slug-2.md``), so each is unique there.
Its frontmatter holds ``title``, ``source_url``, ``author``, ``date`` and ``clipped``,
as a ``wikitui clip`` does, plus ``inbox`` (what it came from) and ``tags``.
"""

from __future__ import annotations

import datetime as _dt

from wikitui.core.inbox.item import InboxItem
from wikitui.core.vault.formats.clip import add_to_raw, slugify
from wikitui.core.vault.formats.conversion import clean_text

#: The folder of raw/ the inbox adds to.
INBOX_FOLDER = "inbox"
#: The longest title kept (a title is a line, not a paragraph).
MAX_TITLE = 200


def one_line(text: str, limit: int = MAX_TITLE) -> str:
    """``text`` as one clean line of at most ``limit`` characters."""
    line = " ".join(clean_text(text).split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def item_title(item: InboxItem) -> str:
    """The item's title, else the first words of its body, else its address."""
    title = one_line(item.title)
    if title:
        return title
    for line in item.body.splitlines():
        words = one_line(line.lstrip("#>*- "), 80)
        if words:
            return words
    return one_line(item.url) or "untitled"


def item_markdown(item: InboxItem, today: _dt.date) -> str:
    """The text of the source file: frontmatter, then ``# title`` and the body."""
    import yaml

    title = item_title(item)
    meta: dict[str, object] = {
        "title": title,
        "source_url": clean_text(item.url).strip(),
        "author": one_line(item.author),
        "date": one_line(item.date, 40),
        "clipped": today,
        "inbox": item.kind,
    }
    tags = [one_line(t, 60) for t in item.tags if one_line(t, 60)]
    if tags:
        meta["tags"] = tags
    head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=10_000, default_flow_style=False)
    body = clean_text(item.body).strip("\n")
    if not body.lstrip().startswith("# "):
        body = f"# {title}\n\n{body}" if body else f"# {title}\n"
    return f"---\n{head}---\n\n{body.rstrip()}\n"


def write_item(vault, item: InboxItem, today: _dt.date) -> str:
    """Add ``item`` to ``raw/inbox/`` as a new file; returns its vault-relative path."""
    text = item_markdown(item, today)
    stem = slugify(item_title(item), fallback="item")
    return add_to_raw(vault, stem, ".md", lambda fh: fh.write(text.encode("utf-8")), under=INBOX_FOLDER)
