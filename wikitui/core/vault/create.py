"""``wikitui init``: lay out a new vault (DESIGN §2) without touching anything that exists.

Creates ``raw/``, ``wiki/`` with an ``index.md`` (carrying the catalog marker) and a
``log.md``, the default ``WIKI.md`` schema, ``.wikitui/`` (with a ``.gitignore`` of its
own holding ``*``) and a ``.gitignore`` line for it. New files get the usual
``0666 & ~umask`` permissions. An existing Obsidian vault with no ``wiki/`` folder keeps its notes where they are:
its index.md and log.md go at its root, since that is where its wiki is.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from wikitui.core.vault.catalog import INDEX_MARKER
from wikitui.core.vault.files import atomic_write, decode_text
from wikitui.core.vault.layout import SCHEMA_FILE, Vault
from wikitui.core.vault.log_md import LOG_HEADING
from wikitui.core.vault.statedir import GITIGNORE as STATE_GITIGNORE
from wikitui.core.vault.statedir import STATE_DIR

GITIGNORE_LINE = f"{STATE_DIR}/"

INDEX_TEMPLATE = f"""# Index

Every page of this wiki with its one-line summary, grouped by type. wikitui writes everything below the
marker line from the pages' frontmatter; the text above it is yours. Lines you write below it are moved
above it the next time the catalog is written.

{INDEX_MARKER}
"""


def default_schema() -> str:
    """The default ``WIKI.md`` shipped in ``wikitui/data/WIKI.md``."""
    return resources.files("wikitui").joinpath("data", SCHEMA_FILE).read_text(encoding="utf-8")


def _wiki_prefix(root: Path) -> str:
    """Where the wiki lives: ``wiki/``, unless the folder is an Obsidian vault without one (or config says)."""
    if (root / "wiki").exists():
        return "wiki"
    if (root / ".obsidian").is_dir() or (root / STATE_DIR / "config.toml").is_file():
        return Vault(root).wiki_prefix
    return "wiki"


def _gitignore_has_state_dir(text: str) -> bool:
    wanted = {STATE_DIR, f"{STATE_DIR}/", f"/{STATE_DIR}", f"/{STATE_DIR}/", f"{STATE_DIR}/*", f"/{STATE_DIR}/*"}
    return any(line.strip() in wanted for line in text.splitlines())


def init_vault(path: Path | str) -> list[Path]:
    """Create the vault layout in ``path`` (made if missing), never overwriting a file.

    Running it twice changes nothing the second time. An existing ``.gitignore``
    gets the ``.wikitui/`` line appended only when it lacks it.

    Returns:
        The absolute paths created (or, for ``.gitignore``, appended to), in creation order.
    """
    root = Path(path).expanduser()
    created: list[Path] = []
    if not root.exists():
        root.mkdir(parents=True)
        created.append(root.resolve())
    root = root.resolve()
    prefix = _wiki_prefix(root)
    wiki = root / prefix if prefix else root

    def make_dir(d: Path) -> None:
        if not d.is_dir():
            d.mkdir(parents=True)
            created.append(d)

    def make_file(f: Path, text: str) -> None:
        # A dangling symlink is not exists(); never write through it either.
        if f.exists() or f.is_symlink():
            return
        atomic_write(f, text)
        created.append(f)

    make_dir(root / "raw")
    make_dir(wiki)
    make_file(wiki / "index.md", INDEX_TEMPLATE)
    make_file(wiki / "log.md", LOG_HEADING + "\n")
    make_file(root / SCHEMA_FILE, default_schema())
    make_dir(root / STATE_DIR)
    make_file(root / STATE_DIR / ".gitignore", STATE_GITIGNORE)  # .wikitui/ stays out of git status

    gitignore = root / ".gitignore"
    if gitignore.is_symlink():
        return created
    if not gitignore.exists():
        make_file(gitignore, GITIGNORE_LINE + "\n")
    else:
        text, _ok = decode_text(gitignore.read_bytes())
        if not _gitignore_has_state_dir(text):
            sep = "" if not text or text.endswith("\n") else "\n"
            atomic_write(gitignore, text + sep + GITIGNORE_LINE + "\n")
            created.append(gitignore)
    return created
