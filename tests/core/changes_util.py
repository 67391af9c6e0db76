"""Small vaults and inspection helpers shared by the changeset, apply, undo and pending tests."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault

INDEX_HEAD = "# Index\n\nMy notes about this wiki.\n\n<!-- wikitui:index -->\n"


def page(title: str, body: str, *, type_: str = "concept", summary: str = "", updated: str | None = None) -> str:
    """A page with frontmatter."""
    fm = [f"title: {title}", f"type: {type_}", f"summary: {summary or title + ' in one line'}"]
    if updated:
        fm.append(f"updated: {updated}")
    return "---\n" + "\n".join(fm) + "\n---\n\n" + body


def make_vault(root: Path, pages: dict[str, str | bytes], *, raw: dict[str, str] | None = None, index: str | None = INDEX_HEAD) -> Path:
    """A vault at ``root`` with ``pages`` (paths relative to wiki/), a schema, an index and a log."""
    (root / "wiki").mkdir(parents=True)
    (root / "WIKI.md").write_text("# Schema\n\nConventions.\n", encoding="utf-8")
    (root / "raw").mkdir()
    for rel, text in (raw or {"chapter-01.md": "# Chapter 1\n\nOnce upon a time.\n"}).items():
        (root / "raw" / rel).write_text(text, encoding="utf-8")
    if index is not None:
        (root / "wiki" / "index.md").write_text(index, encoding="utf-8")
    (root / "wiki" / "log.md").write_text("# Log\n", encoding="utf-8")
    for rel, text in pages.items():
        path = root / "wiki" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_bytes(text.encode("utf-8"))
    return root


def open_vault(root: Path) -> tuple[Vault, LinkGraph]:
    """The vault and a freshly built link graph."""
    vault = Vault.open(root)
    return vault, LinkGraph.load(vault, use_cache=False, save_cache=False)


def tree_hashes(root: Path, *, skip_git: bool = True) -> dict[str, str]:
    """sha256 of every file under ``root`` (hidden ones included, .git excluded), by relative path."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if skip_git and ".git" in dirnames:
            dirnames.remove(".git")
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink():
                out[str(path.relative_to(root))] = "link->" + os.readlink(path)
            else:
                out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def git(root: Path, *args: str, check: bool = True) -> str:
    """Run git in ``root`` and return its stdout."""
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    if check and proc.returncode:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def git_init(root: Path) -> None:
    """Make ``root`` a git repository with everything committed (wikitui's state ignored)."""
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".wikitui/\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "initial")


def read(root: Path, rel: str) -> str:
    """A file's exact text (BOM and CRLF kept)."""
    return (root / rel).read_bytes().decode("utf-8")
