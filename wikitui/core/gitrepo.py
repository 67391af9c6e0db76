"""Committing wikitui's writes when the vault is a git repository (DESIGN §4).

Each accepted changeset (and each undo) becomes one commit holding exactly the
files wikitui wrote: paths are passed as a pathspec, so whatever else the user has
changed or staged stays out of it. Git is optional: a vault without ``.git`` or a
machine without ``git`` simply gets no commits.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from wikitui.core.errors import WikituiError
from wikitui.core.vault import Vault

#: Used only when the repository has no identity configured.
FALLBACK_IDENTITY = ("wikitui", "wikitui@localhost")
_TIMEOUT = 120


class GitError(WikituiError):
    """A git command failed; the message carries git's own first line."""


def is_git_vault(vault: Vault) -> bool:
    """Whether the vault folder is a git work tree root and ``git`` is on PATH."""
    return (vault.root / ".git").exists() and shutil.which("git") is not None


def _git(vault: Vault, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    proc = subprocess.run(
        ["git", *args], cwd=vault.root, env=env, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=_TIMEOUT,
    )
    if check and proc.returncode != 0:
        first = (proc.stderr or proc.stdout).strip().splitlines()
        raise GitError(f"git {args[0]} failed: {first[0] if first else f'exit status {proc.returncode}'}")
    return proc


def _identity_args(vault: Vault) -> list[str]:
    """``-c user.name=... -c user.email=...`` when the repository has no identity of its own."""
    name = _git(vault, "config", "user.name", check=False).stdout.strip()
    email = _git(vault, "config", "user.email", check=False).stdout.strip()
    args: list[str] = []
    if not name:
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

