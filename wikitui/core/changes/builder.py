"""Changesets: the proposals of one agent turn, reviewable per file and per hunk.

:class:`ChangesetBuilder` collects what the agent's ``propose_*`` tools ask for,
checking each request against the vault: a bad one raises :class:`ProposalError`
with a message the model can act on, and changes nothing. Several proposals for
one page compose (a second edit applies to the text the first one proposed).
:meth:`ChangesetBuilder.build` turns them into a :class:`Changeset` (the data model
lives in :mod:`wikitui.core.changes.model` and is re-exported here). Nothing is
written to disk until :func:`wikitui.core.changes.apply.apply_changeset`.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import PurePosixPath

from wikitui.core.vault.catalog import INDEX_MARKER
from wikitui.core.changes.model import (  # noqa: F401  (re-exported: the public names)
    ACTIONS,
    Changeset,
    ChangeStats,
    FileChange,
    FileConflict,
    ProposalError,
    make_file_change,
    new_changeset_id,
    sha256_bytes,
)
from wikitui.core.changes.diffs import Hunk
from wikitui.core.changes.drafts import Draft, Entry as _Entry
from wikitui.core.changes.evidence_hunks import add_footnotes, attach, schema_wants_footnotes
from wikitui.core.changes.overlay import Overlay
from wikitui.core.changes.policy import check_proposal, page_policy, proposal_allowed
from wikitui.core.changes.proposal_text import check_text as _check_text, line_delta as _line_delta
from wikitui.core.changes.relink import rewrite_links_for_move
from wikitui.core.changes.text_edits import EditError, apply_edits, newline_style, to_style
from wikitui.core.changes.updated import bump_updated
from wikitui.core.base.errors import UnsafePath
from wikitui.core.vault.evidence import Evidence, SourceTexts, check_evidence, from_argument, problem, short_claim
from wikitui.core.vault.files import decode_exact
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import SCHEMA_FILE, Vault
from wikitui.core.vault.visible_text import describe, path_unsafe, proposal_control
from wikitui.core.base.words import plural

__all__ = ["ACTIONS", "Changeset", "ChangeStats", "ChangesetBuilder", "FileChange", "FileConflict", "Hunk",
           "ProposalError", "make_file_change", "new_changeset_id", "sha256_bytes"]

_BOM = "\ufeff"
#: The operations a changeset may come from (log.md's operations, less ``undo``).
OPS = ("ingest", "query", "lint", "edit")


def _check_controls(rel: str, before: str, after: str) -> None:
    """Refuse a control character the proposal adds (DESIGN §8: what the reviewer sees is what is written).

    Tab, newline and CRLF line endings are text; a control a human left in the page may stay.

    Raises:
        ProposalError: naming the character and its line.
    """
    found = proposal_control(before, after)
    if found is not None:
        ch, line = found
        raise ProposalError(
            f"{rel}: line {line} holds the control character {describe(ch)}; a page is text that a person "
            "reviews on a terminal: leave it out (tab and newline are the only controls a page may hold)"
        )


class ChangesetBuilder:
    """Gathers the proposals of one agent turn.

    Every method checks its request fully before recording anything, and returns
    a one-line confirmation for the model.

    Args:
        vault: The vault.
        graph: The vault's link graph (for moves' link rewriting and path hints).
        overlay: A batch's earlier pending proposals (:class:`~wikitui.core.changes.overlay.Overlay`):
            a page it holds is proposed against its text there, not the disk's.
    """

    def __init__(self, vault: Vault, graph: LinkGraph, overlay: Overlay | None = None) -> None:
        self.vault = vault
        self.graph = graph
        self.overlay = overlay
        self._entries: dict[str, _Entry] = {}  # by current path
        self._order: list[_Entry] = []
        self._moved_from: dict[str, str] = {}  # old path -> current path
        #: The id the built changeset will carry (one turn, one changeset).
        self.changeset_id = new_changeset_id()

    # ------------------------------------------------------------------ paths
    def _resolve(self, path: object) -> str:
        """Normalise a path given relative to the wiki folder or the vault, and check it may be written."""
        if not isinstance(path, str) or not path.strip():
            raise ProposalError("a path is required (for example concepts/Transformer.md)")
        bad = path_unsafe(path.strip())  # blanks around it are trimmed as ever; one inside is refused
        if bad is not None:
            raise ProposalError(f"{path!r}: a path may not hold the control character {describe(bad)}; "
                                "name the page with printable characters")
        raw = path.strip().replace("\\", "/")
        p = raw
        while p.startswith("./"):
            p = p[2:]
        prefix = self.vault.wiki_prefix
        if prefix and not (
            p == SCHEMA_FILE or p == prefix or p.startswith(prefix + "/") or self.vault.is_raw(p)
            or p.startswith(("/", ".")) or (len(p) > 1 and p[1] == ":")
        ):
            p = self.vault.join_wiki(p)
        if not p.startswith("/"):
            p = str(PurePosixPath(p))
        if p == self.vault.log_path:
            raise ProposalError(
                f"{raw}: log.md is written by wikitui itself when changes are applied; propose no changes to it"
            )
        try:
            target = self.vault.writable_path(p)
        except UnsafePath as exc:
            where = f"{prefix}/ and {SCHEMA_FILE}" if prefix else f"the wiki's pages and {SCHEMA_FILE}"
            raise ProposalError(f"refused: {exc}; only {where} can be written") from None
        if not p.lower().endswith(".md"):
            hint = self.graph.find_page(raw)
            more = f"; did you mean {hint}?" if hint else ""
            raise ProposalError(f"{raw}: only markdown pages (.md) can be written{more}")
        if target.is_dir():
            raise ProposalError(f"{raw}: is a folder, not a page")
        return p

    def _lookup(self, rel: str, *, must_exist: bool) -> _Entry | None:
        """The entry for ``rel``: proposed earlier in this turn, else read from disk."""
        if rel in self._moved_from and rel not in self._entries:
            raise ProposalError(f"{rel} was moved to {self._moved_from[rel]} earlier in this turn; use that path")
        entry = self._entries.get(rel)
        if entry is not None:
            if entry.text is None and must_exist:
                raise ProposalError(f"{rel} is proposed for deletion in this turn; propose_page would recreate it")
            return entry
        if self.overlay is not None and self.overlay.knows(rel):
            return self._overlaid(rel, must_exist=must_exist)
        abs_path = self.vault.root / rel
        try:
            data = abs_path.read_bytes()
        except FileNotFoundError:
            if must_exist:
                hint = self.graph.find_page(PurePosixPath(rel).stem)
                more = f"; did you mean {hint}?" if hint and hint != rel else "; use propose_page to create it"
                raise ProposalError(f"{rel} does not exist{more}") from None
            return None
        except OSError as exc:
            raise ProposalError(f"{rel}: cannot be read ({exc.strerror or exc})") from None
        if b"\x00" in data[:8192]:
            raise ProposalError(f"{rel} is a binary file; wikitui will not rewrite it")
        text = decode_exact(data)  # bytes that are not UTF-8 are kept as they are, outside the edit
        return _Entry(rel, True, sha256_bytes(data), text, text)

    def _overlaid(self, rel: str, *, must_exist: bool) -> _Entry | None:
        """The entry for a page an earlier changeset of the batch proposes: based on its proposed text."""
        assert self.overlay is not None
        text = self.overlay.read(rel)
        if text is None:
            if must_exist:
                raise ProposalError(f"{rel} is deleted (or moved away) by changeset {self.overlay.proposed_by(rel)}, "
                                    "proposed earlier in this batch")
            return None
        return _Entry(rel, True, self.overlay.base_hash(rel), text, text)

    def exists(self, path: str) -> tuple[str, bool]:
        """The vault-relative path ``path`` names, and whether that page exists: on disk, in the overlay,
        or proposed earlier in this turn.

        Raises:
            ProposalError: The path is refused.
        """
        rel = self._resolve(path)
        entry = self._entries.get(rel)
        if entry is not None:
            return rel, entry.text is not None
        if rel in self._moved_from:
            return rel, False
        if self.overlay is not None:
            return rel, self.overlay.exists(rel)
        return rel, (self.vault.root / rel).exists()

    def _register(self, entry: _Entry, reason: object) -> None:
        if entry not in self._order:
            self._order.append(entry)
        self._entries[entry.current] = entry
        r = str(reason).strip() if reason else ""
        if r and r not in entry.reasons:
            entry.reasons.append(r)

    def _check_index(self, rel: str, before: str, after: str | None) -> None:
        """index.md below the marker is wikitui's: refuse any change there."""
        if rel != self.vault.index_path:
            return
        at = before.find(INDEX_MARKER)
        if at == -1:
            return
        if after is not None:
            at2 = after.find(INDEX_MARKER)
            if at2 != -1 and after[at2:] == before[at:]:
                return
        raise ProposalError(
            f"{rel}: everything from the line {INDEX_MARKER} down is generated by wikitui after each applied "
            "change (from the pages' title, type and summary); change the pages instead, or edit only the text "
            "above that line"
        )

    @staticmethod
    def _check_policy(entry: _Entry, new_text: str | None, *, action: str = "edit") -> None:
        """The page's ``llm:`` policy, read from the page on disk (:mod:`wikitui.core.changes.policy`)."""
        check_proposal(entry.orig, entry.base_text if entry.exists else None, new_text, action=action)

    # --------------------------------------------------------------- evidence
    @staticmethod
    def _evidence_of(items: object, claim: str, rel: str) -> list[tuple[str, Evidence]]:
        """(the words it backs, the evidence) of each item the model sent; checked before anything is recorded."""
        if items is None:
            return []
        if not isinstance(items, list):
            raise ProposalError(f"{rel}: evidence must be a list of {{\"source\", \"quote\"}} objects")
        out = []
        for item in items:
            if not isinstance(item, dict):
                raise ProposalError(f"{rel}: each evidence item is an object {{\"source\", \"quote\" or \"lines\"}}")
            try:
                ev = from_argument(item, claim)
            except ValueError as exc:
                raise ProposalError(f"{rel}: {exc}; nothing of this call was recorded") from None
            words = str(item.get("claim") or "").strip() or claim
            out.append((words, ev))
        return out

    @staticmethod
    def _keep_evidence(entry: _Entry, claims: list[tuple[str, Evidence]], *, whole: bool = False) -> None:
        """Keep a proposal's evidence on its entry: new evidence for a claim replaces the claim's old one, and
        evidence of claims the text no longer holds is dropped (a rewrite, or an edit of the claim itself)."""
        if not claims and not entry.evidence:
            return
        text = entry.text or ""
        renewed = {short_claim(words) for words, _ in claims}
        kept = [(words, ev) for words, ev in entry.evidence
                if short_claim(words) not in renewed and (words.strip() in text if words.strip() else not whole)]
        entry.evidence = kept + claims

    def check_evidence(self) -> list[tuple[str, str]]:
        """Check every quote proposed so far against its source (DESIGN §11): (page, what is wrong) of each
        that does not match; each evidence now says where it was found."""
        texts = SourceTexts(self.vault)
        out: list[tuple[str, str]] = []
        for entry in self._order:
            if entry.text is None or not entry.evidence:
                continue
            checked = []
            for words, ev in entry.evidence:
                ev = check_evidence(self.graph, ev, texts)
                checked.append((words, ev))
                why = problem(ev)
                if why is not None:
                    out.append((entry.current, why))
            entry.evidence = checked
        return out

    def has_evidence(self) -> bool:
        """Whether any proposal of this turn carries evidence."""
        return any(e.evidence for e in self._order if e.text is not None)

    # -------------------------------------------------------------- proposals
    def edit(self, path: str, edits: list[dict], reason: str = "") -> str:
        """Propose exact search/replace edits to an existing page.

        Args:
            path: The page, relative to the wiki folder or the vault.
            edits: ``[{"old": str, "new": str, "evidence"?: [...]}]``; each ``old`` must occur exactly
                once. An edit whose ``new`` is its ``old``, with evidence, only gives its claim new evidence.
            reason: Why.

        Raises:
            ProposalError: The path is refused or missing, an ``old`` is missing or ambiguous,
                or an evidence item is malformed. No edit of the call is recorded then.
        """
        rel = self._resolve(path)
        claims: list[tuple[str, Evidence]] = []
        plain: list[dict] = []
        cited: list[str] = []  # evidence only: an edit whose new text is its old one, with evidence
        for edit in edits if isinstance(edits, list) else []:
            if isinstance(edit, dict):
                _check_text(edit.get("new"), f'"new" of an edit to {rel}')
                claims += self._evidence_of(edit.get("evidence"), str(edit.get("new") or ""), rel)
                if edit.get("evidence") and isinstance(edit.get("old"), str) and edit.get("old") == edit.get("new"):
                    cited.append(edit["old"])
                    continue
                edit = {k: v for k, v in edit.items() if k != "evidence"}
            plain.append(edit)
        entry = self._lookup(rel, must_exist=True)
        assert entry is not None and entry.text is not None
        for words in cited:
            if not words.strip() or words.replace("\r\n", "\n") not in entry.text.replace("\r\n", "\n"):
                raise ProposalError(f"{rel}: the text given for new evidence is not on the page as proposed; "
                                    "copy the claim's words exactly (an edit's new text); nothing was recorded")
        edits = plain
        try:
            new = apply_edits(entry.text, edits) if edits or not cited else entry.text
        except EditError as exc:
            raise ProposalError(f"{rel}: {exc}") from None
        _check_controls(rel, entry.text, new)
        self._check_index(rel, entry.text, new)
        self._check_policy(entry, new)
        delta = _line_delta(entry.text, new)
        entry.text = new
        entry.edited = entry.edited or bool(edits)
        self._register(entry, reason)
        self._keep_evidence(entry, claims)
        if not edits:
            return f"recorded new evidence for {plural(len(cited), 'claim')} on {rel}{_evidence_note(claims)}"
        return f"recorded {plural(len(edits), 'edit')} to {rel} ({delta}){_evidence_note(claims)}"

    def new_page(self, path: str, content: str, reason: str = "", *, carried: str = "",
                 evidence: list[dict] | None = None) -> str:
        """Propose a new page, or a whole new text for an existing one.

        A rewrite keeps the file's byte-order mark and line-ending style.

        Args:
            path: The page, relative to the wiki folder or the vault.
            content: Its full text.
            reason: Why.
            carried: Text of another page this content takes in (a merge): the control
                characters it holds are the human's, not added by the proposal.
            evidence: ``[{"source", "quote"?, "lines"?, "claim"?}]``: what the page's claims draw on
                (without ``claim``, the page as a whole).

        Raises:
            ProposalError: The path is refused, or the content is not text or adds a
                control character.
        """
        rel = self._resolve(path)
        if not isinstance(content, str):
            raise ProposalError("content must be the page's full markdown text")
        _check_text(content, f"the content of {rel}")
        claims = self._evidence_of(evidence, "", rel)
        if content and not content.endswith("\n"):
            content += "\n"
        entry = self._lookup(rel, must_exist=False)
        old = entry.text if entry is not None and entry.text is not None else (entry.base_text if entry else "")
        _check_controls(rel, old + carried, content)
        if entry is None:
            entry = _Entry(rel, False, None, "", content.replace("\r\n", "\n"))
            self._register(entry, reason)
            self._keep_evidence(entry, claims, whole=True)
            return f"recorded new page {rel} ({plural(content.count(chr(10)), 'line')}){_evidence_note(claims)}"
        before = entry.text if entry.text is not None else entry.base_text
        style_of = entry.base_text or before
        bom = _BOM if style_of.startswith(_BOM) else ""
        new = bom + to_style(content.lstrip(_BOM), newline_style(style_of))
        self._check_index(rel, before, new)
        self._check_policy(entry, new)
        delta = _line_delta(before, new)
        entry.text = new
        entry.edited = True
        self._register(entry, reason)
        self._keep_evidence(entry, claims, whole=True)
        what = "new page" if not entry.exists else "rewrite of"
        return f"recorded {what} {rel} ({delta}){_evidence_note(claims)}"

    def delete(self, path: str, reason: str = "") -> str:
        """Propose deleting a page.

        Raises:
            ProposalError: The path is refused or missing, or is the schema or a generated index.
        """
        rel = self._resolve(path)
        entry = self._lookup(rel, must_exist=True)
        assert entry is not None and entry.text is not None
        if rel == SCHEMA_FILE:
            raise ProposalError(f"{SCHEMA_FILE} is the wiki's schema; edit it instead of deleting it")
        self._check_index(rel, entry.text, None)
        self._check_policy(entry, None)
        if not entry.exists:
            self._entries.pop(rel, None)
            self._order.remove(entry)
            return f"withdrew the new page {rel} proposed earlier in this turn"
        if entry.dest:
            self._entries.pop(entry.dest, None)
            self._moved_from.pop(entry.orig, None)
            entry.dest = None
        entry.text = None
        self._register(entry, reason)
        generated = {self.vault.log_path}  # history, and a catalog wikitui rewrites itself
        index = self.vault.root / self.vault.index_path
        try:
            if INDEX_MARKER in index.read_text(encoding="utf-8", errors="replace"):
                generated.add(self.vault.index_path)
        except OSError:
            pass
        inbound = sorted({b.source for b in self.graph.backlinks(entry.orig)} - {entry.orig} - generated)
        note = ""
        if inbound:
            shown = ", ".join(inbound[:8]) + (", ..." if len(inbound) > 8 else "")
            note = (f"; {plural(len(inbound), 'page')} {'links' if len(inbound) == 1 else 'link'} to it and will have "
                    f"broken links unless edited: {shown}")
        return f"recorded deletion of {entry.orig}{note}"

    def move(self, path: str, new_path: str, reason: str = "") -> str:
        """Propose moving (renaming) a page, rewriting every inbound link so it keeps resolving.

        Raises:
            ProposalError: A path is refused, the page is missing, or the destination exists.
        """
        src = self._resolve(path)
        dst = self._resolve(new_path)
        if src == dst:
            raise ProposalError(f"{src}: the new path is the same as the old one")
        if src in (SCHEMA_FILE, self.vault.index_path):
            raise ProposalError(f"{src} cannot be moved: wikitui finds it by this name")
        entry = self._lookup(src, must_exist=True)
        assert entry is not None and entry.text is not None
        if entry.dest:
            raise ProposalError(f"{src} was already moved in this turn (from {entry.orig}); move {entry.orig} "
                                "straight to its final path instead")
        taken = self.overlay.exists(dst) if self.overlay is not None else (self.vault.root / dst).exists()
        if dst in self._entries or taken:
            raise ProposalError(f"{dst} already exists; choose another path or propose_page to rewrite it")
        self._check_policy(entry, entry.text, action="move")
        if not entry.exists:  # a page created in this turn: nothing links to it on disk
            self._entries.pop(src, None)
            entry.orig = dst
            self._register(entry, reason)
            return f"the new page proposed as {src} will be created as {dst} instead"
        rewrites: dict[str, tuple[_Entry, str]] = {}
        kept: list[str] = []
        total = 0
        sources = {b.source for b in self.graph.backlinks(src)}
        sources |= {p for p, e in self._entries.items() if e.text is not None and p != src}
        for source in sorted(sources):
            if source == self.vault.log_path:
                continue  # history: names what was true then
            try:
                other = self._lookup(self._moved_from.get(source, source), must_exist=True)
            except ProposalError:
                continue
            assert other is not None and other.text is not None
            skip = None
            if source == self.vault.index_path:
                at = other.text.lstrip(_BOM).find(INDEX_MARKER)
                skip = at if at != -1 else None
            text, n = rewrite_links_for_move(
                other.text, source, old_path=src, new_path=dst, graph=self.graph, skip_from=skip
            )
            if n and other.current not in rewrites:
                if not proposal_allowed(other.orig, other.base_text if other.exists else None, text):
                    kept.append(other.current)  # its `llm:` policy keeps it as it is: its links will break
                    continue
                rewrites[other.current] = (other, text)
                total += n
        own_text, own_n = rewrite_links_for_move(entry.text, src, old_path=src, new_path=dst, graph=self.graph)
        # Everything checked: record.
        self._entries.pop(src, None)
        entry.dest = dst
        entry.text = own_text
        self._moved_from[src] = dst
        self._register(entry, reason)
        for other, text in rewrites.values():
            other.text = text
            self._register(other, f"links to {src} now point to {dst}")
        pages = len(rewrites) + (1 if own_n else 0)
        note = f"; not rewritten, by their `llm:` policy (links will break): {', '.join(kept)}" if kept else ""
        return (f"recorded move of {src} to {dst}; {plural(total + own_n, 'link')} in {plural(pages, 'page')} "
                f"will be rewritten{note}")

    # ------------------------------------------------------------------ result
    def drafts(self) -> list[Draft]:
        """Each file this turn proposes to write so far (not deletions), in the order first proposed."""
        return [Draft(e.current, e.base_text if e.exists else "", e.text, not e.exists or bool(e.dest), e.binary)
                for e in self._order if e.text is not None]

    def gone(self) -> set[str]:
        """The paths on disk this turn deletes or moves away from (a link reaching one breaks)."""
        return {e.orig for e in self._order if e.exists and (e.text is None or e.dest)}

    def proposed_text(self, path: str) -> str | None:
        """The text this turn proposes for ``path`` (None when it proposes nothing, or a deletion)."""
        try:
            rel = self._resolve(path)
        except ProposalError:
            return None
        entry = self._entries.get(rel)
        return entry.text if entry is not None else None

    def build(
        self, op: str, title: str, *, model: str | None = None, tokens: int | dict | None = None,
        cost: float | None = None,
    ) -> Changeset | None:
        """The changeset of everything proposed so far (None when nothing changes).

        Args:
            op: The operation: ``ingest``, ``query``, ``lint`` or ``edit``.
            title: What the turn was about.
            model: The model that proposed it.
            tokens: Tokens the turn spent.
            cost: The turn's cost in US dollars.

        Raises:
            ValueError: ``op`` is not one of :data:`OPS`.
        """
        if op not in OPS:
            raise ValueError(f"unknown operation {op!r}; expected one of {', '.join(OPS)}")
        footnotes = False
        if self.has_evidence():
            self.check_evidence()
            footnotes = schema_wants_footnotes(self.vault)
        files: list[FileChange] = []
        for entry in self._order:
            reason = "; ".join(entry.reasons)
            i = len(files)
            text_now = entry.text
            if footnotes and entry.text is not None and entry.evidence and not entry.binary:
                entry.text = add_footnotes(entry.text, entry.evidence)
            try:
                self._build_file(files, entry, i, reason)
            finally:
                entry.text = text_now  # the turn's drafts stay as proposed; the footnotes are the changeset's
            if files and len(files) > i and entry.evidence:
                attach(files[i], entry.evidence)
        if not files:
            return None
        now = _dt.datetime.now()
        return Changeset(
            id=self.changeset_id, op=op, title=title, created=now.isoformat(timespec="seconds"),
            model=model, tokens=tokens, cost=cost, files=files,
        )

    def _build_file(self, files: list[FileChange], entry: _Entry, i: int, reason: str) -> None:
        """Append the file change of one entry (nothing when it changes nothing)."""
        if not entry.exists:
            if entry.text is not None:
                files.append(make_file_change(i, entry.orig, "create", None, "", entry.text, reason=reason,
                                              binary=entry.binary))
        elif entry.text is None:
            files.append(make_file_change(i, entry.orig, "delete", entry.base_hash, entry.base_text, "", reason=reason))
        else:
            # An edit keeps the page's `updated:` current, as a hunk of its own the user decides.
            # Not on a page with an `llm:` policy: changing the date would be refused at apply.
            bump = entry.edited and page_policy(entry.base_text) is None
            text, own = bump_updated(entry.base_text, entry.text) if bump else (entry.text, None)
            if entry.dest:
                files.append(make_file_change(
                    i, entry.orig, "move", entry.base_hash, entry.base_text, text, entry.dest, reason, own_line=own
                ))
            elif text != entry.base_text:
                files.append(make_file_change(i, entry.orig, "edit", entry.base_hash, entry.base_text, text,
                                              reason=reason, own_line=own, binary=entry.binary))


def _evidence_note(claims: list) -> str:
    """What the confirmation says of the evidence recorded with a proposal."""
    if not claims:
        return ""
    return f"; {plural(len(claims), 'evidence item')} kept, checked against the sources when the turn ends"
