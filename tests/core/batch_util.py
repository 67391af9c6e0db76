"""A fake model that ingests any source, for the batch tests: its replies follow the request, not a script.

Each request is answered from what it carries (which source, which phase, whether a tool
result came back), so a batch can be killed anywhere and resumed against the same
server: ``fake_llm.script(*ingesting(40))``.
"""

from __future__ import annotations

import json
import posixpath

from tests.fakeserver import Dynamic, text, tool_call


def _source_of(messages: list[dict]) -> str:
    for m in messages:
        content = m.get("content")
        if m.get("role") == "user" and isinstance(content, str) and "Ingest raw/" in content:
            return content.split("Ingest ", 1)[1].split()[0].rstrip(".")
    raise AssertionError("not an ingest request")


def summary_page(source: str, read: str = "") -> tuple[str, str]:
    """(path, content) of the page the fake model proposes for ``source`` (``read``: what reading it returned)."""
    stem = posixpath.splitext(posixpath.basename(source))[0]
    content = (f"---\ntitle: Batch {stem}\ntype: source\nsummary: What {stem} says.\nsources: [{source}]\n"
               f"created: 2026-12-01\nupdated: 2026-12-01\n---\n\n# Batch {stem}\n\nFrom [[{source}]], "
               f"{len(read)} characters read.\n")
    return f"wiki/sources/batch-{stem}.md", content


def answer(body: dict, usage: tuple[int, int] | None = None):
    """The reply to one request of an ingest turn."""
    messages = body.get("messages", [])
    source = _source_of(messages)
    writing = any(m.get("role") == "user" and "plan is approved" in str(m.get("content")) for m in messages)
    last = messages[-1] if messages else {}
    if not writing:
        if last.get("role") == "tool":
            return text(f"Plan: a summary page for {source}.", usage=usage)
        return tool_call("read", path=source, usage=usage)
    if last.get("role") == "tool":
        return text("Proposed the summary page.", usage=usage)
    read = next((str(m.get("content")) for m in messages if m.get("role") == "tool"), "")
    path, content = summary_page(source, read)
    return tool_call("propose_page", path=path, content=content, reason="summary", usage=usage)


def ingesting(n: int, usage: tuple[int, int] | None = None) -> list[Dynamic]:
    """``n`` replies of the ingesting model."""
    return [Dynamic(lambda body: answer(body, usage)) for _ in range(n)]


def pending_by_source(vault) -> dict[str, list[str]]:
    """Source -> ids of the pending changesets that create its summary page."""
    from wikitui.core.changes.pending import PendingStore

    out: dict[str, list[str]] = {}
    for cs in PendingStore(vault).list():
        for fc in cs.files:
            if fc.path.startswith("wiki/sources/batch-"):
                source = fc.new_text.split("sources: [", 1)[1].split("]", 1)[0]
                out.setdefault(source, []).append(cs.id)
    return out


def batch_files(root) -> list[dict]:
    """Every batch queue of the vault at ``root``, oldest first."""
    return [json.loads(p.read_text()) for p in sorted((root / ".wikitui" / "batches").glob("batch-*.json"))]
