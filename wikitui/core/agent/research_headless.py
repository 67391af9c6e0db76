"""Headless research (``wikitui research``) and the assumptions check (``wikitui lint --challenge``), DESIGN §9.

``wikitui research TOPIC [--json]``: a research turn; the URLs it proposes are printed
and stay pending (nothing is fetched). ``wikitui research accept ID [URL...]`` clips the
URLs named (every undecided one when none is), ``reject ID [URL...]`` drops them,
``list`` shows the pending proposals. Exit status: 0 done, 1 nothing proposed (or a URL
failed to clip), 2 user error (no search provider: one line saying how to add one), 3 the
model, the search engine or the network failed.

``wikitui lint --challenge PATH`` compares a note or a folder (``raw/inbox/``) with the
wiki; its proposals (contradiction callouts, updates) stay pending. Its exit status is
``lint --semantic``'s: 0 nothing to propose, 1 proposals pending, 2 user error, 3 the
model failed — so a cron job can run it nightly.
"""

from __future__ import annotations

import sys
from pathlib import PurePosixPath
from collections.abc import Callable
from typing import Any, TextIO

from wikitui.core.agent.semantic_lint import EXIT_CLEAN, EXIT_MODEL, EXIT_PROBLEMS
from wikitui.core.base.errors import UnsafePath, WikituiError
from wikitui.core.vault.visible_text import visible_stream
from wikitui.core.base.words import plural

EXIT_USER = 2
#: At most this many files of a folder are compared in one challenge.
MAX_CHALLENGE_FILES = 200


# ----------------------------------------------------------------- challenge
def challenge_material(vault, graph, path: str) -> list[str]:
    """The vault-relative files ``path`` names: a note or source, or every readable file under a folder.

    Raises:
        UnsafePath: a path outside the vault's content.
        WikituiError: nothing there (a user error).
    """
    from wikitui.core.agent.reading import _check_confined, resolve_readable
    from wikitui.core.vault.formats.kinds import KINDS

    rel = path.strip().replace("\\", "/").strip("/") or "."
    if (vault.root / rel).is_dir():
        folder = _check_confined(vault, rel) if rel != "." else vault.root
        found = []
        for file in sorted(folder.rglob("*")):
            inner = file.relative_to(vault.root)
            if any(part.startswith(".") for part in inner.parts) or not file.is_file():
                continue
            if file.suffix.lower() in (".md", ".markdown", ".txt") or file.suffix.lower() in KINDS:
                found.append(PurePosixPath(inner).as_posix())
        if not found:
            raise WikituiError(f"{rel}/ holds no note or source to compare with the wiki")
        return found[:MAX_CHALLENGE_FILES]
    return [resolve_readable(vault, graph, rel)[0]]


def run_challenge(workspace, path: str, *, as_json: bool = False, model: str | None = None,
                  out: TextIO | None = None, err: TextIO | None = None, client=None) -> int:
    """``wikitui lint --challenge PATH [--json]``: the material compared with the wiki; proposals stay pending.

    stdout: the model's report (or, with ``as_json``, ``{"material", "report", "changeset", "tokens", "cost"}``).

    Returns:
        0 nothing proposed, 1 proposals pending, 2 user error, 3 model failure.
    """
    from wikitui.core.agent.headless import _failure, _run

    out, err = visible_stream(out or sys.stdout), visible_stream(err or sys.stderr)
    try:
        material = challenge_material(workspace.vault, workspace.require_graph(), path)
    except (WikituiError, UnsafePath, OSError) as exc:
        err.write(f"wikitui: {exc}\n")
        return EXIT_USER

    async def body(session, printer) -> int:
        done = await session.challenge(material, label=path)
        if done.failed or done.cancelled:
            code = _failure(printer)
            return EXIT_MODEL if code == EXIT_PROBLEMS else code
        cs = done.changeset
        if as_json:
            from wikitui.core.outputs.jsonstream import write_json

            usage = printer.usage
            write_json(out, {
                "material": material, "report": done.text,
                "changeset": None if cs is None else {
                    "id": cs.id, "files": [{"path": fc.final_path, "op": "new" if fc.action == "create" else fc.action,
                                            "hunks": len(fc.hunks)} for fc in cs.files]},
                "tokens": {"in": usage.prompt_tokens if usage else 0, "out": usage.completion_tokens if usage else 0},
                "cost": round(usage.cost, 6) if usage else 0.0,
            })
        if cs is None:
            err.write(f"wikitui: {plural(len(material), 'file')} compared with the wiki; no disagreement proposed\n")
            return EXIT_CLEAN
        err.write(f"wikitui: {plural(len(material), 'file')} compared with the wiki; changeset {cs.id} "
                  f"({plural(len(cs.files), 'file')}) is pending; review it in wikitui (ctrl+r) or with "
                  "wikitui pending\n")
        return EXIT_PROBLEMS

    return _run(workspace, model, out, err, client, answer_to_out=not as_json, body=body)


# ------------------------------------------------------------------ research
def _source_line(n: int, s: Any) -> str:
    state = s.decision if not s.clipped else f"clipped as {s.clipped}"
    title = f" — {s.title}" if s.title else ""
    return f"{n}. [{state}] {s.url}{title}\n   {s.why}"


def print_proposal(out: TextIO, proposal) -> None:
    """A proposal as lines: its id and topic, then each URL with its decision and why."""
    out.write(f"{proposal.id}  {proposal.topic}\n")
    for n, s in enumerate(proposal.sources, 1):
        out.write(_source_line(n, s) + "\n")


def run_research(workspace, topic: str, *, as_json: bool = False, model: str | None = None,
                 out: TextIO | None = None, err: TextIO | None = None, client=None) -> int:
    """``wikitui research TOPIC [--json]``: the agent searches the web; the URLs it proposes stay pending.

    stdout: the proposal (id, then each URL with one line why), or with ``as_json``
    ``{"research": {"id", "topic", "sources": [{"url", "title", "why", "decision"}...]} or null,
    "report", "tokens", "cost"}``. Nothing is fetched.
    """
    from wikitui.core.agent.headless import _failure, _run
    from wikitui.core.config.settings import load_settings
    from wikitui.core.research.provider import NO_PROVIDER, provider_from

    out, err = visible_stream(out or sys.stdout), visible_stream(err or sys.stderr)
    if provider_from(load_settings(workspace.vault, model).research) is None:
        err.write(f"wikitui: {NO_PROVIDER}\n")  # before any model or index work
        return EXIT_USER

    async def body(session, printer) -> int:
        done = await session.research(topic, typed=f"research {topic}")
        proposal = done.sources
        if (done.failed or done.cancelled) and proposal is None:
            code = _failure(printer)
            return EXIT_MODEL if code == EXIT_PROBLEMS else code
        if as_json:
            from wikitui.core.outputs.jsonstream import write_json

            usage = printer.usage
            write_json(out, {"research": proposal.to_dict() if proposal is not None else None, "report": done.text,
                             "tokens": {"in": usage.prompt_tokens if usage else 0,
                                        "out": usage.completion_tokens if usage else 0},
                             "cost": round(usage.cost, 6) if usage else 0.0})
        elif proposal is not None:
            print_proposal(out, proposal)
        if proposal is None:
            err.write("wikitui: no source proposed\n")
            return EXIT_PROBLEMS
        err.write(f"wikitui: {plural(len(proposal.sources), 'source')} proposed, nothing fetched; "
                  f"`wikitui research accept {proposal.id} [URL...]` clips them (or reject)\n")
        return EXIT_MODEL if done.failed else EXIT_CLEAN

    return _run(workspace, model, out, err, client, answer_to_out=False, body=body)


def run_research_decision(workspace, action: str, proposal_id: str | None, urls: list[str], *,
                          queue: Callable[[str, list[str]], str] | None = None, as_json: bool = False,
                          out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``wikitui research list|accept|reject [ID] [URL...] [--ingest]``.

    ``accept`` with no URL accepts every undecided one; ``reject`` likewise. Only accepted
    URLs are fetched (clipped into raw/); ``queue(selection, paths) -> batch id`` (``--ingest``:
    the batch queue's, passed by the command line, a layer above) queues the clipped sources as a
    batch that ``wikitui ingest --resume`` runs.
    """
    from wikitui.core.research.proposals import ResearchStore, decide

    out, err = visible_stream(out or sys.stdout), visible_stream(err or sys.stderr)
    store = ResearchStore(workspace.vault)
    if action == "list":
        pending = [p for p in store.all() if p.pending]
        if as_json:
            from wikitui.core.outputs.jsonstream import write_json

            write_json(out, [p.to_dict() for p in pending])
        for p in pending if not as_json else []:
            print_proposal(out, p)
        return EXIT_CLEAN
    try:
        proposal = store.load(proposal_id or "latest")
        chosen = urls or [s.url for s in proposal.undecided]
        if action == "accept":
            batch = None if queue is None else (lambda paths: queue(f"research {proposal.id}", paths))
            done = decide(workspace.vault, proposal, accepted=chosen, queue=batch)
        else:
            done = decide(workspace.vault, proposal, rejected=chosen)
    except WikituiError as exc:
        err.write(f"wikitui: {exc}\n")
        return exc.exit_code
    if as_json:
        from wikitui.core.outputs.jsonstream import write_json

        write_json(out, {"research": proposal.to_dict(), "clipped": [{"url": u, "path": p} for u, p in done.clipped],
                         "failed": [{"url": u, "error": e} for u, e in done.failed], "batch": done.batch})
    else:
        for _url, path in done.clipped:
            out.write(path + "\n")
    for url, why in done.failed:
        err.write(f"wikitui: {url}: not clipped: {why}\n")
    if action == "reject":
        err.write(f"wikitui: {plural(len(chosen), 'source')} rejected; nothing fetched\n")
    elif done.batch:
        err.write(f"wikitui: queued as {done.batch}: `wikitui ingest --resume` ingests them\n")
    return EXIT_PROBLEMS if done.failed else EXIT_CLEAN
