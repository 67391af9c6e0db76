"""Committing wikitui's writes when the vault is a git repository (DESIGN §4, §8 "Git").

Each accepted changeset (and each undo) becomes one commit holding exactly the
files wikitui wrote: paths are passed as a pathspec, so whatever else the user has
changed or staged stays out of it. When a file the changeset touches held the
person's own uncommitted edits, those are committed first, as their own commit
(``wikitui: your edits before <id>``), as aider does: undoing the agent's commit in
git then never undoes the person's work. Git is optional: a vault without ``.git``
or a machine without ``git`` simply gets no commits.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from typing import Any, TypedDict

from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.layout import Vault

#: Used only when the repository has no identity configured.
FALLBACK_IDENTITY = ("wikitui", "wikitui@localhost")
_TIMEOUT = 120
#: How long a git command is retried while another git process holds its lock file (seconds).
LOCK_RETRY_S = 10.0


class GitError(WikituiError):
    """A git command failed; the message carries git's own first line."""


def is_git_vault(vault: Vault) -> bool:
    """Whether the vault folder is a git work tree root and ``git`` is on PATH."""
    return (vault.root / ".git").exists() and shutil.which("git") is not None


def _held_by_other_git(stderr: str) -> bool:
    """Whether git failed only because another git process holds one of its lock files (``index.lock``, a ref's)."""
    return ".lock': File exists" in stderr or "Another git process seems to be running" in stderr


def _git(vault: Vault, *args: str, check: bool = True, input: bytes | None = None,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = dict(os.environ, GIT_TERMINAL_PROMPT="0", LC_ALL="C", **(env or {}))
    deadline = time.monotonic() + LOCK_RETRY_S
    pause = 0.02
    while True:
        proc: subprocess.CompletedProcess[Any] = subprocess.run(  # (its bytes become text below)
            ["git", *args], cwd=vault.root, env=full_env, input=input,
            stdin=subprocess.DEVNULL if input is None else None, capture_output=True, timeout=_TIMEOUT,
        )
        proc.stdout = proc.stdout.decode("utf-8", "surrogateescape")
        proc.stderr = proc.stderr.decode("utf-8", "replace")
        # The person's own git (a commit, an editor's git plugin) holding index.lock for a moment: wait for it,
        # within a bound, instead of leaving wikitui's files written and not committed.
        if proc.returncode == 0 or not _held_by_other_git(proc.stderr) or time.monotonic() >= deadline:
            break
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
    if check and proc.returncode != 0:
        first = (proc.stderr or proc.stdout).strip().splitlines()
        raise GitError(f"git {args[0]} failed: {first[0] if first else f'exit status {proc.returncode}'}")
    return proc


def run_git(vault: Vault, *args: str, check: bool = True, input: bytes | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``git ARGS`` in the vault (no prompt, C locale, a time limit); stdout as text (surrogateescape, so
    its bytes come back exactly). For readers of the history and for sync.

    Raises:
        GitError: With ``check``, git exited non-zero (the message carries git's first line).
    """
    return _git(vault, *args, check=check, input=input, env=env)


def identity_args(vault: Vault) -> list[str]:
    """``-c user.name=...`` for the config's ``author``, and a fallback identity where the repository has none."""
    return _identity_args(vault)


def _identity_args(vault: Vault) -> list[str]:
    """``-c user.name=...`` for the config's ``author``, and a fallback identity where the repository has none."""
    from wikitui.core.config.settings import load_settings

    try:
        configured = load_settings(vault).author
    except Exception:  # noqa: BLE001 - an unreadable config is reported elsewhere; git's identity stands
        configured = None
    name = _git(vault, "config", "user.name", check=False).stdout.strip()
    email = _git(vault, "config", "user.email", check=False).stdout.strip()
    args: list[str] = []
    if configured and configured.strip():  # the config's `author` names wikitui's commits as it names log entries
        args += ["-c", f"user.name={' '.join(configured.split())}"]
    elif not name:
        args += ["-c", f"user.name={FALLBACK_IDENTITY[0]}"]
    if not email:
        args += ["-c", f"user.email={FALLBACK_IDENTITY[1]}"]
    return args


def commit_paths(vault: Vault, paths: list[str], subject: str, body: str = "") -> str | None:
    """Commit exactly ``paths`` (written or deleted) with the given message.

    Args:
        vault: A vault that :func:`is_git_vault`.
        paths: Vault-relative paths wikitui wrote or removed.
        subject: The first line of the message.
        body: The message body (the changeset id).

    Returns:
        The new commit's hash, or None when the paths hold no change to commit.

    Raises:
        GitError: A git command failed (a hook refused, the index is locked...).
    """
    wanted = sorted(set(paths))
    if not wanted:
        return None
    listed = _git(vault, "ls-files", "-z", "--", *wanted).stdout
    tracked = {p for p in listed.split("\0") if p}
    # A path that neither exists nor is tracked (created, then removed) is nothing to git.
    todo = [p for p in wanted if p in tracked or (vault.root / p).exists()]
    if not todo:
        return None
    _git(vault, "add", "-A", "--", *todo)
    if _git(vault, "diff", "--cached", "--quiet", "--", *todo, check=False).returncode == 0:
        return None
    message = ["-m", subject] + (["-m", body] if body else [])
    _git(vault, *_identity_args(vault), "commit", "-q", *message, "--", *todo)
    return _git(vault, "rev-parse", "HEAD").stdout.strip()



def dirty_paths(vault: Vault, paths: list[str]) -> list[str]:
    """The paths among ``paths`` whose files differ from HEAD (edited, new and untracked, or deleted).

    Raises:
        GitError: ``git status`` failed.
    """
    if not paths:
        return []
    out = _git(vault, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames",
               "--ignored=no", "--", *sorted(set(paths))).stdout
    wanted = set(paths)
    return sorted({item[3:] for item in out.split("\0") if len(item) > 3 and item[3:] in wanted})


def _head(vault: Vault) -> str | None:
    proc = _git(vault, "rev-parse", "--verify", "-q", "HEAD", check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def commit_contents(vault: Vault, files: dict[str, bytes | None], subject: str) -> str | None:
    """Commit the given bytes for those paths on top of HEAD (None: the path removed).

    Neither the working tree nor the person's staging area is touched: the commit
    is built in a temporary index. Used for the person's own edits, whose bytes the
    journal kept from before wikitui wrote over them.

    Returns:
        The new commit's hash, or None when the bytes are what HEAD already holds.

    Raises:
        GitError: A git command failed.
    """
    if not files:
        return None
    import tempfile

    head = _head(vault)
    with tempfile.TemporaryDirectory(prefix="wikitui-git-") as tmp:
        env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
        _git(vault, "read-tree", *([head] if head else ["--empty"]), env=env)
        modes = {}
        if head:
            for line in _git(vault, "ls-tree", "-z", head, "--", *files).stdout.split("\0"):
                meta, _, path = line.partition("\t")
                if path:
                    modes[path] = meta.split(" ")[0]
        lines = []
        for path, data in sorted(files.items()):
            if data is None:
                lines.append(f"0 {'0' * 40}\t{path}")
                continue
            blob = _git(vault, "hash-object", "-w", f"--path={path}", "--stdin", input=data).stdout.strip()
            lines.append(f"{modes.get(path, '100644')} {blob}\t{path}")
        _git(vault, "update-index", "--index-info", input=("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"),
             env=env)
        tree = _git(vault, "write-tree", env=env).stdout.strip()
    if head and tree == _git(vault, "rev-parse", f"{head}^{{tree}}").stdout.strip():
        return None
    commit = _git(vault, *_identity_args(vault), "commit-tree", tree, *(["-p", head] if head else []), "-m", subject).stdout.strip()
    _git(vault, "update-ref", "-m", f"commit: {subject}", "HEAD", commit, head or "")
    return commit


def your_edits_subject(changeset_id: str) -> str:
    """The message of the commit holding the person's edits made before a changeset."""
    return f"wikitui: your edits before {changeset_id}"


class CommitRecord(TypedDict):
    """The commits an apply is to make, kept in its journal (JSON) until they are made (see :func:`finish_commits`).

    Attributes:
        paths: The vault-relative paths wikitui's commit holds.
        subject: Its message's first line.
        body: The rest of its message.
        id: The changeset's id.
        before: The paths that held the person's uncommitted edits before wikitui wrote them.
    """

    paths: list[str]
    subject: str
    body: str
    id: str
    before: list[str]


def finish_commits(vault: Vault, commit: CommitRecord, olds: dict[str, bytes | None]) -> tuple[str | None, str | None]:
    """Make an apply's commits: the person's earlier edits first (when any), then wikitui's.

    Safe to run again after a crash: edits already committed are not committed twice.

    Args:
        vault: A git vault.
        commit: ``paths``, ``subject``, ``body``, ``id`` and ``before`` (the paths that
            held uncommitted edits before wikitui wrote them).
        olds: Those paths' bytes before wikitui wrote them.

    Returns:
        (the commit of the person's edits or None, wikitui's commit or None).

    Raises:
        GitError: A git command failed.
    """
    paths = list(commit.get("paths", []))
    before = [p for p in commit.get("before", []) if p in paths and p in olds]
    mine = None
    if before:
        # A path already committed (by a finished run, or by hand since a crash) is not committed again.
        last = _git(vault, "log", "-1", "--format=%s", check=False).stdout.strip()
        if last != your_edits_subject(commit.get("id", "?")) and last != commit.get("subject"):
            mine = commit_contents(vault, {p: olds[p] for p in before}, your_edits_subject(commit.get("id", "?")))
    return mine, commit_paths(vault, paths, commit.get("subject", "wikitui"), commit.get("body", ""))

