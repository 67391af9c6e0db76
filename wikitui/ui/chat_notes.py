"""What the chat shows for the agent's notes: errors with a hint, session notices, lint reports, token lines.

Pure formatting into Textual ``Content`` (no widgets): :class:`~wikitui.ui.chat_controller.ChatController`
adds the results to the log, live and when a conversation is restored.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content

from wikitui.core.agent.events import Notice


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


def error_note(message: str) -> Content:
    """An agent error as a chat note: ``✗`` and the message, then what to do about it."""
    hint = error_hint(message)
    return Content.assemble(("✗ ", "bold $text-error"), message[:1].upper() + message[1:],
                            *((("\n" + hint, "$text-muted"),) if hint else ()))


def notice_note(notice: Notice) -> tuple[str | Content, str]:
    """(text, note kind) for a session's notice: progress quietly; a cut answer, a model without tools and
    kept proposals marked."""
    if notice.kind == "cancelled":
        return "Cancelled.", "error"
    if notice.kind == "cut":
        return Content.assemble(("✂ ", "bold $text-warning"), notice.text), "error"
    if notice.kind == "tools":
        return Content.assemble(("⚠ ", "bold $text-warning"), notice.text), "error"
    if notice.kind == "pending":
        return Content.assemble(("Kept: ", "bold"), notice.text), "plan"
    return notice.text, "note"


def lint_note(report: Any) -> tuple[str | Content, str]:
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
