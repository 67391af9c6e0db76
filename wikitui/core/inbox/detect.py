"""Which export a file or a folder is, from what it holds (the extension only breaks ties), and its items.

| what | how it is known |
| :- | :- |
| browser bookmarks, Raindrop HTML | ``<!DOCTYPE NETSCAPE-Bookmark-file-1>`` |
| Pocket / Instapaper HTML | their export's ``<title>`` |
| Pocket, Instapaper, Raindrop, Readwise CSV | the header row (:mod:`~wikitui.core.inbox.tables`) |
| ``.mbox`` | a first line ``From …``, then headers |
| ``.eml`` | a message's headers (``From:`` with ``Subject:``, ``Date:`` or ``Message-ID:``) |
| Maildir | a folder with ``cur/`` and ``new/`` |
| Slack | a folder with ``channels.json``/``users.json`` and channel folders of days; or one day's file |
| Discord | DiscordChatExporter's JSON (``channel`` and ``messages``) |
| ``.vtt`` / ``.srt`` | ``WEBVTT`` / a numbered cue with its timing line |

A folder that is none of the folder kinds is read file by file; a file in it that is no
known export is named in one line, and the others are read.
"""

from __future__ import annotations

import re
from pathlib import Path

from wikitui.core.inbox import bookmarks, chat, mail, tables, transcripts
from wikitui.core.inbox.item import InboxError, InboxItem
from wikitui.core.vault.files import decode_text, is_binary

#: The largest text export (HTML, CSV, a transcript, one message) read.
MAX_TEXT_BYTES = 100 * 1024 * 1024
#: The formats named when a file is none of them.
KNOWN = ("browser bookmarks HTML, Pocket/Instapaper/Readwise/Raindrop exports, .mbox/.eml mail or a Maildir, "
         "a Slack or Discord export's JSON, .vtt/.srt transcripts")
_HEADER = re.compile(rb"^[A-Za-z][A-Za-z0-9-]*:[ \t]", re.MULTILINE)
_MBOX_FROM = re.compile(rb"^From \S+")


def sniff(path: Path) -> str | None:
    """The kind of the export file at ``path`` (``bookmarks``, ``pocket-html``, ``pocket``, ``mbox``, ``vtt``...),
    or None."""
    with open(path, "rb") as fh:
        head = fh.read(64 * 1024)
    if not head.strip() or is_binary(head):
        return None
    if _MBOX_FROM.match(head) and _has_headers(head.split(b"\n", 1)[-1]):
        return "mbox"
    if _has_headers(head):
        return "eml"
    text = decode_text(head)[0]
    lower = text.lower()
    if transcripts.looks_like_vtt(text):
        return "vtt"
    if transcripts.looks_like_srt(text):
        return "srt"
    if "<!doctype netscape-bookmark-file" in lower:
        return "bookmarks"
    if "<title>pocket export</title>" in lower:
        return "pocket-html"
    if "<title>instapaper: export</title>" in lower:
        return "instapaper-html"
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped[:1] in ("[", "{"):
        return "json"
    return tables.header_kind(text)


def _has_headers(head: bytes) -> bool:
    block = re.split(rb"\r?\n\r?\n", head, maxsplit=1)[0]
    names = {m.group(0).split(b":", 1)[0].lower() for m in _HEADER.finditer(block)}
    first = block.split(b"\n", 1)[0]
    return bool(_HEADER.match(first)) and b"from" in names and bool(names & {b"subject", b"date", b"message-id"})


def read_export(path: Path, problems: list[str]) -> tuple[str, list[InboxItem]]:
    """The kind of the export at ``path`` (a file or a folder) and its items.

    Raises:
        InboxError: no such file, or nothing in it is a known export (one line; nothing was written).
    """
    path = Path(path).expanduser()
    if path.is_dir():
        return _read_folder(path, problems)
    if not path.is_file():
        raise InboxError(f"no such file or folder: {path}")
    kind = sniff(path)
    items = _read_file(path, kind, problems) if kind else None
    if items is None and _is_zip(path):
        raise InboxError(f"{path.name} is a zip archive: unzip it and import the folder (a Slack export is read as "
                         "its folder); nothing was written")
    if items is None:
        raise InboxError(f"{path.name} is not an export wikitui knows ({KNOWN}); nothing was written")
    return kind or "", items


def _is_zip(path: Path) -> bool:
    import zipfile

    try:
        return zipfile.is_zipfile(path)
    except OSError:
        return False


def _read_folder(path: Path, problems: list[str]) -> tuple[str, list[InboxItem]]:
    if chat.is_slack_folder(path):
        return "slack", chat.slack_folder_items(path, problems)
    if (path / "cur").is_dir() and (path / "new").is_dir():
        return "maildir", mail.read_messages(mail.maildir_messages(path), path, "maildir", problems)
    items: list[InboxItem] = []
    kinds: list[str] = []
    unknown: list[str] = []
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        if any(part.startswith(".") for part in file.relative_to(path).parts):
            continue
        try:
            kind = sniff(file)
            found = _read_file(file, kind, problems) if kind else None
        except InboxError as exc:
            problems.append(str(exc))
            continue
        except OSError as exc:
            problems.append(f"{file.name}: cannot be read ({exc.strerror or exc})")
            continue
        if found is None:
            unknown.append(str(file.relative_to(path)))
            continue
        kinds.append(kind or "")
        items.extend(found)
    if not kinds:
        raise InboxError(f"{path.name}/ holds no export wikitui knows ({KNOWN}); nothing was written")
    if unknown:
        shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        problems.append(f"not a known export, skipped: {shown}")
    return "+".join(dict.fromkeys(kinds)), items


def _read_file(path: Path, kind: str | None, problems: list[str]) -> list[InboxItem] | None:
    """The items of ``path`` read as ``kind``; None when it is not that kind after all."""
    if kind == "mbox":
        return mail.read_messages(mail.mbox_messages(path), path, "mbox", problems)
    if path.stat().st_size > MAX_TEXT_BYTES:
        raise InboxError(f"{path.name} is larger than the {MAX_TEXT_BYTES // (1024 * 1024)} MB an export may be")
    if kind == "eml":
        return mail.read_messages(iter([path.read_bytes()]), path, "eml", problems)
    if kind == "json":
        data = chat.load_json(path)
        if chat.is_discord(data) and isinstance(data, dict):
            return chat.discord_items(data, path)
        if chat.is_slack_day(data) and isinstance(data, list):
            item = chat.slack_day_item(data, path.parent.name, path, chat.slack_users(path.parent.parent))
            return [item] if item is not None else []
        return None
    text = decode_text(path.read_bytes())[0]
    if kind in ("vtt", "srt"):
        item = transcripts.transcript_item(path, text, kind)
        return [item] if item is not None else []
    if kind in ("bookmarks", "pocket-html", "instapaper-html"):
        return bookmarks.read_bookmarks(text, str(path), kind.removesuffix("-html"))
    if kind is not None:
        return tables.read_table(text, path, kind)
    return None
