"""One sync: fetch the upstream, combine its commits with ours, push (DESIGN §14).

The steps, under the vault's write lock (so no apply interleaves):

1. fetch; find ours (HEAD), theirs (the upstream) and their merge base;
2. commit the person's own uncommitted edits to the paths upstream changed, apart, as an apply does;
3. combine each path upstream changed (:func:`~wikitui.core.sync.combine.combine`); a conflict stops
   here, with nothing written and nothing pushed, kept in ``.wikitui/sync.json`` for the person;
4. write the combined files, regenerate index.md below its marker (never merged), and commit the
   result as a merge of both sides (a fast-forward when we had nothing of our own);
5. give log.md git's union merge in ``.gitattributes`` (once), so a plain ``git pull`` keeps both sides' entries;
6. push what we have that the upstream has not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wikitui.core.changes.git import GitError, commit_paths, dirty_paths, is_git_vault, run_git
from wikitui.core.changes.lock import write_lock
from wikitui.core.base.errors import WikituiError
from wikitui.core.sync import repo
from wikitui.core.sync.combine import INDEX_MARKER, Combined, Conflict, combine
from wikitui.core.sync.state import CHOICES, SyncState, clear_state, load_state, save_state
from wikitui.core.vault.files import atomic_write
from wikitui.core.vault.layout import Vault

STATE_PREFIX = ".wikitui/"
ATTRIBUTES = ".gitattributes"


@dataclass
class SyncResult:
    """What a sync did.

    Attributes:
        upstream: The upstream branch (``origin/main``).
        incoming: The upstream's commits brought in, newest first.
        outgoing: Our commits the upstream did not have, newest first (pushed when ``pushed``).
        written: Paths written in the working tree (upstream's changes, combined with ours).
        deleted: Paths removed (deleted upstream).
        conflicts: Paths that did not combine: nothing was written or pushed.
        pushed: Whether our commits were pushed.
        commit: The merge (or fast-forward) commit HEAD now points at, when anything came in.
        index_regenerated: Whether index.md's catalog was regenerated after the merge.
        rebased: Pending file changes re-based on what came in (``{"changeset", "path"}``).
        rebase_conflicts: Pending file changes that meet what came in (left as they were; the review marks them).
        notes: One-line notes (your edits committed first, the union rule added...).
    """

    upstream: str
    incoming: list[repo.Commit] = field(default_factory=list)
    outgoing: list[repo.Commit] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    pushed: bool = False
    commit: str | None = None
    index_regenerated: bool = False
    notes: list[str] = field(default_factory=list)
    rebased: list[dict[str, str]] = field(default_factory=list)
    rebase_conflicts: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict:
        """The ``sync --json`` document."""
        return {
            "upstream": self.upstream, "incoming": [c.as_dict() for c in self.incoming],
            "outgoing": [c.as_dict() for c in self.outgoing], "written": self.written, "deleted": self.deleted,
            "conflicts": [{"path": c.path, "why": c.why, "regions": c.regions} for c in self.conflicts],
            "pushed": self.pushed, "commit": self.commit, "index_regenerated": self.index_regenerated,
            "rebased": self.rebased, "rebase_conflicts": self.rebase_conflicts, "notes": self.notes,
        }


def ensure_union_rule(vault: Vault) -> bool:
    """Give log.md git's union merge in ``.gitattributes`` (so a plain ``git pull`` keeps both sides' entries).

    Returns:
        Whether the rule was added (and committed).
    """
    rule = f"{vault.log_path} merge=union"
    path = vault.root / ATTRIBUTES
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = ""
    if any(line.split() == rule.split() for line in old.splitlines()):
        return False
    atomic_write(path, old + ("" if not old or old.endswith("\n") else "\n") + rule + "\n")
    commit_paths(vault, [ATTRIBUTES], "wikitui: keep both sides' log.md entries on a merge (.gitattributes)")
    return True


def resolve(vault: Vault, path: str, choice: str) -> SyncState:
    """Record how a conflicted path is to be resolved (the next :func:`sync` uses it).

    Raises:
        WikituiError: No sync is waiting on conflicts, ``path`` is not one of them, or ``choice`` is unknown.
    """
    if choice not in CHOICES:
        raise WikituiError(f"a conflict is resolved with one of {', '.join(CHOICES)}, not {choice!r}")
    state = load_state(vault)
    if state is None or not state.conflicts:
        raise WikituiError("no sync is waiting on a conflict")
    known = {c.path for c in state.conflicts}
    if path not in known:
        raise WikituiError(f"{path} is not one of the sync's conflicts: {', '.join(sorted(known))}")
    state.resolved[path] = choice
    save_state(vault, state)
    return state


def sync(vault: Vault, *, push: bool = True) -> SyncResult:
    """Bring the upstream's commits in and push ours (DESIGN §14).

    Args:
        vault: A git vault whose branch has an upstream.
        push: Push our commits when nothing is left to resolve (False: only bring theirs in).

    Returns:
        What came in, what went out, and any conflicts (then nothing was written or pushed).

    Raises:
        WikituiError: The vault is not a git repository, or the two histories share nothing.
        repo.NoUpstream: The branch has no upstream (the message says how to add one).
        repo.NetworkError: Fetching or pushing failed.
        GitError: Another git command failed.
    """
    if not is_git_vault(vault):
        raise WikituiError(f"{vault.root} is not a git repository: sync needs one with a remote "
                           "(`git init`, then `git remote add origin URL`)")
    upstream = repo.upstream(vault)
    repo.fetch(vault, upstream)
    result = SyncResult(upstream)
    with write_lock(vault):
        _bring_in(vault, upstream, result)
        if result.conflicts:
            return result  # nothing written, nothing committed, nothing pushed
        if ensure_union_rule(vault):
            result.notes.append(f"added `{vault.log_path} merge=union` to .gitattributes (committed)")
    theirs = repo.rev(vault, upstream)
    ours = repo.rev(vault, "HEAD")
    if push and ours and theirs and ours != theirs:
        result.outgoing = repo.commits_between(vault, theirs, ours)
        if result.outgoing:
            repo.push(vault, upstream)
            result.pushed = True
    return result


def _bring_in(vault: Vault, upstream: str, result: SyncResult) -> None:
    ours = repo.rev(vault, "HEAD")
    theirs = repo.rev(vault, upstream)
    if theirs is None:
        return  # an upstream branch not created yet: the push creates it
    if ours is None:
        raise WikituiError("this repository has no commit yet: commit once before syncing")
    base = repo.merge_base(vault, ours, theirs)
    if base is None:
        raise WikituiError(f"this branch and {upstream} share no history: sync cannot combine them")
    if base == theirs:
        clear_state(vault)
        return  # nothing came in
    state = load_state(vault)
    resolved = state.resolved if state is not None and state.theirs == theirs else {}
    incoming = sorted(p for p in repo.changed_paths(vault, base, theirs) if not p.startswith(STATE_PREFIX))
    mine = [p for p in dirty_paths(vault, incoming) if resolved.get(p) != "file"]
    if mine:
        commit_paths(vault, mine, "wikitui: your edits before sync")
        result.notes.append(f"your uncommitted edits to {len(mine)} file(s) were committed first, apart")
        ours = repo.rev(vault, "HEAD") or ours
    if state is not None and state.ours != ours:
        resolved = {p: c for p, c in resolved.items() if c == "file"}  # ours moved: only hand edits still hold
    result.incoming = repo.commits_between(vault, ours, theirs)
    b, o, t = (repo.blobs(vault, rev, incoming) for rev in (base, ours, theirs))
    combined: dict[str, bytes | None] = {}
    for path in incoming:
        choice = resolved.get(path)
        if choice == "ours":
            combined[path] = o[path]
        elif choice == "theirs":
            combined[path] = t[path]
        elif choice == "file":
            disk = vault.root / path
            combined[path] = disk.read_bytes() if disk.is_file() else None
        else:
            outcome = combine(path, b[path], o[path], t[path], log_path=vault.log_path, index_path=vault.index_path)
            if isinstance(outcome, Conflict):
                result.conflicts.append(outcome)
            elif isinstance(outcome, Combined):
                combined[path] = outcome.data
    if result.conflicts:
        save_state(vault, SyncState(ours=ours, theirs=theirs, conflicts=result.conflicts,
                                    resolved={p: c for p, c in resolved.items()
                                              if p in {x.path for x in result.conflicts}}))
        return
    if base == ours and all(combined[p] == t[p] for p in incoming):
        _write(vault, {p: d for p, d in combined.items() if _on_disk(vault, p) != d}, result)
        repo.move_head(vault, theirs, ours, incoming, f"wikitui sync: fast-forward to {upstream}")
        result.commit = theirs
    else:
        changes = {p: d for p, d in combined.items() if d != o[p] or resolved.get(p) == "file"}
        _write(vault, {p: d for p, d in changes.items() if _on_disk(vault, p) != d}, result)
        index = _regenerate_index(vault)
        if index is not None:
            changes[vault.index_path] = index
            result.index_regenerated = True
        message = f"wikitui: sync with {upstream}\n\n{len(result.incoming)} commit(s) brought in"
        commit = repo.commit_tree(vault, ours, changes, message, second_parent=theirs)
        repo.move_head(vault, commit, ours, sorted(changes), f"wikitui sync: merge {upstream}")
        result.commit = commit
    clear_state(vault)
    from wikitui.core.sync.unread import add_unread

    add_unread(vault, result.written)  # marked in the tree until opened here
    _rebase(vault, [*result.written, *result.deleted], result)


def _rebase(vault: Vault, paths: list[str], result: SyncResult) -> None:
    """Pending changesets whose files the sync changed are re-based on the new text (conflicts left marked)."""
    from wikitui.core.changes.rebase import rebase_pending

    report = rebase_pending(vault, paths)
    result.rebased = [{"changeset": cs, "path": p} for cs, p in report.rebased]
    result.rebase_conflicts = [{"changeset": cs, "path": p} for cs, p in report.conflicts]
    if report.rebased:
        result.notes.append(f"{len(report.rebased)} pending file change(s) re-based on what came in")
    if report.conflicts:
        result.notes.append(f"{len(report.conflicts)} pending file change(s) meet what came in: the review "
                            "marks them as conflicts")


def _on_disk(vault: Vault, path: str) -> bytes | None:
    full = vault.root / path
    return full.read_bytes() if full.is_file() else None


def _write(vault: Vault, files: dict[str, bytes | None], result: SyncResult) -> None:
    """Write the combined files into the working tree (each atomically), inside the vault only."""
    root = vault.root.resolve()
    for path, data in sorted(files.items()):
        full = (vault.root / path)
        if root not in full.resolve().parents:
            raise GitError(f"the upstream holds a path outside the vault: {path}")
        if data is None:
            full.unlink(missing_ok=True)
            result.deleted.append(path)
        else:
            atomic_write(full, data)
            result.written.append(path)


def _regenerate_index(vault: Vault) -> bytes | None:
    """index.md's catalog regenerated over the merged pages (None: no marker, or nothing to change)."""
    from wikitui.core.vault.catalog import render_index
    from wikitui.core.vault.files import decode_exact, encode_exact
    from wikitui.core.vault.graph import LinkGraph

    full = vault.root / vault.index_path
    try:
        current = decode_exact(full.read_bytes())
    except FileNotFoundError:
        return None
    if INDEX_MARKER not in current:
        return None  # the person's own index: it was combined like any page
    text = render_index(vault, LinkGraph.load(vault), current)
    if text is None or text == current:
        return None
    atomic_write(full, text)
    return encode_exact(text)


def upstream_status(vault: Vault) -> str:
    """A one-line ``ahead N, behind M`` of the last fetch (no network), for a status line."""
    try:
        up = repo.upstream(vault)
    except GitError:
        return "no upstream"
    out = run_git(vault, "rev-list", "--left-right", "--count", f"HEAD...{up}", check=False).stdout.split()
    return f"ahead {out[0]}, behind {out[1]} ({up})" if len(out) == 2 else up
