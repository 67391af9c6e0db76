"""Chat transcripts: one JSON-lines file per session under ``.wikitui/sessions/``.

Every record is appended (written and closed) as it happens, so a killed process
loses nothing it reported; :meth:`Transcript.sync` fsyncs at the end of each tool
round and turn, so even an OS crash loses at most one round. A torn last line is
skipped on reload. Every line is
scrubbed of API keys before it is written: a key in a provider's error text or
pasted into the chat never reaches the disk.

Records (``type``):

* ``meta``: the session's id, creation time and model (first line, written with the first record);
* ``message``: one chat message of turn ``turn`` (OpenAI format);
* ``turn``: a turn's end: op, title, state (done, cancelled, failed, awaiting_go),
  usage and the changeset id;
* ``event``: a note worth restoring for the reader, where it happened: ``error`` (the
  line of a failed turn), or ``kind`` and ``text`` (``cancelled``, ``cut``, ``pending``,
  ``tools``: see :class:`~wikitui.core.agent.events.Notice`), or ``changeset``: what the
  card of the changeset the turn proposed shows (:func:`card_summary`).

A user message's ``description`` is what the user typed for it (``/go``,
``/ingest raw/x.md``), shown by a restored chat instead of the text sent to the model.

A lone surrogate (from a model's hostile output) is written as U+FFFD: every line is valid UTF-8.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from wikitui.core.agent.argcheck import encodable
from wikitui.core.agent.context import Entry, Turn, TurnUsageTotals
from wikitui.core.config.settings import Settings, scrub


def new_session_id(now: _dt.datetime | None = None) -> str:
    """A sortable, unique session id (``20261130-142501-a1b2``)."""
    now = now or _dt.datetime.now()
    return f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


@dataclass(slots=True)
class SessionInfo:
    """A saved session: id, file, last change and the first thing the user asked."""

    id: str
    path: Path
    mtime: float
    first_prompt: str


class Transcript:
    """The append-only file of one session.

    Args:
        folder: The sessions folder (``.wikitui/sessions``).
        session_id: The session's id (a new one when None).
        settings: Used to know which secrets to scrub.
    """

    def __init__(self, folder: Path, session_id: str | None = None, settings: Settings | None = None) -> None:
        self.folder = Path(folder)
        self.id = session_id or new_session_id()
        self.settings = settings
        self.path = self.folder / f"{self.id}.jsonl"
        # Written with the first real record: a session that never chats leaves no file behind.
        self._meta: dict | None = {"type": "meta", "id": self.id, "model": settings.model if settings else None,
                                   "created": _dt.datetime.now().isoformat(timespec="seconds")}

    def append(self, record: dict, *, sync: bool = False) -> None:
        """Append one record (handed to the OS at once; fsynced too with ``sync``).

        A failing disk is not fatal to the chat: the record is dropped.
        """
        line = encodable(scrub(json.dumps(record, ensure_ascii=False, default=str), self.settings))
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                if self._meta is not None:  # first append of this process
                    if fh.tell() == 0:
                        fh.write(json.dumps(self._meta, ensure_ascii=False) + "\n")
                    elif not self._ends_with_newline():
                        fh.write("\n")  # close a line torn by a kill, so this record stands alone
                    self._meta = None
                fh.write(line + "\n")
                if sync:
                    fh.flush()
                    os.fsync(fh.fileno())
        except OSError:
            pass

    def _ends_with_newline(self) -> bool:
        with self.path.open("rb") as fh:
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) == b"\n"

    def add_message(self, turn: Turn, message: dict, *, description: str | None = None,
                    prompt: str | None = None) -> None:
        """Record one message of ``turn`` (``prompt``: the user's own words, on the turn's first message)."""
        record: dict = {"type": "message", "turn": turn.number, "op": turn.op, "message": message}
        if description:
            record["description"] = description
        if prompt is not None:
            record["prompt"] = prompt
            if turn.source:
                record["source"] = turn.source
        self.append(record)

    def record_turn(self, turn: Turn) -> None:
        """Record where ``turn`` stands (its state, usage and changeset), durably."""
        self.append({"type": "turn", "turn": turn.number, "op": turn.op, "prompt": turn.prompt,
                     "source": turn.source, "state": turn.state, "usage": turn.usage.as_dict(),
                     "changeset": turn.changeset_id}, sync=True)

    def sync(self) -> None:
        """fsync what was appended (a few ms: called once per round, not per message)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)

    def records(self) -> list[dict]:
        """Every intact record, in order (a torn or foreign line is skipped)."""
        try:
            text = self.path.read_text("utf-8", errors="replace")
        except OSError:
            return []
        out = []
        for line in text.splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(rec, dict):
                out.append(rec)
        return out

    # ------------------------------------------------------------- discovery
    @staticmethod
    def list_sessions(folder: Path) -> list[SessionInfo]:
        """Saved sessions, most recent first."""
        out = []
        for path in Path(folder).glob("*.jsonl"):
            first = ""
            try:
                with path.open(encoding="utf-8", errors="replace") as fh:
                    for line in fh:
                        try:
                            rec = json.loads(line)
                        except json.JSONDecodeError:
                            continue
                        msg = rec.get("message") if isinstance(rec, dict) else None
                        if isinstance(msg, dict) and msg.get("role") == "user":
                            first = str(rec.get("description") or rec.get("prompt") or msg.get("content") or "")[:120]
                            break
                out.append(SessionInfo(path.stem, path, path.stat().st_mtime, first))
            except OSError:
                continue
        out.sort(key=lambda s: (s.mtime, s.id), reverse=True)
        return out

    @classmethod
    def latest_id(cls, folder: Path) -> str | None:
        """The id of the most recent session, or None."""
        sessions = cls.list_sessions(folder)
        return sessions[0].id if sessions else None


def turns_from_records(records: list[dict]) -> list[Turn]:
    """The turns a transcript describes (a turn cut off by a crash is ``interrupted``)."""
    by_number: dict[int, Turn] = {}
    for rec in records:
        kind, number = rec.get("type"), rec.get("turn")
        if not isinstance(number, int):
            continue
        turn = by_number.get(number)
        if turn is None:
            turn = by_number[number] = Turn(number, str(rec.get("op") or "ask"), str(rec.get("prompt") or ""),
                                            state="interrupted")
        if kind == "message" and isinstance(rec.get("message"), dict):
            turn.entries.append(Entry(rec["message"], rec.get("description")))
            if rec.get("prompt") is not None:
                turn.prompt = str(rec["prompt"])
                turn.source = rec.get("source") or turn.source
        elif kind == "event":
            if isinstance(rec.get("changeset"), dict):
                turn.card = rec["changeset"]
            elif isinstance(rec.get("error"), str):
                turn.notes.append((len(turn.entries), "error", rec["error"]))
            elif isinstance(rec.get("text"), str):
                turn.notes.append((len(turn.entries), str(rec.get("kind") or "note"), rec["text"]))
        elif kind == "turn":
            turn.state = str(rec.get("state") or "done")
            turn.source = rec.get("source") or turn.source
            turn.changeset_id = rec.get("changeset")
            usage = rec.get("usage") or {}
            try:
                turn.usage = TurnUsageTotals(int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0)),
                                             float(usage.get("cost", 0.0)), int(usage.get("requests", 0)))
            except (TypeError, ValueError, AttributeError):
                pass  # a hand-edited record: the counts are lost, not the chat
    turns = [by_number[n] for n in sorted(by_number)]
    for turn in turns:
        turn.answer = turn.final_answer()
    return turns


def card_summary(changeset) -> dict:
    """What a chat's card shows of a changeset: id, op, title and per file its action and lines added and removed."""
    files = []
    for fc in changeset.files:
        files.append({"path": fc.path, "action": fc.action, "new_path": fc.new_path,
                      "added": sum(h.added for h in fc.hunks), "removed": sum(h.removed for h in fc.hunks)})
    return {"id": changeset.id, "op": changeset.op, "title": changeset.title, "files": files}


class _Lines:
    """A hunk's size, as a card counts it."""

    __slots__ = ("added", "removed")

    def __init__(self, added: int, removed: int) -> None:
        self.added, self.removed = added, removed


class CardFile:
    """One file of a :class:`CardChangeset` (``path``, ``action``, ``new_path``, one ``hunks`` entry of its size)."""

    __slots__ = ("path", "action", "new_path", "hunks")

    def __init__(self, data: dict) -> None:
        self.path = str(data.get("path") or "?")
        self.action = str(data.get("action") or "edit")
        self.new_path = data.get("new_path") if isinstance(data.get("new_path"), str) else None
        try:
            self.hunks = [_Lines(int(data.get("added") or 0), int(data.get("removed") or 0))]
        except (TypeError, ValueError):
            self.hunks = [_Lines(0, 0)]


class CardChangeset:
    """A changeset no longer pending (applied, undone, discarded), as its card in a restored chat shows it.

    Built from a :func:`card_summary`; has what a card reads (``id``, ``op``, ``title``, ``files``).
    """

    def __init__(self, summary: dict) -> None:
        self.id = str(summary.get("id") or "?")
        self.op = str(summary.get("op") or "")
        self.title = str(summary.get("title") or "")
        raw = summary.get("files")
        self.files = [CardFile(f) for f in raw if isinstance(f, dict)] if isinstance(raw, list) else []


def chat_log(turns: list[Turn]) -> list[tuple[str, str]]:
    """(kind, text) pairs a chat pane shows for these turns.

    kind is user, assistant or tool, or a note's kind (error, cancelled, cut, pending,
    tools) placed where the note was made, or ``changeset`` (text: its id) at the end
    of the turn that proposed it. A user message shows what the user typed for it
    (``/go``, ``/ingest raw/x.md``) when that was recorded.
    """
    out: list[tuple[str, str]] = []
    for turn in turns:
        notes = sorted(turn.notes, key=lambda n: n[0])
        for i, e in enumerate(turn.entries):
            while notes and notes[0][0] <= i:
                out.append(notes.pop(0)[1:])
            role = e.message.get("role")
            content = e.message.get("content") or ""
            if isinstance(content, list):  # content parts (a message of pictures): its first text
                content = next((p.get("text", "") for p in content if isinstance(p, dict)), "")
            content = str(content)
            if role == "user" and not content.startswith("[wikitui:"):
                out.append(("user", e.description or (turn.prompt if e is turn.entries[0] else content)))
            elif role == "assistant" and content:
                out.append(("assistant", content))
            elif role == "tool" and e.description:
                out.append(("tool", e.description))
        out += [n[1:] for n in notes]
        if turn.changeset_id:
            out.append(("changeset", str(turn.changeset_id)))
    return out
