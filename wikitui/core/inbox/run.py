"""A run of the inbox: the configured feeds (:func:`fetch_feeds`) or one export (:func:`import_export`).

Each item is checked against the ledger by its address before anything is fetched
for it, its page fetched when the feed or the export holds only a summary (a page
that cannot be fetched leaves the item with what it had, and a line saying so), then
checked again by the address it redirected to and by its text's hash, and written.
A feed that cannot be fetched or read is one line in the report; the other feeds go
on. Every fetch has its total deadline; ``budget_s`` bounds the whole run (the items
not reached are left, unrecorded, for the next run).
"""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from wikitui.core.inbox.feeds import FEED_TOTAL_S, FeedError, fetch_feed, parse_feed
from wikitui.core.inbox.item import InboxItem, item_key, url_key
from wikitui.core.inbox.ledger import SeenLedger
from wikitui.core.inbox.pages import PAGE_TOTAL_S, fetch_article
from wikitui.core.inbox.writer import write_item
from wikitui.core.vault.formats.clip import clipped_sources
from wikitui.core.vault.formats.html import Article


#: Seconds between two writes of the ledger during a run (it is written at the run's end too).
SAVE_EVERY_S = 2.0
#: Pages fetched at once (an export of a thousand bookmarks is mostly waiting on the network).
PAGE_WORKERS = 4
#: Items looked at per round of fetches (the run's deadline and cancel are checked between rounds).
CHUNK = 8


@dataclass
class _Page:
    """What fetching an item's page gave: where it came from and its article, or why it failed."""

    final: str
    article: Article | None
    failed: str


@dataclass
class AddedItem:
    """One file the inbox added.

    Attributes:
        path: Vault-relative (``raw/inbox/glacier-retreat.md``).
        title: The item's title as written.
        url: Its ``source_url``.
        kind: What it came from (``rss``, ``pocket``, ``slack``...).
    """

    path: str
    title: str
    url: str
    kind: str


@dataclass
class InboxReport:
    """What a run brought in, what it skipped and what went wrong.

    Attributes:
        added: The new files, in order.
        skipped: Items already brought in before (by address or by content).
        problems: One line per feed, page or message that failed (the rest went on).
        left: Items not reached before ``budget_s`` ran out (they come in at the next run).
        kinds: What was read (``rss``, ``atom``, ``bookmarks``...).
    """

    added: list[AddedItem] = field(default_factory=list)
    skipped: int = 0
    problems: list[str] = field(default_factory=list)
    left: int = 0
    kinds: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        """The report as JSON-ready data (``wikitui inbox --json``)."""
        return asdict(self)

    def summary(self) -> str:
        """One line: how many came in, were skipped, failed."""
        from wikitui.core.base.words import plural

        bits = [f"{plural(len(self.added), 'new item')} in raw/inbox/"]
        if self.skipped:
            bits.append(f"{self.skipped} already in")
        if self.left:
            bits.append(f"{self.left} left for the next run")
        if self.problems:
            bits.append(plural(len(self.problems), "problem"))
        return ", ".join(bits)


class _Intake:
    """Brings items in one by one, against the ledger."""

    def __init__(self, vault, report: InboxReport, *, today: _dt.date, page_total: float, fetch_pages: bool,
                 deadline: float | None, cancel: Callable[[], bool] | None,
                 progress: Callable[[int, int], None] | None = None) -> None:
        self.vault, self.report, self.today = vault, report, today
        self.progress = progress
        self.page_total, self.fetch_pages = page_total, fetch_pages
        self.deadline, self.cancel = deadline, cancel
        self.ledger = SeenLedger(vault.state_dir)
        report.problems.extend(self.ledger.warnings)
        #: The addresses of what is in raw/ already (a `wikitui clip`, a note with a ``source_url``).
        self.in_raw = {url_key(url) for url, _rel in clipped_sources(vault) if url_key(url)}

    def out_of_time(self) -> bool:
        return (self.deadline is not None and time.monotonic() >= self.deadline) or bool(self.cancel and self.cancel())

    def take(self, items: Iterable[InboxItem]) -> None:
        """Bring ``items`` in, in order; their pages are fetched :data:`PAGE_WORKERS` at a time."""
        from concurrent.futures import ThreadPoolExecutor

        items = list(items)
        saved = time.monotonic()
        try:
            with ThreadPoolExecutor(max_workers=PAGE_WORKERS, thread_name_prefix="inbox-page") as pool:
                for start in range(0, len(items), CHUNK):
                    if self.out_of_time():
                        self.report.left += sum(1 for i in items[start:] if not (i.url and self._known(i.url)))
                        return
                    chunk = items[start:start + CHUNK]
                    need = [i for i in chunk if i.fetch_page and self.fetch_pages and not self._known(i.url)]
                    pages = dict(zip(map(id, need), pool.map(self._fetch, need)))
                    for n, item in enumerate(chunk, start + 1):
                        self.take_one(item, pages.get(id(item)))
                        if time.monotonic() - saved >= SAVE_EVERY_S:
                            self.ledger.flush()
                            saved = time.monotonic()
                        if self.progress is not None:
                            self.progress(n, len(items))
        finally:
            self.ledger.flush()

    def take_one(self, item: InboxItem, page: _Page | None = None) -> None:
        """Bring one item in (``page``: its page, fetched already), unless it is known."""
        if item.url and self._known(item.url):
            self.report.skipped += 1
            return
        urls: tuple[str, ...] = (item.url,)
        if item.fetch_page and self.fetch_pages:
            final = self._fill(item, page if page is not None else self._fetch(item))
            if final and final != item.url:
                if self._known(final):
                    self.report.skipped += 1
                    return
                urls = (item.url, final)
        content = item_key(item.title, item.body)
        if self.ledger.seen(content=content) is not None:
            self.report.skipped += 1
            return
        path = write_item(self.vault, item, self.today)
        self.ledger.add(path, urls=urls, content=content)
        self.report.added.append(AddedItem(path=path, title=item.title, url=item.url, kind=item.kind))

    def _known(self, url: str) -> bool:
        """Whether an item with this address came in before, or is in raw/ by another way."""
        return bool(url) and (self.ledger.seen(url=url) is not None or url_key(url) in self.in_raw)

    def _fetch(self, item: InboxItem) -> _Page:
        """The page at the item's address (in a pool thread: it touches nothing but the network)."""
        from wikitui.core.base.errors import WikituiError

        try:
            final, article = fetch_article(item.url, total=self.page_total)
        except WikituiError as exc:
            return _Page(final="", article=None, failed=str(exc).removesuffix("; nothing was written"))
        return _Page(final=final, article=article, failed="")

    def _fill(self, item: InboxItem, page: _Page) -> str:
        """Fill ``item`` from its page's article; the address the page came from ("" when not fetched)."""
        from wikitui.core.vault.formats.fetch import shown

        if page.failed:
            self.report.problems.append(f"{page.failed}: \"{item.title or shown(item.url)}\" keeps the "
                                        f"{item.kind}'s own text")
            return ""
        article = page.article
        if article is not None and len(article.markdown.split()) > len(item.body.split()):
            item.body = article.markdown
        if article is not None:
            item.title = item.title or article.title
            item.author = item.author or article.author
            item.date = item.date or article.date
        return page.final


def fetch_feeds(vault, feeds: list[str], *, today: _dt.date | None = None, feed_total: float = FEED_TOTAL_S,
                page_total: float = PAGE_TOTAL_S, fetch_pages: bool = True, budget_s: float | None = None,
                cancel: Callable[[], bool] | None = None) -> InboxReport:
    """Bring the new entries of each feed into ``raw/inbox/``.

    Args:
        vault: The vault.
        feeds: The feeds' addresses (``[inbox] feeds``).
        today: The ``clipped`` date (default: today).
        feed_total: Seconds one feed may take, all of it.
        page_total: Seconds one entry's page may take, all of it.
        fetch_pages: Fetch the page of an entry that holds only a summary.
        budget_s: Seconds the whole run may take (None: no bound beyond each fetch's).
        cancel: Asked between items; True stops the run (the rest is left for the next).
    """
    report = InboxReport()
    deadline = time.monotonic() + budget_s if budget_s is not None else None
    intake = _Intake(vault, report, today=today or _dt.date.today(), page_total=page_total, fetch_pages=fetch_pages,
                     deadline=deadline, cancel=cancel)
    for url in feeds:
        if intake.out_of_time():
            report.problems.append(f"feed {url} was not reached this run")
            continue
        try:
            final, data = fetch_feed(url, total=feed_total)
            kind, items = parse_feed(data, final)
        except FeedError as exc:
            report.problems.append(str(exc))
            continue
        report.kinds.append(kind)
        intake.take(items)
    return report


def import_export(vault, source: Path | str, *, today: _dt.date | None = None, page_total: float = PAGE_TOTAL_S,
                  fetch_pages: bool = True, budget_s: float | None = None,
                  cancel: Callable[[], bool] | None = None,
                  progress: Callable[[int, int], None] | None = None) -> InboxReport:
    """Bring the items of an export file or folder into ``raw/inbox/`` (see :mod:`~wikitui.core.inbox.detect`).

    ``progress(done, total)`` is told after each item (an export may hold thousands of links to fetch); the
    other arguments are :func:`fetch_feeds`'s.

    Raises:
        InboxError: not an export wikitui knows, or no such file (one line; nothing was written).
    """
    from wikitui.core.inbox.detect import read_export

    report = InboxReport()
    kind, items = read_export(Path(source), report.problems)
    report.kinds.append(kind)
    deadline = time.monotonic() + budget_s if budget_s is not None else None
    _Intake(vault, report, today=today or _dt.date.today(), page_total=page_total, fetch_pages=fetch_pages,
            deadline=deadline, cancel=cancel, progress=progress).take(items)
    return report
