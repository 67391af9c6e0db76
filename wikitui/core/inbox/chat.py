"""Chat exports: a Slack workspace export and a DiscordChatExporter JSON file; a channel's day is one item.

Slack exports a folder (or that folder zipped, unzipped first by the user) holding
``channels.json``, ``users.json`` and one folder per channel of ``YYYY-MM-DD.json`` files,
each a list of messages; the day's file is the item's identity. Slack's markup
(``<@U123>``, ``<https://x|label>``, ``<#C1|general>``) is made readable. Discord's
exporter writes one file per channel, ``{"guild", "channel", "messages": [...]}``; the
messages are grouped by their day, and the item's address is the day's first message.
Both are JSON read with :mod:`json`; anything of the wrong shape is skipped, never trusted.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from pathlib import Path

from wikitui.core.inbox.item import InboxError, InboxItem

#: The largest JSON file read.
MAX_JSON_BYTES = 100 * 1024 * 1024
_DAY_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}\.json$")
_SLACK_LINK = re.compile(r"<([^<>|]*)(?:\|([^<>]*))?>")


def _dict(value: object) -> dict:
    """``value`` when it is a JSON object, else {} (an export's fields are never trusted to have their shape)."""
    return value if isinstance(value, dict) else {}


def load_json(path: Path) -> object:
    """The JSON in ``path``.

    Raises:
        InboxError: too large, or not JSON.
    """
    if path.stat().st_size > MAX_JSON_BYTES:
        raise InboxError(f"{path.name} is larger than the {MAX_JSON_BYTES // (1024 * 1024)} MB a JSON export may be")
    try:
        return json.loads(path.read_bytes().decode("utf-8-sig", "replace"))
    except ValueError as exc:
        raise InboxError(f"{path.name} is not valid JSON ({exc}); nothing was written") from None
    except RecursionError:
        raise InboxError(f"{path.name} is nested too deeply to be an export; nothing was written") from None


def is_slack_day(data: object) -> bool:
    """Whether ``data`` is a Slack day file: a list of messages with ``ts`` and ``type: message``."""
    return isinstance(data, list) and bool(data) and all(isinstance(m, dict) for m in data) \
        and any(m.get("type") == "message" and "ts" in m for m in data)


def is_discord(data: object) -> bool:
    """Whether ``data`` is a DiscordChatExporter file."""
    return isinstance(data, dict) and isinstance(data.get("channel"), dict) and isinstance(data.get("messages"), list)


def is_slack_folder(path: Path) -> bool:
    """Whether ``path`` is a Slack export's folder (``channels.json`` or ``users.json`` beside channel folders)."""
    return path.is_dir() and ((path / "channels.json").is_file() or (path / "users.json").is_file()) \
        and any(child.is_dir() and any(_DAY_FILE.match(f.name) for f in child.iterdir()) for child in path.iterdir())


def slack_users(root: Path) -> dict[str, str]:
    """User id → the name shown, from ``users.json`` ({} when absent or of the wrong shape)."""
    try:
        data = load_json(root / "users.json")
    except (InboxError, OSError):
        return {}
    names = {}
    for user in data if isinstance(data, list) else []:
        if isinstance(user, dict) and isinstance(user.get("id"), str):
            profile = _dict(user.get("profile"))
            names[user["id"]] = str(user.get("real_name") or profile.get("real_name") or user.get("name") or user["id"])
    return names


def slack_folder_items(root: Path, problems: list[str]) -> list[InboxItem]:
    """Every channel-day of a Slack export folder."""
    users = slack_users(root)
    items = []
    for channel in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for day in sorted(f for f in channel.iterdir() if _DAY_FILE.match(f.name)):
            try:
                data = load_json(day)
            except (InboxError, OSError) as exc:
                problems.append(f"{channel.name}/{day.name}: {exc}")
                continue
            if isinstance(data, list):
                item = slack_day_item(data, channel.name, day, users)
                if item is not None:
                    items.append(item)
    return items


def slack_day_item(messages: list, channel: str, day: Path, users: dict[str, str]) -> InboxItem | None:
    """One Slack channel's day (the messages of one ``YYYY-MM-DD.json``), or None when it says nothing."""
    lines, people = [], []
    for msg in messages:
        if not isinstance(msg, dict) or msg.get("type") != "message":
            continue
        text = slack_text(str(msg.get("text") or ""), users)
        if not text.strip():
            continue
        profile = _dict(msg.get("user_profile"))
        who = str(profile.get("real_name") or users.get(str(msg.get("user") or ""), "") or msg.get("username")
                  or msg.get("user") or "someone")
        if who not in people:
            people.append(who)
        lines.append(f"**{who}** ({_clock(msg.get('ts'))}): {text.strip()}")
    if not lines:
        return None
    date = day.stem
    return InboxItem(title=f"#{channel} on {date}", url=day.resolve().as_uri(), kind="slack", origin=str(day),
                     author=", ".join(people[:5]) + (" and others" if len(people) > 5 else ""), date=date,
                     body="\n\n".join(lines))


def slack_text(text: str, users: dict[str, str]) -> str:
    """Slack's message markup as markdown."""
    def link(m: re.Match) -> str:
        target, label = m.group(1), m.group(2)
        if target.startswith("@"):
            return "@" + (label or users.get(target[1:], target[1:]))
        if target.startswith("#"):
            return "#" + (label or target[1:])
        if target.startswith("!"):
            return "@" + (label or target[1:].split("^")[0])
        return f"[{label}]({target})" if label else target

    text = _SLACK_LINK.sub(link, text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _clock(ts: object) -> str:
    try:
        return _dt.datetime.fromtimestamp(float(str(ts)), _dt.timezone.utc).strftime("%H:%M")
    except (TypeError, ValueError, OverflowError, OSError):
        return "--:--"


def discord_items(data: dict, origin: Path) -> list[InboxItem]:
    """A DiscordChatExporter file's messages, one item per day."""
    guild = _dict(data.get("guild"))
    channel = _dict(data.get("channel"))
    name = str(channel.get("name") or channel.get("id") or "channel")
    days: dict[str, list[dict]] = {}
    for msg in data.get("messages") or []:
        if isinstance(msg, dict) and isinstance(msg.get("timestamp"), str) and len(msg["timestamp"]) >= 10:
            days.setdefault(msg["timestamp"][:10], []).append(msg)
    items = []
    for date, messages in sorted(days.items()):
        lines, people = [], []
        for msg in messages:
            author = _dict(msg.get("author"))
            who = str(author.get("nickname") or author.get("name") or "someone")
            text = str(msg.get("content") or "")
            files = [a for a in msg.get("attachments") or [] if isinstance(a, dict) and a.get("url")]
            text += "".join(f"\n[{a.get('fileName') or 'attachment'}]({a['url']})" for a in files)
            if not text.strip():
                continue
            if who not in people:
                people.append(who)
            lines.append(f"**{who}** ({msg['timestamp'][11:16]}): {text.strip()}")
        if not lines:
            continue
        first = messages[0]
        url = (f"https://discord.com/channels/{guild.get('id')}/{channel.get('id')}/{first.get('id')}"
               if guild.get("id") and channel.get("id") and first.get("id") else f"{origin.resolve().as_uri()}#{date}")
        where = f"#{name}" + (f" ({guild['name']})" if guild.get("name") else "")
        items.append(InboxItem(title=f"{where} on {date}", url=url, kind="discord", origin=str(origin),
                               author=", ".join(people[:5]) + (" and others" if len(people) > 5 else ""), date=date,
                               body="\n\n".join(lines)))
    return items
