"""What the chat shows as notes: errors with a hint, session notices, lint reports, token lines, applies and undos.

Pure formatting into Textual ``Content`` (no widgets): the
:class:`~wikitui.ui.chat.controller.ChatController` and the chat pane add the
results to the log, live and when a conversation is restored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.content import Content

from wikitui.core.agent.events import Notice
from wikitui.core.base.words import plural
from wikitui.core.vault.visible_text import visible_line

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.ui.widgets.chat_log import NoteKind


def _tokens(n: int) -> str:
    """``1234`` → ``1.2k``."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


def _cost(dollars: float) -> str:
    """``0.0027`` → ``$0.0027``; ``0`` → ``$0``; ``1.5`` → ``$1.50``."""
    if not dollars:
        return "$0"
    return f"${dollars:.2f}" if dollars >= 0.1 else f"${dollars:.2g}"


def usage_line(label: str, sent: int, received: int, cost: float) -> list[Any]:
    """One footer line: ``turn     15.9k → 450 tok · $0.0027``."""
    return ["\n", (f"{label:<8}", "$text-muted"), f"{_tokens(sent)} → {_tokens(received)}",
            (" tok · ", "$text-muted"), _cost(cost)]


def error_hint(message: str) -> str:
    """What to do about an agent error, in a few words (the message says what went wrong)."""
    low = message.lower()
    if "api key" in low:
        return "Set the key in the environment and restart wikitui, or /model NAME to use another model."
    if "rate limited" in low:
        return "Nothing was changed; up recalls your message to send it again."
    if "request_timeout_s" in low:
        return ("Up recalls your message to send it again; request_timeout_s and max_output_tokens in "
                ".wikitui/config.toml set the limits.")
    if "cannot reach" in low or "did not answer" in low:
        return "Nothing was changed. Check the network or the server; up recalls your message to send it again."
    if "context window" in low:
        return "" if "context_tokens" in low or "/clear" in low else "/clear starts a new conversation."
    if "not a chat completion" in low:
        return "Nothing was changed. Check api_base / WIKITUI_API_BASE."
    if "unknown model" in low:
        return "/model NAME switches to another model for this session."
    if "busy" in low:
        return ""
    return "Nothing was changed; browsing, search and lint still work."


def sentence(message: str) -> str:
    """``message`` with its first letter capitalised when its first word is a plain word.

    A message that starts with an address (``http://127.0.0.1:8080/v1 failed…``), a model
    name (``openai/gpt-4o did not answer…``) or a path keeps it as written: ``Http://`` is
    no address.
    """
    first = message.split(None, 1)[0] if message.strip() else ""
    if first and first.replace("'", "").isalpha() and first[0].islower():
        return message[:1].upper() + message[1:]
    return message


def error_note(message: str) -> Content:
    """An agent error as a chat note: ``✗`` and the message, then what to do about it."""
    hint = error_hint(message)
    return Content.assemble(("✗ ", "bold $text-error"), sentence(message),
                            *((("\n" + hint, "$text-muted"),) if hint else ()))


def notice_note(notice: Notice) -> tuple[str | Content, NoteKind]:
    """(text, note kind) for a session's notice: progress quietly; a cut answer, a model without tools and
    kept proposals marked."""
    if notice.kind == "cancelled":
        return "Cancelled.", "error"
    if notice.kind == "cut":
        return Content.assemble(("✂ ", "bold $text-warning"), notice.text), "error"
    if notice.kind == "tools":
        return Content.assemble(("⚠ ", "bold $text-warning"), notice.text), "error"
    if notice.kind == "unsourced":  # quiet: the answer is there, this only says what it rests on
        return Content.styled(notice.text, "$text-muted"), "note"
    if notice.kind == "pending":
        return Content.assemble(("Kept: ", "bold"), notice.text), "plan"
    return notice.text, "note"


def lint_note(report: Any) -> tuple[str | Content, NoteKind]:
    """(text, note kind) for a deterministic lint report: the counts and the first problems."""
    problems = list(getattr(report, "problems", []) or [])
    if not problems:
        return "Lint: no problems found.", "success"
    counts = getattr(report, "counts", {}) or {}
    parts: list[Any] = [("Lint  ", "bold"), ", ".join(f"{n} {check}" for check, n in sorted(counts.items()))]
    for p in problems[:8]:
        where = p.path + (f":{p.line}" if p.line else "")
        parts += ["\n", (f"{p.check} ", "$text-warning"), (where, "$text-muted"), f" {p.message}"]
    if len(problems) > 8:
        parts.append((f"\n… and {len(problems) - 8} more (wikitui lint lists them all)", "$text-muted"))
    return Content.assemble(*parts), "plan"


# ------------------------------------------------------------- applies and undos
def conflict_note(conflict: Any) -> Content:
    """A conflict that stopped an apply or an undo: nothing was written."""
    return Content.assemble(("Not applied: conflict\n", "bold $text-error"), str(conflict),
                            ("\nYour edit on disk is kept. ctrl+r to review again (reject that hunk), "
                             "or ask the agent to redo it.", "$text-muted"))


def applied_note(result: Any, rejected: int) -> Content:
    """What an apply wrote: hunks, files, what stays pending, merges and warnings."""
    applied = len(result.applied)
    paths = [*result.written, *result.deleted]
    hunks = plural(applied, "hunk")
    parts: list[Any] = [(f"✓ Applied {hunks}", "bold $text-success") if applied else ("Nothing applied", "bold")]
    if paths:
        parts += [" to ", ", ".join(paths)]
    if rejected:
        parts += [(f" · {rejected} rejected", "$text-muted")]
    if result.remaining is not None:
        parts += [(f" · {len(result.remaining.hunk_ids())} still pending (ctrl+r)", "$text-warning")]
    if applied:
        parts += [("\n/undo reverts it.", "$text-muted")]
    if result.merged:
        parts += [("\nMerged with your edits in " + ", ".join(result.merged), "$text-muted")]
    for warning in result.warnings:
        parts += [("\n⚠ " + warning, "$text-warning")]
    for refusal in getattr(result, "refused", []):
        parts += [("\n⛔ " + refusal, "$text-error")]
    return Content.assemble(*parts)


def undone_note(result: Any) -> Content:
    """What an undo restored."""
    paths = [*result.written, *result.deleted]
    return Content.assemble((f"↶ Undid {result.changeset_id}", "bold $text-success"),
                            f": restored {', '.join(paths) or 'nothing (already as before)'}")


def unresolved_links(result: Any) -> tuple[Content, str] | None:
    """(note, command to ask the agent) about links an apply or undo left unresolved; None when there are none."""
    links = list(getattr(result, "unresolved_links", []) or [])
    if not links:
        return None
    shown = [f"[[{link.target}]] in {page}" for page, link in links[:6]]
    more = f" and {len(links) - 6} more" if len(links) > 6 else ""
    ask = "/ask Mend the unresolved links: " + "; ".join(shown) + more
    note = Content.assemble(
        (f"{plural(len(links), 'link')} left unresolved: ", "bold $text-warning"),
        "; ".join(shown) + more, ("\nAsk the agent to mend them: the command is in the input, enter sends it.",
                                  "$text-muted"))
    return note, ask


def review_feedback(changeset: Any, decision: Any) -> str:
    """The review's reasons as a message to the agent."""
    lines = [f"Review of changeset {changeset.id}: {plural(len(decision.accepted), 'hunk')} accepted, "
             f"{len(decision.rejected)} rejected. My reasons:"]
    for key, reason in decision.reasons.items():
        try:
            header = changeset.hunk(key).header
            where = f"{changeset.file_of(key).path} {header.split(' @@')[0] + ' @@' if header.startswith('@@') else header}"
            verdict = "accepted" if key in decision.accepted else "rejected" if key in decision.rejected else "undecided"
        except (KeyError, IndexError):
            where, verdict = key, ""  # a reason about a whole file: keyed by its path
        lines.append(f"- {where}{f' ({verdict})' if verdict else ''}: {reason}")
    return "\n".join(lines)


def sources_note(done: Any, rejected: int) -> Content:
    """What accepting proposed web sources did: each clipped file, each failure, the ingest queue."""
    parts: list[Any] = [("Sources  ", "bold"),
                        f"{len(done.clipped)} clipped into raw/, {rejected} rejected"]
    for _url, path in done.clipped:
        parts += ["\n", ("+ ", "$text-success"), path]
    for url, why in done.failed:
        parts += ["\n", ("✗ ", "$text-error"), visible_line(url)[:200], (f" {visible_line(why)[:300]}", "$text-muted")]
    if done.batch:
        parts += ["\n", f"Queued as {done.batch}: `wikitui ingest --resume` ingests them (or /ingest each)."]
    elif done.clipped:
        parts += ["\n", ("/ingest PATH reads one; `wikitui ingest --new` ingests every new source.", "$text-muted")]
    return Content.assemble(*parts)
