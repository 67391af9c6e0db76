"""The eval's vaults: a copy of the sample with the planted problems (or of the invented world), then one copy
per task.

:func:`prepare_base` copies the built-in sample vault into a temporary folder,
plants the page problems of :mod:`.planted`, regenerates index.md's catalog (so the
planted page is listed, as after any apply) and builds the link-graph cache and the
search index once; :func:`prepare_world` copies the invented-world vault and indexes it
(its facts are planted in its own sources already). :func:`task_vault` copies that base for one task (its index comes
along, so a task starts without re-indexing) and adds the raw sources the task
ingests. Nothing here ever writes outside the folders it is given.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from wikitui.core.eval import planted, world
from wikitui.core.eval.sample import sample_vault_dir, world_vault_dir
from wikitui.core.vault.files import atomic_write


class FixtureError(RuntimeError):
    """The sample vault no longer holds a text the eval plants a problem into (the eval needs updating)."""


def _plant_edit(root: Path, edit: planted.PageEdit) -> None:
    path = root / edit.path
    text = path.read_text("utf-8")
    if text.count(edit.old) != 1:
        raise FixtureError(f"eval fixture: {edit.path} no longer contains {edit.old!r} exactly once")
    atomic_write(path, text.replace(edit.old, edit.new))


def _regenerate_index(root: Path) -> None:
    """index.md's catalog as an apply would leave it (the planted pages listed, their summaries current)."""
    from wikitui.core.vault.catalog import render_index
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    vault = Vault.open(root)
    graph = LinkGraph.load(vault, use_cache=False, save_cache=False)
    index = root / vault.index_path
    text = render_index(vault, graph, index.read_text("utf-8"))
    if text is not None:
        atomic_write(index, text)


def _build_caches(root: Path) -> None:
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.search.facade import SearchIndex
    from wikitui.core.vault.layout import Vault

    vault = Vault.open(root)
    graph = LinkGraph.load(vault, use_cache=False)
    with SearchIndex(vault) as index:
        index.update(graph)


def prepare_base(dest: Path, source: Path | None = None) -> Path:
    """Copy the sample vault to ``dest`` (which must not exist), plant the problems and index it.

    Args:
        dest: The new folder.
        source: The vault to copy (default: the built-in sample).

    Returns:
        ``dest``.

    Raises:
        FixtureError: The sample has changed in a way the planted problems no longer fit.
    """
    source = source or sample_vault_dir()
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".wikitui", ".git"))
    for edit in planted.PAGE_EDITS:
        _plant_edit(dest, edit)
    atomic_write(dest / planted.ORPHAN_PAGE, planted.ORPHAN_TEXT)
    _regenerate_index(dest)
    _build_caches(dest)
    return dest


def prepare_world(dest: Path, source: Path | None = None) -> Path:
    """Copy the invented-world vault to ``dest`` (which must not exist) and index it.

    Args:
        dest: The new folder.
        source: The vault to copy (default: the built-in one).

    Returns:
        ``dest``.
    """
    source = source or world_vault_dir()
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".wikitui", ".git", "__pycache__", "__init__.py"),
                    copy_function=shutil.copyfile)
    _build_caches(dest)
    return dest


#: How each of the eval's vaults is prepared, by the name a task gives (see :attr:`.tasks.Task.vault`).
PREPARE = {"alice": prepare_base, "world": prepare_world}


def source_text(rel: str) -> str:
    """The text of the planted source at vault path ``rel`` (the sample's or the world's)."""
    if rel in planted.SOURCES:
        return planted.SOURCES[rel]
    return world.sources()[rel]


def task_vault(base: Path, dest: Path, sources: tuple[str, ...] = ()) -> Path:
    """A copy of ``base`` at ``dest`` with the planted raw ``sources`` (vault paths) added.

    Returns:
        ``dest``.
    """
    shutil.copytree(base, dest, symlinks=True)
    for rel in sources:
        atomic_write(dest / rel, source_text(rel))
    return dest
