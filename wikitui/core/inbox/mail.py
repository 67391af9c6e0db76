"""Mail: an ``.mbox`` file, an ``.eml`` message, a folder of them, or a Maildir (the standard library's
:mod:`mailbox` and :mod:`email`). Each message is an item; its address is ``mid:`` and its Message-ID.

A message is read with :data:`email.policy.default`; one that cannot be read (a broken
header, a body in no known encoding) is reported by its number and the others go on.
The text part is preferred; an HTML-only message is reduced to its text (trafilatura).
"""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import quote

from wikitui.core.inbox.item import InboxItem
from wikitui.core.inbox.pages import html_fragment_markdown

#: The most of one message's text kept.
MAX_BODY_CHARS = 500_000


def message_item(raw: bytes, origin: str, kind: str) -> InboxItem:
    """One message (its bytes) as an item.

    Raises:
        Exception: the message cannot be read (ValueError, LookupError...: the caller reports it).
    """
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    if not isinstance(msg, EmailMessage):  # (policy.default always makes one; this tells the type checker)
        raise TypeError("not a message")
    mid = str(msg.get("message-id", "") or "").strip().strip("<>").strip()
    return InboxItem(
        title=str(msg.get("subject", "") or ""), url=f"mid:{quote(mid, safe='@.!#$%&*+-/=?^_`{|}~')}" if mid else "",
        kind=kind, origin=origin, author=str(msg.get("from", "") or ""), date=_date(str(msg.get("date", "") or "")),
        body=_body(msg)[:MAX_BODY_CHARS],
    )


def _body(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    content = part.get_content()
    text = content if isinstance(content, str) else content.decode("utf-8", "replace")
    if part.get_content_subtype() == "html":
        return html_fragment_markdown(text)
    return text


def _date(value: str) -> str:
    try:
        return parsedate_to_datetime(value).date().isoformat() if value else ""
    except (TypeError, ValueError, IndexError, OverflowError):
        return ""


def mbox_messages(path: Path) -> Iterator[bytes]:
    """The bytes of each message of an mbox file, in order."""
    import mailbox

    box = mailbox.mbox(path, create=False)
    try:
        for key in box.keys():
            yield box.get_bytes(key)
    finally:
        box.close()


def maildir_messages(path: Path) -> Iterator[bytes]:
    """The bytes of each message of a Maildir (``cur/`` and ``new/``), oldest name first."""
    import mailbox

    box = mailbox.Maildir(path, factory=None, create=False)
    for key in sorted(box.keys()):
        yield box.get_bytes(key)


def read_messages(messages: Iterator[bytes], origin: Path, kind: str, problems: list[str]) -> list[InboxItem]:
    """The items of ``messages``; a message that cannot be read is one line in ``problems``."""
    items = []
    for number, raw in enumerate(messages, 1):
        try:
            items.append(message_item(raw, str(origin), kind))
        except Exception as exc:  # noqa: BLE001 - a message is data: one that breaks the parser is skipped, said
            problems.append(f"{origin.name}: message {number} could not be read ({type(exc).__name__}); skipped")
    return items
