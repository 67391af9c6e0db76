"""The git plumbing a sync needs: the upstream, fetch and push, blobs at a commit, commits between two.

Everything runs through :func:`wikitui.core.changes.git.run_git` (no prompt for a
password: an authentication failure is an error, never a wait), with a time limit.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass, field

from wikitui.core.changes.git import GitError, identity_args, run_git
from wikitui.core.vault.layout import Vault

#: Non-interactive ssh: a key that needs a passphrase fails at once instead of asking.
_NETWORK_ENV = {"GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")}


class NoUpstream(GitError):
    """The vault's branch has no upstream to sync with."""


class NetworkError(GitError):
    """Fetching or pushing failed (offline, refused, authentication): exit status 3, as a model failure."""

    exit_code = 3


@dataclass(frozen=True)
class Commit:
    """A commit brought in or sent out by a sync.

    Attributes:
        sha: Its hash.
        author: Its author's name.
        date: Its author date (ISO 8601).
        subject: Its message's first line.
        changeset: The wikitui changeset it holds (``changeset: <id>`` in its message), if any.
        paths: The vault-relative paths it touched.
    """

    sha: str
    author: str
    date: str
    subject: str
    changeset: str | None = None
    paths: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        """JSON-ready."""
        return {"commit": self.sha, "author": self.author, "date": self.date, "subject": self.subject,
                "changeset": self.changeset, "pages": self.paths}


def upstream(vault: Vault) -> str:
    """The current branch's upstream (``origin/main``).

    Raises:
        NoUpstream: There is none (or HEAD is detached).
    """
    proc = run_git(vault, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}", check=False)
    name = proc.stdout.strip()
    if proc.returncode != 0 or not name:
        raise NoUpstream("this vault's branch has no upstream to sync with: add one with "
                         "`git remote add origin URL && git push -u origin HEAD`")
    return name


def fetch(vault: Vault, upstream_name: str) -> None:
    """Fetch the upstream's remote.

    Raises:
        NetworkError: The remote could not be reached or refused us.
    """
    remote = upstream_name.split("/", 1)[0]
    try:
        run_git(vault, "fetch", "--quiet", "--no-write-fetch-head", remote, env=_NETWORK_ENV)
    except (GitError, subprocess.TimeoutExpired) as exc:
        raise NetworkError(f"could not fetch from {remote}: {exc}") from None


def push(vault: Vault, upstream_name: str) -> None:
    """Push HEAD to the upstream branch.

    Raises:
        NetworkError: The push failed (offline, refused, the remote moved on meanwhile).
    """
    remote, _, branch = upstream_name.partition("/")
    try:
        run_git(vault, "push", "--quiet", remote, f"HEAD:{branch}", env=_NETWORK_ENV)
    except (GitError, subprocess.TimeoutExpired) as exc:
        raise NetworkError(f"could not push to {remote}: {exc}") from None


def rev(vault: Vault, name: str) -> str | None:
    """The commit ``name`` names, or None."""
    proc = run_git(vault, "rev-parse", "--verify", "-q", f"{name}^{{commit}}", check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def merge_base(vault: Vault, a: str, b: str) -> str | None:
    """The best common ancestor of two commits (None: unrelated histories)."""
    proc = run_git(vault, "merge-base", a, b, check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def changed_paths(vault: Vault, old: str, new: str) -> set[str]:
    """The paths that differ between two commits (renames as a deletion and a creation)."""
    out = run_git(vault, "diff", "--name-only", "-z", "--no-renames", old, new).stdout
    return {p for p in out.split("\0") if p}


def blobs(vault: Vault, commit: str, paths: list[str]) -> dict[str, bytes | None]:
    """Each path's bytes at ``commit`` (None: absent there), read in one ``cat-file --batch``."""
    out: dict[str, bytes | None] = dict.fromkeys(paths)
    if not paths:
        return out
    listing = run_git(vault, "ls-tree", "-z", commit, "--", *paths).stdout
    ids: dict[str, str] = {}
    for item in listing.split("\0"):
        meta, _, path = item.partition("\t")
        parts = meta.split()
        if path in out and len(parts) == 3 and parts[1] == "blob":
            ids[path] = parts[2]
    if not ids:
        return out
    order = list(ids)
    proc = subprocess.run(["git", "cat-file", "--batch"], cwd=vault.root, input="".join(f"{ids[p]}\n" for p in order).encode(),
                          capture_output=True, timeout=120, check=False)
    if proc.returncode != 0:
        raise GitError(f"git cat-file failed: {proc.stderr.decode('utf-8', 'replace').strip()[:200]}")
    data, at = proc.stdout, 0
    for path in order:
        eol = data.index(b"\n", at)
        size = int(data[at:eol].split()[2])
        out[path] = data[eol + 1: eol + 1 + size]
        at = eol + 1 + size + 1
    return out


def commits_between(vault: Vault, old: str, new: str) -> list[Commit]:
    """The commits reachable from ``new`` and not from ``old``, newest first, with the paths each touched."""
    sep, start = "\x1f", "\x1e"
    fmt = start + sep.join(["%H", "%an", "%aI", "%s", "%b"]) + sep  # the paths follow the last separator
    out = run_git(vault, "-c", "core.quotepath=off", "log", f"--format={fmt}", "--name-only", "--no-renames",
                  f"{old}..{new}").stdout
    commits: list[Commit] = []
    for chunk in out.split(start):
        if not chunk.strip():
            continue
        sha, author, date, subject, body, names = (chunk.split(sep, 5) + [""] * 6)[:6]
        changeset = None
        for line in body.splitlines():
            if line.startswith("changeset: "):
                changeset = line.split(":", 1)[1].strip() or None
        paths = [p for p in names.splitlines() if p.strip()]
        commits.append(Commit(sha=sha.strip(), author=author, date=date, subject=subject, changeset=changeset,
                              paths=paths))
    return commits


def commit_tree(vault: Vault, parent: str, files: dict[str, bytes | None], message: str,
                *, second_parent: str | None = None) -> str:
    """A commit of ``parent``'s tree with ``files`` replaced (None: removed), built in a temporary index.

    Neither the working tree nor the person's staging area is touched. With
    ``second_parent``, a merge commit.
    """
    with tempfile.TemporaryDirectory(prefix="wikitui-sync-") as tmp:
        env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
        run_git(vault, "read-tree", parent, env=env)
        modes: dict[str, str] = {}
        if files:
            for line in run_git(vault, "ls-tree", "-z", parent, "--", *files).stdout.split("\0"):
                meta, _, path = line.partition("\t")
                if path:
                    modes[path] = meta.split(" ")[0]
        lines = []
        for path, data in sorted(files.items()):
            if data is None:
                lines.append(f"0 {'0' * 40}\t{path}")
                continue
            blob = run_git(vault, "hash-object", "-w", f"--path={path}", "--stdin", input=data).stdout.strip()
            lines.append(f"{modes.get(path, '100644')} {blob}\t{path}")
        if lines:
            run_git(vault, "update-index", "--index-info",
                    input=("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"), env=env)
        tree = run_git(vault, "write-tree", env=env).stdout.strip()
    parents = ["-p", parent] + (["-p", second_parent] if second_parent else [])
    return run_git(vault, *identity_args(vault), "commit-tree", tree, *parents, "-m", message).stdout.strip()


def move_head(vault: Vault, new: str, old: str, paths: list[str], reason: str) -> None:
    """Point HEAD's branch at ``new`` (only if it is still at ``old``) and refresh the staging area for ``paths``."""
    run_git(vault, "update-ref", "-m", reason, "HEAD", new, old)
    if paths:
        run_git(vault, "reset", "-q", new, "--", *paths)
