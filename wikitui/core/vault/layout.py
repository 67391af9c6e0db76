"""The vault: a folder of raw sources and wiki pages (DESIGN §2).

A vault is a folder holding ``wiki/``, ``WIKI.md``, ``.wikitui/`` or ``.obsidian/``.
Pages are the ``.md`` files under ``wiki/``; a vault with no ``wiki/`` folder (an
existing Obsidian vault) is a wiki rooted at the folder itself. Every dot-folder
and dot-file lies outside the vault's content. ``.wikitui/config.toml`` may name
other folders with ``wiki_dir`` and ``raw_dir``, and ``link_root`` the folder site-rooted links
start from (:mod:`~wikitui.core.vault.site_root`).

Any other folder may be opened *as it is* (issue 24.6): read as a wiki rooted at the
folder, with wikitui's own state (index, caches, sessions, pending changesets, undo
history) in the user's cache, ``platformdirs.user_cache_dir("wikitui")/vaults/<name>-<hash
of the folder's path>/``, so opening and reading it writes nothing to the folder; only
what the user applies is written there. A folder opened so once is remembered there
(:data:`AS_IS_MARK`) and opens again without asking.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path, PurePosixPath

from wikitui.core.base.errors import NotAVault, UnsafePath
from wikitui.core.vault.statedir import STATE_DIR

SCHEMA_FILE = "WIKI.md"
#: Files at the root of a vault without a wiki folder that are instructions for agents, not pages:
#: the schema, and the files other tools read (AGENTS.md, CLAUDE.md), which wikitui reads as the
#: schema when there is no WIKI.md.
ROOT_INSTRUCTIONS = frozenset({SCHEMA_FILE, "AGENTS.md", "CLAUDE.md"})
#: The file in a folder's cache state that says the user chose to open the folder as it is.
AS_IS_MARK = "opened-as-is"
#: What makes a folder a vault (any one of them).
VAULT_MARKERS = ("wiki", SCHEMA_FILE, STATE_DIR, ".obsidian")
# ".md" in any case, as a tuple for str.endswith: no lower-cased copy of each name.
_MD_SUFFIXES = (".md", ".MD", ".Md", ".mD")


@dataclass(slots=True)
class FileStat:
    """A file found in the vault: vault-relative path, mtime and size."""

    path: str
    mtime_ns: int
    size: int


_by_path = attrgetter("path")  # the sort key of scan(), without a Python call per file


class Vault:
    """A vault folder on disk and the rules for what lies in it.

    Args:
        root: The vault folder.
        wiki_dir: Override for the wiki folder (relative to ``root``).
        raw_dir: Override for the raw sources folder (relative to ``root``).
    """

    def __init__(self, root: Path | str, *, wiki_dir: str | None = None, raw_dir: str | None = None) -> None:
        self.root = Path(root).resolve()
        cfg = self.read_vault_config()
        wiki_name = wiki_dir or cfg.get("wiki_dir")
        raw_name = raw_dir or cfg.get("raw_dir") or "raw"
        if wiki_name is None:
            wiki_name = "wiki" if (self.root / "wiki").is_dir() else ""
        #: Wiki folder relative to the root ("" when the vault is the wiki).
        self.wiki_prefix = str(PurePosixPath(wiki_name)) if wiki_name not in ("", ".") else ""
        #: Raw folder relative to the root.
        self.raw_prefix = str(PurePosixPath(raw_name))
        configured = cfg.get("link_root")
        self._link_root_set = configured if isinstance(configured, str) else None
        self._link_root: str | None = None
        #: Whether wikitui's own state lives in the folder (``.wikitui/``); False for a folder
        #: opened as it is, whose state lives in the user's cache (see the module's text).
        self.state_in_folder = self._state_here(self.root)
        self._cache_state: Path | None = None

    @property
    def link_root(self) -> str:
        """The folder (vault-relative) site-rooted links resolve from when they do not resolve as written:
        the config's ``link_root``, else the content folder of a Quartz or Hugo site here; "" for none."""
        if self._link_root is None:
            from wikitui.core.vault.site_root import clean_root, detect_link_root

            given = self._link_root_set
            self._link_root = clean_root(given) if given is not None else detect_link_root(self.root)
        return self._link_root

    # ----------------------------------------------------------------- finding
    @staticmethod
    def is_vault(path: Path) -> bool:
        """Whether ``path`` holds any of the folders or files that make a vault."""
        return any((path / name).exists() for name in VAULT_MARKERS)

    @classmethod
    def _state_here(cls, root: Path) -> bool:
        """Whether the state lives in the folder: it has ``.wikitui/``, or it is a vault not opened as it is.

        A folder opened as it is keeps its state in the cache even once it holds
        ``.obsidian/`` or ``WIKI.md`` (opened in Obsidian since, or an applied change
        wrote the schema): its pending changesets and undo history stay where they are.
        ``wikitui init`` makes ``.wikitui/``, which moves it into the folder from then on.
        """
        if (root / STATE_DIR).exists():
            return True
        return cls.is_vault(root) and not cls.opened_as_is(root)

    @staticmethod
    def opened_as_is(path: Path | str) -> bool:
        """Whether the user chose to open the folder ``path`` (not a vault) as it is before."""
        return (read_only_cache_dir(Path(path)) / AS_IS_MARK).is_file()

    @classmethod
    def open(cls, path: Path | str, *, as_is: bool = False) -> "Vault":
        """Open the vault at ``path``.

        Args:
            path: The folder.
            as_is: Open a folder that is not a vault as it is (its state in the user's
                cache, nothing written to the folder), and remember the choice.

        Raises:
            NotAVault: ``path`` is missing, or not a vault and neither ``as_is`` nor
                opened as it is before.
        """
        p = Path(path).expanduser()
        if not p.is_dir():
            raise NotAVault(f"no such folder: {p}")
        if not cls.is_vault(p):
            if as_is:
                remember_as_is(p)
            elif not cls.opened_as_is(p):
                raise NotAVault(f"{p} is not a wikitui vault (no wiki/, WIKI.md, .wikitui/ or .obsidian/); "
                                f"run `wikitui init {p}` to make one, or `wikitui --as-is {p}` to open it as it is")
        vault = cls(p)
        from wikitui.core.vault.statedir import ensure_state_dir  # keeps an existing .wikitui/ out of `git status`

        ensure_state_dir(vault, create=False)
        return vault

    def read_vault_config(self) -> dict:
        """The vault's ``.wikitui/config.toml`` as a dict ({} when absent or unreadable)."""
        path = self.root / STATE_DIR / "config.toml"
        try:
            fh = path.open("rb")
        except OSError:
            return {}  # most vaults have none: skip importing the TOML parser
        import tomllib  # lazily: it costs a few ms of `wikitui search` start-up

        try:
            with fh:
                return tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError):
            return {}

    # ------------------------------------------------------------------ places
    @property
    def wiki_dir(self) -> Path:
        """The folder pages live in."""
        return self.root / self.wiki_prefix if self.wiki_prefix else self.root

    @property
    def raw_dir(self) -> Path:
        """The folder of immutable raw sources."""
        return self.root / self.raw_prefix

    @property
    def state_dir(self) -> Path:
        """``.wikitui/``: index, caches, sessions, pending changesets.

        For a folder opened as it is, the same in the user's cache (:func:`read_only_cache_dir`).
        """
        if self.state_in_folder:
            return self.root / STATE_DIR
        if self._cache_state is None:
            self._cache_state = read_only_cache_dir(self.root)
        return self._cache_state

    def state_rel(self, rel: str) -> str:
        """The path a file of the state folder goes by where vault-relative paths are kept (a journal).

        ``.wikitui/<rel>`` in the folder; for a folder opened as it is, the file's absolute
        path, which ``vault.root / path`` gives back as it is.
        """
        if self.state_in_folder:
            return f"{STATE_DIR}/{rel}"
        return (self.state_dir / rel).as_posix()

    def state_writable(self) -> bool:
        """Whether wikitui can write its own folder here (False: a read-only vault or mount).

        The kernel's own answer (``os.access``), so a read-only mount and a folder the
        user may not write both count, and nothing is created to find out. The folder
        may not exist yet: then the nearest folder above it that does must be writable.
        """
        folder = self.state_dir
        target = folder
        while not target.is_dir() and target.parent != target:
            target = target.parent
        if not os.access(target, os.W_OK | os.X_OK):
            return False
        index = folder / "index"
        return not index.is_dir() or os.access(index, os.W_OK | os.X_OK)

    @property
    def index_dir(self) -> Path:
        """The search index's folder: ``.wikitui/index/``, or in the user's cache where that cannot be written.

        A read-only vault is still searched: its index lives in
        ``platformdirs.user_cache_dir("wikitui")/vaults/<name>-<hash of the vault's path>/index``.
        """
        if self.state_writable():
            return self.state_dir / "index"
        return read_only_cache_dir(self.root) / "index"

    @property
    def index_path(self) -> str:
        """Vault-relative path of ``index.md``."""
        return self.join_wiki("index.md")

    @property
    def log_path(self) -> str:
        """Vault-relative path of ``log.md``."""
        return self.join_wiki("log.md")

    def join_wiki(self, rel: str) -> str:
        """A path relative to the wiki folder as a vault-relative path."""
        return f"{self.wiki_prefix}/{rel}" if self.wiki_prefix else rel

    def wiki_relative(self, path: str) -> str:
        """A vault-relative page path as a path relative to the wiki folder."""
        if self.wiki_prefix and path.startswith(self.wiki_prefix + "/"):
            return path[len(self.wiki_prefix) + 1 :]
        return path

    def abspath(self, rel: str) -> Path:
        """The absolute path of a vault-relative path (no confinement check)."""
        return self.root / rel

    def rel(self, path: Path | str) -> str:
        """A path inside the vault as a vault-relative posix path."""
        return Path(os.path.relpath(Path(path), self.root)).as_posix()

    def is_raw(self, rel: str) -> bool:
        """Whether a vault-relative path lies in raw/."""
        return rel == self.raw_prefix or rel.startswith(self.raw_prefix + "/")

    def is_page_path(self, rel: str) -> bool:
        """Whether a vault-relative path is (or would be) a wiki page."""
        parts = PurePosixPath(rel).parts
        if not rel.lower().endswith(".md") or any(p.startswith(".") for p in parts):
            return False
        if self.is_raw(rel):
            return False
        if self.wiki_prefix:
            return rel.startswith(self.wiki_prefix + "/")
        return rel not in ROOT_INSTRUCTIONS

    # ----------------------------------------------------------------- walking
    def scan(self) -> tuple[list[FileStat], list[FileStat], list[FileStat]]:
        """Walk the vault once.

        Returns:
            (pages, raw sources, other files), each sorted by path. Dot-folders,
            dot-files and, at the root, ``WIKI.md``, ``AGENTS.md`` and ``CLAUDE.md`` are not pages; symlinks are not followed.
        """
        # Every start of `wikitui search` and every load of the graph walks the whole
        # vault, so the per-file work is kept to the stat it needs: a file's kind
        # follows from its folder (worked out once per folder), a ".md" suffix is
        # tested without lower-casing the name, and the three lists are sorted by a
        # C key function.
        pages: list[FileStat] = []
        raws: list[FileStat] = []
        others: list[FileStat] = []
        stack = [(str(self.root), "")]
        raw_prefix = self.raw_prefix + "/"
        wiki_prefix = self.wiki_prefix + "/" if self.wiki_prefix else ""
        scandir = os.scandir
        while stack:
            folder, rel_folder = stack.pop()
            try:
                it = scandir(folder)
            except OSError:
                continue
            # A path lies under "raw/" (or the wiki folder) exactly when its folder does:
            # both prefixes end with "/", and a file name holds none.
            if rel_folder.startswith(raw_prefix):
                out = raws
            elif rel_folder.startswith(wiki_prefix):
                out = pages
            else:
                out = others
            with it:
                for entry in it:
                    name = entry.name
                    if name[0] == ".":
                        continue
                    try:
                        if not entry.is_file(follow_symlinks=False):
                            if entry.is_dir(follow_symlinks=False):
                                stack.append((entry.path, f"{rel_folder}{name}/"))
                            continue
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    fs = FileStat(rel_folder + name, st.st_mtime_ns, st.st_size)
                    if out is not pages or (name.endswith(_MD_SUFFIXES) and (rel_folder or name not in ROOT_INSTRUCTIONS)):
                        out.append(fs)
                    else:
                        others.append(fs)
        pages.sort(key=_by_path)
        raws.sort(key=_by_path)
        others.sort(key=_by_path)
        return pages, raws, others

    # -------------------------------------------------------------- confinement
    def content_target(self, path: Path) -> str | None:
        """Where ``path`` really leads, vault-relative, when that is part of the vault's content; else None.

        Symlinks are followed only to readable pages and sources: a target outside
        the vault, or in a hidden file or folder (``.env``, ``.git/``, ``.wikitui/``), is not content.
        """
        try:
            real = Path(os.path.realpath(path))
            rel = real.relative_to(self.root)
        except (OSError, ValueError):
            return None
        if not rel.parts or any(part.startswith(".") for part in rel.parts):
            return None
        return rel.as_posix()

    def plain_file(self, rel: str) -> os.stat_result | None:
        """The ``lstat`` of a vault file reached without a symlink (as :meth:`scan` lists files), else None.

        A symlink, or a path through a symlinked folder, is not a page or a source
        for the graph and the index, whatever it points at (the scan does not follow them either).
        """
        path = os.path.join(self.root, rel)
        try:
            st = os.lstat(path)
        except (OSError, ValueError):
            return None
        if not (st.st_mode & 0o170000 == 0o100000):  # a regular file, not a link
            return None
        if os.path.realpath(path) != os.path.normpath(path):  # a symlinked folder on the way
            return None
        return st

    def writable_path(self, rel: str) -> Path:
        """Check that the vault-relative ``rel`` may be written, and return its absolute path.

        Writable: files under the wiki folder and ``WIKI.md``; never raw/, anything
        outside the vault (``..``, absolute paths, symlinks leading out), dot-folders,
        or a path through a symlink.

        Raises:
            UnsafePath: with a one-line reason.
        """
        if not rel or "\x00" in rel:
            raise UnsafePath("empty or invalid path")
        p = PurePosixPath(rel.replace("\\", "/"))
        if p.is_absolute() or (len(rel) > 1 and rel[1] == ":"):
            raise UnsafePath(f"{rel}: absolute paths are not allowed")
        if any(part == ".." for part in p.parts):
            raise UnsafePath(f"{rel}: '..' is not allowed")
        norm = str(p)
        if any(part.startswith(".") for part in p.parts):
            raise UnsafePath(f"{rel}: hidden files and folders are not writable")
        if self.is_raw(norm):
            raise UnsafePath(f"{rel}: raw/ is read-only")
        if norm != SCHEMA_FILE and self.wiki_prefix and not norm.startswith(self.wiki_prefix + "/"):
            raise UnsafePath(f"{rel}: only {self.wiki_prefix}/ and {SCHEMA_FILE} are writable")
        target = self.root / norm
        # No component may be a symlink, and the resolved path must stay inside.
        cur = self.root
        for part in p.parts:
            cur = cur / part
            if cur.is_symlink():
                raise UnsafePath(f"{rel}: writing through a symlink is not allowed")
        resolved = target.resolve()
        if not resolved.is_relative_to(self.root):
            raise UnsafePath(f"{rel}: outside the vault")
        if resolved.is_relative_to(self.raw_dir.resolve()):
            raise UnsafePath(f"{rel}: raw/ is read-only")
        return target


def remember_as_is(root: Path | str) -> None:
    """Note in the user's cache that the folder ``root`` is opened as it is (nothing goes into the folder)."""
    from wikitui.core.vault.files import atomic_write

    folder = read_only_cache_dir(Path(root))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(folder / AS_IS_MARK, f"{os.path.realpath(root)}\n")
    except OSError:
        pass  # a cache that cannot be written: the folder is opened this once


def read_only_cache_dir(root: Path) -> Path:
    """Where a read-only vault's index goes, and a folder opened as it is keeps all its state: the user's cache.

    One folder per vault path (its real path's hash), named after the vault's folder.
    """
    import hashlib
    import re

    import platformdirs  # deferred: only a read-only vault needs it

    real = Path(os.path.realpath(root))
    key = hashlib.sha256(os.fsencode(real)).hexdigest()[:16]
    name = re.sub(r"[^\w.-]+", "-", real.name).strip("-.")[:40] or "vault"
    return Path(platformdirs.user_cache_dir("wikitui")) / "vaults" / f"{name}-{key}"
