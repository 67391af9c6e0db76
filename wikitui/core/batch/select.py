"""Which sources a batch takes: a folder, a glob or ``--new``, and which of them are skipped.

A source is *ingested* when some page lists it in ``sources`` (lint's
``uningested-source`` is the opposite). It is skipped when it is ingested and
unchanged: ``.wikitui/sources.json`` holds no hash of it that differs from its
content now (no record at all: no verdict, so unchanged), or when an earlier
batch proposed it at this content and that changeset still waits for review.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from wikitui.core.batch.queue import Entry, proposed_elsewhere
from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.staleness import SourceRecords, file_sha256, page_sources, resolver_for_graph

_GLOB_CHARS = re.compile(r"[*?\[]")


class NoSources(WikituiError):
    """The folder or pattern names no source (exit status 2)."""


@dataclass
class Selection:
    """What a batch's argument selects.

    Attributes:
        queued: Entries to run, in path order.
        skipped: Entries skipped, each with its ``why``.
    """

    queued: list[Entry]
    skipped: list[Entry]


def is_batch_argument(text: str) -> bool:
    """Whether ``ingest``'s argument names many sources (a glob, or a folder) rather than one."""
    return bool(_GLOB_CHARS.search(text)) or text.endswith(("/", "\\"))


def glob_regex(pattern: str) -> re.Pattern:
    """A compiled regex for a vault-relative glob: ``*`` and ``?`` stay in a folder, ``**/`` spans folders."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:end]
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.IGNORECASE)


def _vault_relative(vault, text: str) -> str:
    """``text`` as a vault-relative posix path (absolute or ``./`` forms accepted)."""
    t = text.replace("\\", "/").strip()
    path = Path(t)
    if path.is_absolute():
        try:
            t = path.resolve().relative_to(vault.root.resolve()).as_posix()
        except ValueError:
            raise NoSources(f"{text} is outside the vault") from None
    while t.startswith("./"):
        t = t[2:]
    return posixpath.normpath(t).strip("/") if t.strip("/") else ""


def candidates(vault, graph, argument: str | None) -> list[str]:
    """The raw sources ``argument`` names (None: every source), attachments (raw/assets/) aside.

    Raises:
        NoSources: a folder that does not exist, or nothing matches.
    """
    assets = f"{vault.raw_prefix}/assets/"
    raws = sorted(p for p in graph.raw_files if not p.startswith(assets))
    if argument is None:
        return raws
    rel = _vault_relative(vault, argument)
    if _GLOB_CHARS.search(rel):
        rx = glob_regex(rel)
        hits = [p for p in raws if rx.match(p)]
        if not hits:
            raise NoSources(f"no source matches {argument}")
        return hits
    if not (vault.root / rel).is_dir():
        raise NoSources(f"no such folder: {argument}")
    prefix = f"{rel}/" if rel else ""
    hits = [p for p in raws if p.startswith(prefix)]
    if not hits:
        raise NoSources(f"no source under {argument} (sources are files under {vault.raw_prefix}/)")
    return hits


def select(vault, graph, argument: str | None, *, only_new: bool = False) -> Selection:
    """Split the sources ``argument`` names into queued and skipped entries.

    Args:
        vault: The vault.
        graph: Its link graph (pages and their ``sources``).
        argument: A folder or glob, vault-relative; None: every source.
        only_new: ``--new``: only sources no page lists in ``sources`` (and none pending review).
    """
    listed = _listed_hashes(vault, graph)
    elsewhere, batch_ids = proposed_elsewhere(vault)
    alone = _pending_ingests(vault, graph, batch_ids)
    queued, skipped = [], []
    for path in candidates(vault, graph, argument):
        absolute = vault.root / path
        digest = file_sha256(absolute) or ""
        size = absolute.stat().st_size if absolute.is_file() else 0
        entry = Entry(path, sha256=digest, size=size)
        why = None
        if (path, digest) in elsewhere:
            why = f"proposed in {elsewhere[(path, digest)]}, pending review"
        elif path in alone:
            why = f"proposed in {alone[path]}, pending review"
        elif path in listed:
            hashes = listed[path]
            if only_new:
                why = "ingested: a page lists it in sources"
            elif not hashes or digest in hashes:
                why = "ingested and unchanged"
        if why:
            entry.state, entry.why = "skipped", why
            skipped.append(entry)
        else:
            queued.append(entry)
    return Selection(queued, skipped)


def skip_pending_elsewhere(vault, graph, entries: list[Entry]) -> list[Entry]:
    """Mark skipped the ``entries`` another changeset pending review already ingests (a resumed batch's
    sources that a newer batch, or an ``ingest raw/x``, proposed meanwhile); returns them."""
    elsewhere, batch_ids = proposed_elsewhere(vault)
    alone = _pending_ingests(vault, graph, batch_ids)
    out = []
    for e in entries:
        digest = file_sha256(vault.root / e.source) or ""
        other = elsewhere.get((e.source, digest)) or alone.get(e.source)
        if other and other != e.changeset:
            e.state, e.why, e.changeset = "skipped", f"proposed in {other}, pending review", None
            out.append(e)
    return out


def _pending_ingests(vault, graph, batch_ids: set[str]) -> dict[str, str]:
    """Source -> id of a pending ingest changeset (``wikitui ingest raw/x``, ``/ingest``) whose pages list it."""
    from wikitui.core.changes.pending import PendingStore
    from wikitui.core.vault.page import load_frontmatter, split_frontmatter

    resolver = None
    out: dict[str, str] = {}
    for cs in PendingStore(vault).list():
        if cs.op != "ingest" or cs.id in batch_ids:
            continue
        for fc in cs.files:
            if fc.binary or fc.action == "delete" or not fc.final_path.endswith(".md"):
                continue
            try:
                fm = split_frontmatter(fc.new_text.lstrip("\ufeff"))[0]
                meta = load_frontmatter(fm) if fm is not None else {}
            except Exception:  # a proposal's frontmatter that does not parse names no source
                continue
            refs = meta.get("sources") if isinstance(meta, dict) else None
            if not isinstance(refs, list):
                continue
            resolver = resolver or resolver_for_graph(graph)
            for src in resolver.resolve_all(_flat(refs)):
                out.setdefault(src, cs.id)
    return out


def _flat(value: list) -> list[str]:
    """A ``sources`` list's strings, nested lists (unquoted ``- [[x]]``) flattened."""
    out: list[str] = []
    for item in value:
        if isinstance(item, list):
            out.extend(_flat(item))
        elif item is not None:
            out.append(str(item))
    return out


def _listed_hashes(vault, graph) -> dict[str, set[str]]:
    """Source -> the hashes recorded for it by the pages listing it (empty set: listed, never recorded)."""
    resolver = resolver_for_graph(graph)
    records = SourceRecords(vault).load()
    out: dict[str, set[str]] = {}
    for page, info in graph.pages.items():
        if page == vault.log_path or not info.sources:
            continue
        for src in resolver.resolve_all(page_sources(info)):
            got = out.setdefault(src, set())
            recorded = records.get(page, {}).get(src)
            if recorded:
                got.add(recorded)
    return out
