"""The wikitui application: the vault, its link graph and search index, and the workers that keep them current.

The first screen appears at once; the link graph loads in a thread worker (fast:
it is cached), the search index catches up in another with visible progress, and
a third watches the vault so edits made elsewhere show up within a second. The
screens turn key presses into calls on this state (see :mod:`wikitui.ui.screens.main`).

:func:`make_app` builds the app for the command line and the tests alike.
"""

from __future__ import annotations

import gc
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.signal import Signal

from wikitui.core.vault.graph import LinkGraph
from wikitui.core.navigation import History
from wikitui.core.vault.layout import Vault
from wikitui.ui.early_keys import EarlyKeys, KeyHandled
from wikitui.ui.messages import IndexProgress, VaultChanged
from wikitui.ui.screens.main import MainScreen
from wikitui.ui.state import VaultState
from wikitui.ui.themes import VARIABLE_DEFAULTS, load_themes, pick_theme, save_theme, saved_theme
from wikitui.ui.widgets.page_tree import PreparedPages, prepare_pages

if TYPE_CHECKING:
    from wikitui.ui.widgets.chat_pane import ChatPane

#: Milliseconds watchfiles gathers changes before reporting them.
WATCH_DEBOUNCE_MS = 150
#: Seconds before files are indexed again when another process held the index (``wikitui index`` in a terminal).
INDEX_RETRY_S = 1.0


def _ignored(vault: Vault, path: str) -> bool:
    """Whether a changed file lies outside the vault's content (dot-folders: .wikitui/, .git/...)."""
    try:
        rel = Path(path).resolve().relative_to(vault.root)
    except (ValueError, OSError):
        return True
    return any(part.startswith(".") for part in rel.parts)


def _open_in_browser(url: str) -> None:
    import webbrowser  # deferred: only an external link needs it

    webbrowser.open(url)


def _page_switcher():
    """The quick switcher provider, imported when the palette first opens."""
    from wikitui.ui.commands import PageSwitcher

    return PageSwitcher


class WikituiApp(App[None]):
    """The wikitui workspace on one vault.

    Args:
        vault: The vault to show.
        opener: Opens an external URL (``webbrowser.open`` by default; tests inject their own).
        watch: Watch the vault for outside edits.
        index: Bring the search index up to date in the background.
        theme: A theme name overriding the remembered one.
    """

    CSS_PATH = "app.tcss"
    TITLE = "wikitui"
    COMMANDS: ClassVar[set] = App.COMMANDS | {_page_switcher}
    #: The workspace screen is the default mode's screen (a mode loads the screen's CSS_PATH).
    MODES: ClassVar[dict] = {"_default": MainScreen}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True, id="quit"),
        Binding("ctrl+r", "review", "Review", id="review"),
        Binding("escape", "cancel_agent", "Cancel turn", show=False, id="cancel-agent"),
    ]

    def __init__(
        self,
        vault: Vault,
        *,
        opener: Callable[[str], Any] | None = None,
        watch: bool = True,
        index: bool = True,
        theme: str | None = None,
    ) -> None:
        super().__init__()
        #: The vault shown.
        self.vault = vault
        #: The link graph (None until the loading worker delivers it).
        self.graph: LinkGraph | None = None
        #: The search index (None while unavailable).
        self.search_index: Any = None
        #: Whether the search index has caught up with the disk.
        self.index_ready = False
        #: "pending", "building", "ready", "failed" or "off".
        self.index_state = "pending"
        #: The index build's latest progress report (its error once it failed).
        self.index_progress = IndexProgress(0, 0)
        #: Published with each progress report and when the build ends (the search screen follows it).
        self.index_signal: Signal[IndexProgress] = Signal(self, "index-progress")
        #: Files changed on disk and not yet in the index (while it builds, or while another process held it).
        self._pending_index: set[str] = set()
        self._pending_lock = threading.Lock()
        #: Pages and sources visited, for back and forward.
        self.history = History()
        #: Remembered per-vault state (last page).
        self.vault_state = VaultState.load(vault)
        self.opener: Callable[[str], Any] = opener or _open_in_browser
        self._watch_enabled = watch
        self._index_enabled = index
        self._stop = threading.Event()
        #: Serialises writes to the search index (initial build vs. live updates).
        self.index_lock = threading.Lock()
        #: Keys typed while a screen settles (at launch, right after / or ctrl+p), handled once it is ready.
        self.early_keys = EarlyKeys(self)
        self._theme_errors: list[str] = []
        self._register_themes()
        self._choose_theme(theme)

    async def on_event(self, event: events.Event) -> None:
        """Keys are handed out one at a time, each to a ready screen (see :mod:`wikitui.ui.early_keys`)."""
        if isinstance(event, events.Key) and not event.is_forwarded:
            if self.early_keys.hold(event):
                return
            target = self.focused or self.screen  # where Textual hands the key
            await super().on_event(event)
            self.early_keys.handed_out(target)
            return
        await super().on_event(event)

    def on_key_handled(self, message: KeyHandled) -> None:
        """A key has been handled: the next one may go."""
        self.early_keys.handled(message)

    # ------------------------------------------------------------------ themes
    def get_theme_variable_defaults(self) -> dict[str, str]:
        """wikitui's own colours, for themes (Textual's built-ins too) that do not set them."""
        return dict(VARIABLE_DEFAULTS)

    def _register_themes(self) -> None:
        loaded = load_themes()
        for theme in loaded.themes:
            self.register_theme(theme)
        self._theme_errors = loaded.errors

    def _choose_theme(self, explicit: str | None) -> None:
        try:
            remembered = saved_theme(self.vault)
        except Exception as exc:  # an unreadable config must not stop the app
            remembered = None
            self._theme_errors.append(f"config: {exc}")
        theme, problem = pick_theme(explicit or remembered, set(self.available_themes))
        if problem:
            self._theme_errors.append(problem)
        self.theme = theme

    def _theme_changed(self, theme: Any) -> None:
        """Remember a theme the user picked (palette or command)."""
        try:
            save_theme(theme.name)
        except Exception as exc:  # the theme still applies; only remembering failed
            self.notify(f"theme not remembered: {exc}", severity="warning")

    # --------------------------------------------------------------- lifecycle
    @property
    def main(self) -> "MainScreen":
        """The workspace screen (at the bottom of the stack)."""
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        raise LookupError("the workspace screen is not mounted")

    def on_mount(self) -> None:
        """Start the background work; report theme files that were skipped."""
        for error in self._theme_errors:
            self.notify(error, severity="warning", timeout=8)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        try:
            from wikitui.core.config import load_settings

            keymap = load_settings(self.vault).keymap
            if keymap:
                self.set_keymap(keymap)
        except Exception as exc:
            self.notify(f"config: {exc}", severity="warning")

    def start_loading(self) -> None:
        """Load the link graph (then the index and the watcher); the screen calls this once it has painted."""
        if self.graph is None:
            self._load_graph()

    def on_unmount(self) -> None:
        """Stop the workers and remember the page open."""
        self._stop.set()
        self.vault_state.save(self.vault)

    def action_quit(self) -> None:
        """Stop the background work, then leave."""
        self._stop.set()
        self.exit()

    # ------------------------------------------------------------------- graph
    @work(thread=True, exclusive=True, group="graph", name="load graph")
    def _load_graph(self) -> None:
        from wikitui.core.changes.journal import recover

        try:
            # An apply or undo interrupted by a crash is finished or rolled back first,
            # so no half-applied changeset is ever shown as the wiki.
            report = recover(self.vault)
        except Exception as exc:
            self.call_from_thread(self.notify, f"could not recover an interrupted apply: {exc}", severity="error")
            report = None
        if report is not None:
            self.call_from_thread(
                self.notify,
                f"An interrupted {report.kind} of {report.changeset_id} was {report.action} "
                f"({len(report.restored)} file(s) restored).",
                timeout=10,
            )
        try:
            graph = LinkGraph.load(self.vault)
        except Exception as exc:  # a broken vault still gets a screen and a reason
            self.call_from_thread(self.notify, f"could not read the vault: {exc}", severity="error", timeout=15)
            return
        if self._stop.is_set():
            return
        # The wiki tree's entries are built here, off the UI thread (10,000 pages: ~50 ms).
        self.call_from_thread(self._graph_ready, graph, prepare_pages(graph))

    def _graph_ready(self, graph: LinkGraph, prepared: PreparedPages | None = None) -> None:
        self.graph = graph
        # A big vault's graph is a million objects that live as long as the app: keep
        # them out of the cyclic GC, whose full passes would otherwise stall frames
        # for 100+ ms (measured on 10,000 pages).
        gc.freeze()
        self.main.graph_ready(graph, prepared)
        if self._index_enabled:
            self._build_index(graph)
        else:
            self.index_state = "off"
            self.main.post_message(IndexProgress(0, 0, finished=True, error="search index off"))
        if self._watch_enabled:
            self._watch()

    def reload(self) -> None:
        """Re-read the whole vault (graph and index)."""
        graph = self.graph
        if graph is None:
            return
        changed = graph.refresh()
        self.main.vault_changed(changed)
        if self.search_index is not None and changed:
            self._update_index(sorted(changed))

    # ------------------------------------------------------------------- index
    @work(thread=True, exclusive=True, group="index", name="search index")
    def _build_index(self, graph: LinkGraph) -> None:
        """Catch the index up in a child process (see :mod:`wikitui.ui.index_process`), then open it here."""
        from wikitui.ui.index_process import run_indexing

        main = self.main
        self.index_state = "building"
        main.post_message(IndexProgress(0, 0))
        try:
            finished, error = run_indexing(
                self.vault.root, lambda done, total: main.post_message(IndexProgress(done, total)), self._stop.is_set
            )
            if error:
                raise RuntimeError(error)
            from wikitui.core.search.facade import SearchIndex

            self.search_index = SearchIndex(self.vault)
        except Exception as exc:
            self.index_state = "failed"
            main.post_message(IndexProgress(0, 0, finished=True, error=f"search index: {exc}"))
            return
        if self._stop.is_set() or not finished:
            return
        with self._pending_lock:  # from here on, changes go straight to the index
            pending, self._pending_index = sorted(self._pending_index), set()
            self.index_ready = True
            self.index_state = "ready"
        if pending:  # files that changed while the child was indexing
            self._index_now(pending)
        main.post_message(IndexProgress(0, 0, finished=True))

    @work(thread=True, group="index-update", name="index update")
    def _update_index(self, paths: list[str]) -> None:
        self._index_paths(paths)

    def _index_paths(self, paths: list[str]) -> None:
        """Bring these files into the index (in a thread), or keep them for when it can take them."""
        with self._pending_lock:
            if self.index_state != "ready":
                self._pending_index.update(paths)  # applied when the initial build ends
                return
        self._index_now(paths)

    def _index_now(self, paths: list[str]) -> None:
        index = self.search_index
        if index is None:
            return
        try:
            with self.index_lock:
                stats = index.update_paths(paths)
        except Exception as exc:
            self.call_from_thread(self.notify, f"search index: {exc}", severity="warning")
            return
        if stats.busy:  # another process is writing the index: try these again shortly
            with self._pending_lock:
                self._pending_index.update(paths)
            if not self._stop.is_set():
                self.call_from_thread(self.set_timer, INDEX_RETRY_S, self._retry_pending)

    def _retry_pending(self) -> None:
        with self._pending_lock:
            paths, self._pending_index = sorted(self._pending_index), set()
        if paths and not self._stop.is_set():
            self._update_index(paths)

    # ---------------------------------------------------------------- watching
    @work(thread=True, exclusive=True, group="watch", name="watch vault")
    def _watch(self) -> None:
        try:
            from watchfiles import watch
        except ImportError:  # pragma: no cover - watchfiles is a dependency
            return
        vault = self.vault
        try:
            for changes in watch(
                vault.root,
                stop_event=self._stop,
                watch_filter=lambda _change, path: not _ignored(vault, path),
                debounce=WATCH_DEBOUNCE_MS,
                step=50,
                rust_timeout=500,
                yield_on_timeout=False,
                raise_interrupt=False,
            ):
                if self._stop.is_set():
                    return
                paths = sorted({vault.rel(p) for _c, p in changes})
                self._apply_changes(paths)
        except Exception as exc:  # e.g. the vault folder itself vanished
            if not self._stop.is_set():
                self.call_from_thread(self.notify, f"stopped watching the vault: {exc}", severity="warning")

    def _apply_changes(self, paths: list[str]) -> None:
        """Bring the graph up to date (in the watcher thread), then the screen, then the index."""
        graph = self.graph
        if graph is None:
            return
        for rel in paths:
            if Path(rel).suffix == "" and (self.vault.root / rel).is_dir():
                continue
            try:
                graph.update_path(rel)
            except Exception as exc:
                self.call_from_thread(self.notify, f"{rel}: {exc}", severity="warning")
        if self._stop.is_set():
            return
        self.call_from_thread(self.main.vault_changed, set(paths), prepare_pages(graph))
        # A screen over the workspace (the review) may care too: it subscribes to VaultChanged.
        self.call_from_thread(lambda: self.screen.post_message(VaultChanged(set(paths))))
        if self.index_state in ("pending", "building", "ready"):
            self._index_paths(paths)

    # ------------------------------------------------------------ navigation
    def open_path(self, path: str, anchor: str = "", line: int | None = None) -> None:
        """Open a page or raw source in the page pane and focus it (used by the palette)."""
        self.main.open_path(path, anchor=anchor, line=line)

    # -------------------------------------------------------------------- agent
    @property
    def chat(self) -> "ChatPane":
        """The chat with the agent."""
        # Imported here: the agent pane is mounted after the first frame, and so is its code.
        from wikitui.ui.widgets.chat_pane import ChatPane

        return self.main.query_one(ChatPane)

    def action_review(self) -> None:
        """Review the pending changeset (ctrl+r)."""
        self.chat.action_review()

    def action_cancel_agent(self) -> None:
        """Cancel the agent's running turn (esc, wherever the focus is)."""
        self.chat.action_cancel()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """esc cancels a turn only while one runs (else it is left to others); ctrl+r is hidden in a review."""
        if action in ("cancel_agent", "review"):
            try:
                chat = self.chat
            except Exception:  # the agent pane mounts just after the first frame
                return False
            return chat.busy if action == "cancel_agent" else not chat.reviewing
        return True

    def on_chat_pane_open_page(self, message: ChatPane.OpenPage) -> None:
        """A link in the chat was followed."""
        self.open_path(message.path, anchor=message.anchor)

    def on_chat_pane_changeset_applied(self, message: ChatPane.ChangesetApplied) -> None:
        """The chat wrote pages (the graph is current): refresh the page, trees, links and index."""
        self.main.vault_changed(set(message.paths))
        if self.search_index is not None:
            self._update_index(sorted(message.paths))

    def run_main_action(self, action: str) -> None:
        """Run a workspace action (a palette command) on the main screen."""
        self.call_later(self.main.run_action, action)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's commands, then every workspace action and every theme."""
        from wikitui.ui.commands import workspace_commands

        yield from super().get_system_commands(screen)
        yield from workspace_commands(self)


def make_app(vault_path: Path | str, **options: Any) -> WikituiApp:
    """Build the app on the vault at ``vault_path``.

    Args:
        vault_path: The vault folder.
        **options: Passed to :class:`WikituiApp` (``opener``, ``watch``, ``index``, ``theme``).

    Raises:
        NotAVault: The folder is not a vault.
    """
    return WikituiApp(Vault.open(vault_path), **options)


def run_app(vault_path: Path | str) -> int:
    """Run the workspace on ``vault_path`` until the user quits; returns the exit status."""
    app = make_app(vault_path)
    app.run()
    return app.return_code or 0
