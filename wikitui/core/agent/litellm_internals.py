"""The adapter over litellm's internals: the one module that reads litellm's private attributes.

litellm keeps a reply's HTTP headers in its response's ``_hidden_params`` (its docs point there; no
public accessor exists). Written for litellm 1.110; a reply without them reads as unknown.
"""

from __future__ import annotations

from typing import Any


def reply_content_type(response: Any) -> str:
    """The reply's HTTP content type as litellm recorded it ("" when unknown), for the error message."""
    try:
        headers = (getattr(response, "_hidden_params", None) or {}).get("additional_headers") or {}
        kind = str(headers.get("llm_provider-content-type") or "").split(";")[0].strip()
    except Exception:  # another shape of response: the type is unknown
        return ""
    return f"HTTP 200, {kind}" if kind else ""
