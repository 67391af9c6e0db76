"""The Workspace: one open vault, the one object the CLI, the TUI and the tests hold (DESIGN §7).

A :class:`Workspace` gathers what an open vault is: the :class:`~wikitui.core.vault.layout.Vault`,
its link graph, its search index (with an explicit :class:`IndexState`), the
pending changesets, and the two ways pages get written (apply and undo). It keeps
the graph and the index consistent with each other and with the disk: after an
apply or an undo, and when the watcher reports files changed outside
(:meth:`Workspace.files_changed`).

It works from a script with no event loop::

    ws = Workspace.open("~/notes")
    ws.load_graph()
    ws.update_index()
    for hit in ws.index.search("white rabbit"):
        print(hit.path)

The TUI keeps its threading model: its workers call these methods (loading the
graph, building the index, the watcher's events), and the UI thread reads
:attr:`Workspace.graph` and the index once they are there. Methods that may run in
two threads at once (the watcher's events and the index build) guard what they
share with a lock. Nothing here imports the agent, the UI, Whoosh or litellm at
import time: ``wikitui search`` builds a workspace too.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from wikitui.core.base.errors import UnknownPage
from wikitui.core.vault.layout import Vault

if TYPE_CHECKING:  # pragma: no cover
    import threading
    from collections.abc import Callable, Iterable

    from wikitui.core.changes.journal import RecoveryReport
    from wikitui.core.changes.model import Changeset
    from wikitui.core.changes.pending import PendingStore
    from wikitui.core.changes.transaction import ApplyResult
    from wikitui.core.live.server import SearchServer
    from wikitui.core.search.facade import SearchIndex
    from wikitui.core.search.results import UpdateStats
    from wikitui.core.vault.graph import LinkGraph


class IndexState(Enum):
    """Where the search index stands in this workspace."""

    PENDING = "pending"
    """Not caught up with the disk yet (the build has not started)."""
    BUILDING = "building"
    """Being brought up to date; changes seen meanwhile are kept for when it ends."""
    READY = "ready"
    """Current: changes go straight into it."""
    FAILED = "failed"
    """Could not be built (the reason is :attr:`Workspace.index_error`)."""
    OFF = "off"
    """Not kept in this session."""


@dataclass(slots=True)
class FilesChanged:
    """What :meth:`Workspace.files_changed` did.

    Attributes:
        paths: The vault-relative paths looked at (folders left out).
        warnings: One line per file that could not be read into the graph.
        index: What the index update did (None when the paths were kept for later).
    """

    paths: set[str]
    warnings: list[str]
    index: UpdateStats | None

    @property
    def index_busy(self) -> bool:
        """Another process held the index: the paths were kept; call :meth:`Workspace.retry_index` later."""
        return self.index is not None and self.index.busy


class Workspace:
    """One open vault with its link graph, search index and pending changesets.

    Args:
        vault: The vault (see :meth:`open` to open one by path).
    """

    def __init__(self, vault: Vault) -> None:
        import threading

        #: The vault.
        self.vault = vault
        #: The link graph (None until :meth:`load_graph`).
        self.graph: LinkGraph | None = None
        #: Where the search index stands.
        self.index_state = IndexState.PENDING
        #: Why the index could not be built (when :attr:`index_state` is FAILED).
        self.index_error = ""
        self._index: SearchIndex | None = None
        # Files changed while the index could not take them (building, or held by another process).
        self._unindexed: set[str] = set()
        self._lock = threading.Lock()
        #: What answers ``wikitui search`` on a socket while :meth:`keep_live` runs.
        self.live_server: SearchServer | None = None
        #: What the recovery run by :meth:`open` did (handed out once by :meth:`recover`).
        self.recovered: RecoveryReport | None = None
        #: Why an interrupted apply could not be recovered (a read-only vault), in one line; else None.
        self.recovery_problem: str | None = None

    @classmethod
    def open(cls, path: Path | str, *, recover: bool = True, as_is: bool = False) -> Workspace:
        """Open the vault at ``path`` (nothing is loaded yet).

        An apply or undo a kill interrupted is finished or rolled back first
        (DESIGN §8 "Recovery is complete"), so nothing that reads the workspace sees
        half of one; when no journal was left this costs one ``stat``.

        Args:
            recover: Whether to recover first (a test of recovery itself opens without).
            as_is: Open a folder that is not a vault as it is (``Vault.open``).

        Raises:
            NotAVault: ``path`` is missing or not a vault (and not opened as it is).
        """
        ws = cls(Vault.open(path, as_is=as_is))
        if recover:
            ws.recover_if_interrupted()
        return ws

    @property
    def root(self) -> Path:
        """The vault folder."""
        return self.vault.root

    # -------------------------------------------------------------------- graph
    def recover(self) -> RecoveryReport | None:
        """Finish or roll back an apply a crash interrupted, and sweep the temp files crashes left.

        Returns:
            What was done: by this call, or by the recovery :meth:`open` ran (reported once).
        """
        from wikitui.core.changes.recovery import recover

        report, self.recovered = self.recovered, None
        again = recover(self.vault)
        return report if report is not None else again

    def recover_if_interrupted(self) -> RecoveryReport | None:
        """Recover when an apply or undo left its journal (one ``stat`` otherwise), before anything reads the vault.

        Files the recovery put back are passed to :meth:`files_changed` when the graph
        is loaded. A vault that cannot be written is left as it is, and
        :attr:`recovery_problem` says so in one line.
        """
        from wikitui.core.changes.recovery import recover_before_reading

        report, problem = recover_before_reading(self.vault)
        if problem is not None:
            self.recovery_problem = problem
        if report is None:
            return None
        self.recovered = report
        if self.graph is not None and report.restored:
            self.files_changed(report.restored)
        return report

    def load_graph(self) -> LinkGraph:
        """Load the link graph (from its cache when files did not change) and keep it."""
        from wikitui.core.vault.graph import LinkGraph

        self.graph = LinkGraph.load(self.vault)
        return self.graph

    def require_graph(self) -> LinkGraph:
        """The link graph, loaded first if it is not yet."""
        return self.graph if self.graph is not None else self.load_graph()

    def find_page(self, name: str) -> str:
        """A page by path, title or alias.

        Raises:
            UnknownPage: no page has that name.
        """
        path = self.require_graph().find_page(name)
        if path is None:
            raise UnknownPage(f"no page named {name!r} (give a path, a title or an alias)")
        return path

    def files_changed(self, paths: Iterable[str], *, index: bool = True) -> FilesChanged:
        """The watcher's event: bring the graph, then the index, up to date with these changed paths.

        Each path was created, changed or deleted (folders are skipped). While the
        index is being built, the paths are kept and indexed when the build ends.
        With ``index`` False the index is left to the caller (:meth:`index_paths`,
        in a worker: a UI thread that just wrote a page does not wait for it).
        """
        graph = self.require_graph()
        seen: set[str] = set()
        warnings = []
        for rel in dict.fromkeys(paths):
            if Path(rel).suffix == "" and (self.vault.root / rel).is_dir():
                continue
            seen.add(rel)
            try:
                graph.update_path(rel)
            except Exception as exc:  # one unreadable file must not stop the others
                warnings.append(f"{rel}: {exc}")
        stats = self.index_paths(sorted(seen)) if seen and index else None
        return FilesChanged(seen, warnings, stats)

    def refresh(self) -> set[str]:
        """Re-read the whole vault (the graph rescans, the index takes what changed); returns the changed paths."""
        changed = self.require_graph().refresh()
        if changed:
            self.index_paths(sorted(changed))
        return changed

    # -------------------------------------------------------------------- index
    @property
    def index(self) -> SearchIndex:
        """The search index (opened on first use; see :attr:`index_state` for whether it is current)."""
        if self._index is None:
            from wikitui.core.search.facade import SearchIndex

            self._index = SearchIndex(self.vault)
        return self._index

    @property
    def search_index(self) -> SearchIndex | None:
        """The index once it is current (:attr:`index_state` READY), else None (the agent then opens its own)."""
        return self._index if self.index_state is IndexState.READY else None

    def update_index(self, progress: Callable[[int, int], None] | None = None,
                     cancel: Callable[[], bool] | None = None) -> UpdateStats:
        """Bring the index up to date here, in this thread (the CLI's way)."""
        self.index_state = IndexState.BUILDING
        stats = self.index.update(self.graph, progress=progress, cancel=cancel)
        if not stats.cancelled:
            self._ready()
        return stats

    def rebuild_index(self, progress: Callable[[int, int], None] | None = None) -> UpdateStats:
        """Index the whole vault again (``wikitui index --rebuild``)."""
        self.index_state = IndexState.BUILDING
        stats = self.index.rebuild(progress=progress)
        self._ready()
        return stats

    def build_index(self, progress: Callable[[int, int], object], stop: Callable[[], bool],
                    note: Callable[[str], None] | None = None) -> bool:
        """Catch the index up in a low-priority child process (the TUI's way), then make it current.

        Indexing in a thread would stall the UI (Whoosh holds the GIL for long
        stretches); see :mod:`wikitui.core.search.child_process`. ``note`` hears one
        line per source whose conversion was stopped (indexed by its name only).

        Returns:
            Whether the index is now current. False when ``stop()`` ended it first,
            or it failed (:attr:`index_state` FAILED, :attr:`index_error` says why).
        """
        from wikitui.core.search.child_process import run_indexing

        self.index_state = IndexState.BUILDING
        try:
            finished, error = run_indexing(self.vault.root, progress, stop, note)
            if error:
                raise RuntimeError(error)
            self.index  # opened here, in this worker: the UI thread never pays for it
        except Exception as exc:
            self.index_error = f"search index: {exc}"
            self.index_state = IndexState.FAILED
            return False
        if stop() or not finished:
            return False
        self._ready()
        return True

    def turn_index_off(self) -> None:
        """Keep no index in this session (changes are not indexed)."""
        self.index_state = IndexState.OFF

    def _ready(self) -> None:
        """The index is current: index what changed while it was not."""
        with self._lock:
            pending, self._unindexed = sorted(self._unindexed), set()
            self.index_state = IndexState.READY
        if pending:
            self.index_paths(pending)

    def index_paths(self, paths: list[str]) -> UpdateStats | None:
        """Index these files now, or keep them for when the index can take them (None then).

        When another process holds the index the files are kept too (the stats say
        ``busy``): :meth:`retry_index` tries them again.
        """
        with self._lock:
            if self.index_state is not IndexState.READY:
                if self.index_state in (IndexState.PENDING, IndexState.BUILDING):
                    self._unindexed.update(paths)
                return None
        stats = self.index.update_paths(paths)
        if stats.busy:
            with self._lock:
                self._unindexed.update(paths)
        return stats

    def retry_index(self) -> UpdateStats | None:
        """Index the files kept while another process held the index."""
        with self._lock:
            paths, self._unindexed = sorted(self._unindexed), set()
        return self.index_paths(paths) if paths else None

    # ------------------------------------------------------------------ changes
    @property
    def pending(self) -> PendingStore:
        """The pending changesets, on disk."""
        from wikitui.core.changes.pending import PendingStore

        return PendingStore(self.vault)

    def apply(self, changeset: Changeset, accepted: set[str] | None = None, *, rejected: set[str] | None = None,
              on_progress: Callable[[int, int], None] | None = None) -> ApplyResult:
        """Apply the accepted hunks of ``changeset`` (None: all); the graph and the index follow.

        See :func:`wikitui.core.changes.apply.apply_changeset` for what is written
        and raised. The index takes the touched files now when it is current, else
        when its build ends.
        """
        from wikitui.core.changes.apply import apply_changeset

        result = apply_changeset(self.vault, self.require_graph(), changeset, accepted, rejected=rejected,
                                 on_progress=on_progress)
        self._index_written(result)
        return result

    def undo(self, on_progress: Callable[[int, int], None] | None = None) -> ApplyResult:
        """Revert the last applied changeset; the graph and the index follow.

        Raises:
            NothingToUndo: no applied changeset is left.
            FileConflict: a file was edited since in a way the undo cannot merge.
        """
        from wikitui.core.changes.undo import undo_last

        result = undo_last(self.vault, self.require_graph(), on_progress=on_progress)
        self._index_written(result)
        return result

    def _index_written(self, result: ApplyResult) -> None:
        """The index takes what an apply or undo wrote; a failure is a warning: the pages are written."""
        if not (result.written or result.deleted):
            return
        try:
            self.index_paths(self.touched(result))
        except Exception as exc:
            result.warnings.append(f"search index not updated (run `wikitui index`): {exc}")

    def touched(self, result: ApplyResult) -> list[str]:
        """The files an apply or undo wrote or deleted, index.md and log.md included when it rewrote them."""
        paths = [*result.written, *result.deleted]
        extra = [self.vault.index_path] if result.index_updated else []
        if result.log_entry:
            extra.append(self.vault.log_path)
        return [*paths, *(p for p in extra if p not in paths)]

    # ---------------------------------------------------------------- live file
    def keep_live(self, stop: threading.Event) -> None:
        """Say in ``.wikitui/live`` that this workspace keeps the index current, until ``stop`` is set.

        Call it in a thread of its own once the index is READY and a watcher follows
        the vault: ``wikitui search`` then skips its own scan (:mod:`wikitui.core.live.heartbeat`).
        The heartbeat pauses while the index is not READY; the file goes when ``stop`` is set.
        Meanwhile a socket answers those searches from this warm index (:mod:`wikitui.core.live.server`).
        """
        import time

        from wikitui.core.live import heartbeat

        server = None
        started = time.time()  # the real start: each beat repeats it (only the heartbeat moves)
        try:
            while not stop.is_set():
                if self.index_state is IndexState.READY:
                    if server is None:  # it answers `wikitui search` itself from now on
                        from wikitui.core.live.server import serve_workspace

                        server = self.live_server = serve_workspace(self)
                    heartbeat.beat(self.vault, started=started, sock=server.path)
                stop.wait(heartbeat.BEAT_S)
        finally:
            heartbeat.release(self.vault)
            if server is not None:
                server.close()
            self.live_server = None

    def release_live(self) -> None:
        """This workspace no longer keeps the index current (it is closing): remove its live file and socket."""
        from wikitui.core.live import heartbeat

        heartbeat.release(self.vault)
        server = self.live_server
        if server is not None:
            server.close()

    def release_live_on_signals(self) -> Callable[[], None]:
        """Remove the live file and socket when the terminal closes (SIGHUP) or on SIGTERM; returns an undo.

        Call it from the main thread before running (the TUI, ``wikitui mcp``).
        """
        from wikitui.core.live import heartbeat

        return heartbeat.clean_up_on_signals(self.release_live)

    def kept_current_elsewhere(self) -> bool:
        """Whether another running workspace keeps this vault's index current (a fresh ``.wikitui/live``)."""
        from wikitui.core.live import heartbeat

        return heartbeat.is_live(self.vault)

    # ------------------------------------------------------------------ closing
    def close(self) -> None:
        """Close what the index holds open (it reopens on next use)."""
        if self._index is not None:
            self._index.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
