"""Pictures for a vision model: the user message that carries what ``read`` saw.

OpenAI's chat format (which litellm speaks to every provider) lets a tool message
carry only text, so the pictures that the tool calls of one round read (an image
source, the pages of a scanned PDF) go in ONE user message right after that round's
tool results, as ``image_url`` content parts with ``data:`` URLs. A user message
between two tool results would break the assistant/tool pairing, hence after all of them.
"""

from __future__ import annotations

from wikitui.core.vault.formats.images import data_url


def pictures_message(pictures: list[tuple[str, str, bytes]]) -> dict:
    """A user message with each ``(label, mime type, bytes)`` picture, labelled, in order."""
    names = ", ".join(label for label, _mime, _data in pictures)
    parts: list[dict] = [{"type": "text", "text": f"[wikitui: the pictures read by the tool calls above: {names}]"}]
    for label, mime, data in pictures:
        parts.append({"type": "text", "text": f"Picture: {label}"})
        parts.append({"type": "image_url", "image_url": {"url": data_url(mime, data)}})
    return {"role": "user", "content": parts}
