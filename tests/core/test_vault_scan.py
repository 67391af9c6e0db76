"""``Vault.scan()`` sorts every file of the vault into pages, raw sources and the rest.

scan() takes shortcuts for speed (a file's kind follows from its folder, ".md" is
matched without lower-casing); each test compares it with a plain walk that applies
the rules file by file: dot-files and dot-folders skipped, symlinks and special files
skipped, raw sources under ``raw/``, pages the ``.md`` files of the wiki folder except
``WIKI.md``, each list sorted by path.
"""

from __future__ import annotations

import os
import stat

import pytest

from tests.conftest import SAMPLE, corpus_path
from wikitui.core.vault.layout import FileStat, Vault


def reference_scan(vault: Vault) -> tuple[list[FileStat], list[FileStat], list[FileStat]]:
    """The rules applied one file at a time, over os.walk."""
    pages, raws, others = [], [], []
    for folder, dirs, files in os.walk(vault.root):  # does not descend into symlinked folders
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            if name.startswith(".") or not stat.S_ISREG(st.st_mode):
                continue
            rel = vault.rel(path)
            fs = FileStat(rel, st.st_mtime_ns, st.st_size)
            if rel.startswith(vault.raw_prefix + "/"):
                raws.append(fs)
            elif vault.is_page_path(rel):
                pages.append(fs)
            else:
                others.append(fs)
    return sorted(pages, key=lambda f: f.path), sorted(raws, key=lambda f: f.path), sorted(others, key=lambda f: f.path)


def make_tree(root, rels: list[str]) -> None:
    for rel in rels:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rel, encoding="utf-8")


# Names chosen to trip a shortcut: a case-mixed ".md", folders whose names begin like
# "wiki" or "raw", a raw/ inside the wiki, a WIKI.md below the root, and names that sort
# differently as a whole path than one folder at a time ("a b.md" < "a-b.md" < "a.md" < "a/").
TREE = [
    "wiki/a.md", "wiki/a b.md", "wiki/a-b.md", "wiki/a/b.md", "wiki/a0.md", "wiki/B.MD", "wiki/c.Md",
    "wiki/d.mD", "wiki/é.md", "wiki/Zeta.md", "wiki/notes.md.txt", "wiki/md", "wiki/.hidden.md",
    "wiki/.obsidian/x.md", "wiki/raw/inside.md", "wiki/sub/WIKI.md", "wiki/sub/deeper/x.md", "wiki/fig.png",
    "raw/paper.pdf", "raw/deep/x.md", "raw/a b/y.md", "raw.md", "rawish/x.md", "raw-2/x.md",
    "WIKI.md", "wiki.md", "index.md", "wiki b/x.md", "wiki-2/x.md", ".trash/x.md", "Notes/é/ü.md",
]


def with_links(wiki) -> None:
    """Symlinks (to a file, to a folder) and a named pipe: none is part of the vault."""
    os.symlink(wiki / "a.md", wiki / "link.md")
    os.symlink(wiki / "sub", wiki / "linked-folder")
    if hasattr(os, "mkfifo"):
        os.mkfifo(wiki / "pipe.md")


def test_scan_in_a_vault_with_a_wiki_folder_follows_the_rules(tmp_path):
    make_tree(tmp_path, TREE)
    with_links(tmp_path / "wiki")
    vault = Vault.open(tmp_path)
    pages, raws, others = vault.scan()
    assert (pages, raws, others) == reference_scan(vault)
    assert [f.path for f in pages] == [
        "wiki/B.MD", "wiki/Zeta.md", "wiki/a b.md", "wiki/a-b.md", "wiki/a.md", "wiki/a/b.md", "wiki/a0.md",
        "wiki/c.Md", "wiki/d.mD", "wiki/raw/inside.md", "wiki/sub/WIKI.md", "wiki/sub/deeper/x.md", "wiki/é.md",
    ]
    assert [f.path for f in raws] == ["raw/a b/y.md", "raw/deep/x.md", "raw/paper.pdf"]
    assert "WIKI.md" in [f.path for f in others] and "raw.md" in [f.path for f in others]
    st = os.stat(tmp_path / "wiki" / "a.md")
    assert FileStat("wiki/a.md", st.st_mtime_ns, st.st_size) in pages


def test_scan_in_a_vault_that_is_the_wiki_follows_the_rules(tmp_path):
    make_tree(tmp_path, [rel.removeprefix("wiki/") for rel in TREE] + [".obsidian/app.json"])
    with_links(tmp_path)
    vault = Vault.open(tmp_path)
    assert vault.wiki_prefix == ""
    pages, raws, others = vault.scan()
    assert (pages, raws, others) == reference_scan(vault)
    names = [f.path for f in pages]
    assert "WIKI.md" not in names and "sub/WIKI.md" in names and "raw.md" in names and "B.MD" in names
    assert [f.path for f in raws] == ["raw/a b/y.md", "raw/deep/x.md", "raw/inside.md", "raw/paper.pdf"]


def test_scan_with_configured_folders_follows_the_rules(tmp_path):
    make_tree(tmp_path, TREE + ["notes/n.md", "sources/raw/s.md", "sources/rawer/t.md", "sources/raw.md"])
    (tmp_path / ".wikitui").mkdir()
    (tmp_path / ".wikitui" / "config.toml").write_text('wiki_dir = "notes"\nraw_dir = "sources/raw"\n', encoding="utf-8")
    vault = Vault.open(tmp_path)
    pages, raws, others = vault.scan()
    assert (pages, raws, others) == reference_scan(vault)
    assert [f.path for f in pages] == ["notes/n.md"]
    assert [f.path for f in raws] == ["sources/raw/s.md"]


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["sample", "vault-small", "vault-large", "alice"])
def test_scan_of_the_real_vaults_follows_the_rules(name):
    vault = Vault(SAMPLE if name == "sample" else corpus_path(name))  # scan() only reads
    pages, raws, others = vault.scan()
    assert (pages, raws, others) == reference_scan(vault)
    assert len(pages) + len(raws) >= {"sample": 55, "vault-small": 1400, "vault-large": 2700, "alice": 12}[name]
