"""The wikitui application: a :class:`~wikitui.core.workspace.Workspace` on screen, and the workers that keep it current.

The first screen appears at once; the link graph loads in a thread worker (fast:
it is cached), the search index catches up in a child process with visible
progress, and a third worker watches the vault so edits made elsewhere show up
within a second. Each worker calls a workspace method and hands the result to the
workspace screen (:mod:`wikitui.ui.screens.main`), which was given the workspace
and shows it.

:func:`make_app` builds the app for the command line and the tests alike.
"""

from __future__ import annotations

import threading
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Mapping

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen

from wikitui import gc_tuning
from wikitui.core.vault.visible_text import visible
from wikitui.core.base.words import plural
from wikitui.core.workspace import IndexState, Workspace
from wikitui.ui.early_keys import EarlyKeys, KeyHandled
from wikitui.ui.idle_lint import IdleLint
from wikitui.ui.index_watch import IndexWatch
from wikitui.ui.messages import IndexProgress, VaultChanged
from wikitui.ui.screens.main import MainScreen
from wikitui.ui.state import VaultState
from wikitui.ui.themes import VARIABLE_DEFAULTS, load_themes, pick_theme, save_theme, saved_theme
from wikitui.ui.vault_watch import watch_vault
from wikitui.ui.widgets.page_tree import PreparedPages, prepare_pages

if TYPE_CHECKING:
    from textual.command import Provider

    from wikitui.core.vault.graph import LinkGraph
    from wikitui.ui.widgets.chat_pane import ChatPane

#: Seconds before files are indexed again when another process held the index (``wikitui index`` in a terminal).
INDEX_RETRY_S = 1.0


def _open_in_browser(url: str) -> None:
    import webbrowser  # deferred: only an external link needs it

    webbrowser.open(url)


class WikituiApp(App[None]):
    """The wikitui workspace on one vault.

    Args:
        workspace: The open vault to show.
        opener: Opens an external URL (``webbrowser.open`` by default; tests inject their own).
        watch: Watch the vault for outside edits.
        index: Bring the search index up to date in the background.
        theme: A theme name overriding the remembered one.
    """

    CSS_PATH = "app.tcss"
    TITLE = "wikitui"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True, id="quit"),
        Binding("ctrl+r", "review", "Review", id="review"),
        Binding("escape", "cancel_agent", "Cancel turn", show=False, id="cancel-agent"),
        # Only while a batch runs (check_action): else ctrl+c is the focused widget's (copy).
        Binding("ctrl+c", "stop_batch", "Stop a running batch after its source", show=False, priority=True, id="stop-batch"),
    ]

    def __init__(
        self,
        workspace: Workspace,
        *,
        opener: Callable[[str], Any] | None = None,
        watch: bool = True,
        index: bool = True,
        theme: str | None = None,
    ) -> None:
        #: The open vault: its graph, index and changes.
        self.workspace = workspace
        # The workspace screen is the default mode's screen (a mode loads the screen's CSS_PATH).
        # Textual copies MODES into each app as it is created: this app's screen is built
        # with this app's workspace, handed over explicitly.
        # (Textual declares MODES a ClassVar, yet reads it from the instance: this is the supported per-app override.)
        self.MODES = {"_default": self._workspace_screen}  # type: ignore[misc]
        # The quick switcher, given what it reads (Textual reads COMMANDS from the instance too, like MODES).
        self.COMMANDS = App.COMMANDS | {self._page_switcher}  # type: ignore[misc]
        self._switcher: type[Provider] | None = None
        super().__init__()
        #: Remembered per-vault state (last page).
        self.vault_state = VaultState.load(workspace.vault)
        #: The index build's progress, for the screens that show it.
        self.index_watch = IndexWatch(self)
        self.opener: Callable[[str], Any] = opener or _open_in_browser
        #: The user's key remapping, as set (the help screen lists the keys it makes).
        self.keymap: dict[str, str] = {}
        self._watch_enabled = watch
        self._index_enabled = index
        self._stop = threading.Event()
        #: Keys typed while a screen settles (at launch, right after / or ctrl+p), handled once it is ready.
        self.early_keys = EarlyKeys(self)
        #: The background lint after idle minutes (off unless configured).
        self.idle_lint = IdleLint(self, workspace=workspace, turn_running=lambda: self.chat.busy)
        self._theme_errors: list[str] = []
        self._register_themes()
        self._choose_theme(theme)

    def _workspace_screen(self) -> MainScreen:
        return MainScreen(self.workspace, self.vault_state, self.index_watch, opener=self.opener,
                          keymap=lambda: self.keymap)

    async def on_event(self, event: events.Event) -> None:
        """Keys are handed out one at a time, each to a ready screen (see :mod:`wikitui.ui.early_keys`)."""
        if isinstance(event, events.Key) and not event.is_forwarded:
            self.idle_lint.activity()
            if self.early_keys.hold(event):
                return
            target = self.focused or self.screen  # where Textual hands the key
            await super().on_event(event)
            self.early_keys.handed_out(target)
            return
        await super().on_event(event)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Show a toast; a page's or a path's control and invisible characters in it are drawn visibly (DESIGN §8)."""
        super().notify(visible(message), title=visible(title), severity=severity, timeout=timeout, markup=markup)

    def on_key_handled(self, message: KeyHandled) -> None:
        """A key has been handled: the next one may go."""
        self.early_keys.handled(message)

    def set_keymap(self, keymap: Mapping[str, str]) -> None:
        """Remap keys by binding id (and remember the map: the help screen lists the keys it makes)."""
        self.keymap = dict(keymap)
        super().set_keymap(keymap)

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
            remembered = saved_theme(self.workspace.vault)
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
    def main(self) -> MainScreen:
        """The workspace screen (at the bottom of the stack)."""
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        raise LookupError("the workspace screen is not mounted")

    def on_mount(self) -> None:
        """Report theme files that were skipped; apply the user's keymap."""
        self.early_keys.terminal_taken()  # keys read from now on were typed in raw mode
        for error in self._theme_errors:
            self.notify(error, severity="warning", timeout=8)
        vault = self.workspace.vault
        if not vault.state_in_folder:  # a folder opened as it is: say where wikitui's own files go
            self.notify(f"Opened as it is: nothing is written to this folder until you apply a change; "
                        f"wikitui keeps its own state in {vault.state_dir}", timeout=8)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        try:
            from wikitui.core.config.settings import load_settings

            settings = load_settings(self.workspace.vault)
            if settings.keymap:
                self.set_keymap(settings.keymap)
            self.idle_lint.configure(settings)
            self.main.sync_schedule.configure(settings.sync_every_minutes, self.set_interval)
            self.main.inbox.schedule.configure(settings.inbox_every_minutes, self.set_interval)
        except Exception as exc:
            self.notify(f"config: {exc}", severity="warning")

    def on_main_screen_first_frame(self, _message: MainScreen.FirstFrame) -> None:
        """The workspace screen has painted: load the link graph (then the index and the watcher)."""
        if self.workspace.graph is None:
            self._load_graph()

    def on_main_screen_reload_requested(self, _message: MainScreen.ReloadRequested) -> None:
        """Re-read the whole vault (graph and index)."""
        if self.workspace.graph is None:
            return
        changed = self.workspace.refresh()
        self.main.vault_changed(changed)
        self.notify("Vault re-read.")

    def on_unmount(self) -> None:
        """Stop the workers and remember the page open."""
        self._stop.set()
        self.workspace.release_live()
        self.vault_state.save(self.workspace.vault)

    async def action_quit(self) -> None:
        """Stop the background work, then leave (async, as the action it overrides)."""
        self._stop.set()
        self.exit()

    # ------------------------------------------------------------------- graph
    @work(thread=True, exclusive=True, group="graph", name="load graph")
    def _load_graph(self) -> None:
        workspace = self.workspace
        try:
            # An apply or undo interrupted by a crash is finished or rolled back first,
            # so no half-applied changeset is ever shown as the wiki.
            report = workspace.recover()
        except Exception as exc:
            self.call_from_thread(self.notify, f"could not recover an interrupted apply: {exc}", severity="error")
            report = None
        if report is not None:
            self.call_from_thread(
                self.notify,
                f"An interrupted {report.kind} of {report.changeset_id} was {report.action} "
                f"({plural(len(report.restored), 'file')} restored).",
                timeout=10,
            )
        try:
            with gc_tuning.paused():  # a million small objects and no cycles on a big vault
                graph = workspace.load_graph()
        except Exception as exc:  # a broken vault still gets a screen and a reason
            self.call_from_thread(self.notify, f"could not read the vault: {exc}", severity="error", timeout=15)
            return
        if self._stop.is_set():
            return
        # The wiki tree's entries are built here, off the UI thread (10,000 pages: ~50 ms).
        self.call_from_thread(self._graph_ready, graph, prepare_pages(graph))

    def _graph_ready(self, graph: LinkGraph, prepared: PreparedPages | None = None) -> None:
        # The graph lives as long as the app: out of the collector's sight, whose full
        # passes would otherwise stall frames for 100+ ms (measured on 10,000 pages).
        gc_tuning.freeze()
        self.main.graph_ready(graph, prepared)
        self.call_after_refresh(self._load_pictures)  # once the first page is on the screen
        if self._index_enabled:
            self._build_index()
        else:
            self.workspace.turn_index_off()
            self.main.post_message(IndexProgress(0, 0, finished=True, error="search index off"))
        if self._watch_enabled:
            self._watch()

    def _load_pictures(self) -> None:
        """Load textual-image (and numpy) off the UI thread, so the first page with a picture does not wait.

        A plain thread, not a worker: it touches nothing of the app's, and a worker's state changes
        would be messages to the screen for a load nobody waits on.
        """

        def load() -> None:
            from wikitui.ui.widgets.picture import prepare_terminal

            prepare_terminal()  # quiet (it asks the terminal nothing) unless WIKITUI_PICTURES=auto loaded it at launch

        threading.Thread(target=load, name="load picture support", daemon=True).start()

    # ------------------------------------------------------------------- index
    @work(thread=True, exclusive=True, group="index", name="search index")
    def _build_index(self) -> None:
        """Catch the index up (in a child process), then index what changed meanwhile."""
        main = self.main
        main.post_message(IndexProgress(0, 0))
        stopped: list[str] = []  # sources whose conversion was stopped: indexed by their name only
        ready = self.workspace.build_index(lambda done, total: main.post_message(IndexProgress(done, total)),
                                           self._stop.is_set, stopped.append)
        if stopped and not self._stop.is_set():
            more = f"\n…and {len(stopped) - 3} more" if len(stopped) > 3 else ""
            self.call_from_thread(self.notify, "\n".join(stopped[:3]) + more, title="Search index",
                                  severity="warning", timeout=12)
        if self.workspace.index_state is IndexState.FAILED:
            main.post_message(IndexProgress(0, 0, finished=True, error=self.workspace.index_error))
        elif ready and not self._stop.is_set():
            main.post_message(IndexProgress(0, 0, finished=True))
            if self._watch_enabled:
                self._keep_live()

    @work(thread=True, exclusive=True, group="live", name="live file")
    def _keep_live(self) -> None:
        """The index is current and watched: say so in .wikitui/live until the app stops (search skips its scan)."""
        self.workspace.keep_live(self._stop)

    @work(thread=True, group="index-update", name="index retry")
    def _retry_index(self) -> None:
        stats = self.workspace.retry_index()
        if stats is not None and stats.busy and not self._stop.is_set():
            self.call_from_thread(self.set_timer, INDEX_RETRY_S, self._retry_index)

    # ---------------------------------------------------------------- watching
    @work(thread=True, exclusive=True, group="watch", name="watch vault")
    def _watch(self) -> None:
        vault = self.workspace.vault
        try:
            for paths in watch_vault(self.workspace.root, self._stop):
                self._files_changed(sorted({vault.rel(p) for p in paths}))
        except Exception as exc:  # e.g. the vault folder itself vanished
            if not self._stop.is_set():
                self.call_from_thread(self.notify, f"stopped watching the vault: {exc}", severity="warning")

    def _files_changed(self, paths: list[str]) -> None:
        """Bring the workspace up to date (in the watcher thread), then the screens."""
        if self.workspace.graph is None:
            return
        changed = self.workspace.files_changed(paths)
        for warning in changed.warnings:
            self.call_from_thread(self.notify, warning, severity="warning")
        if self._stop.is_set():
            return
        self.call_from_thread(self.main.vault_changed, changed.paths, prepare_pages(self.workspace.graph))
        # A screen over the workspace (the review) may care too: it subscribes to VaultChanged.
        self.call_from_thread(lambda: self.screen.post_message(VaultChanged(set(changed.paths))))
        if changed.index_busy:  # another process is writing the index: try these again shortly
            self.call_from_thread(self.set_timer, INDEX_RETRY_S, self._retry_index)

    # ------------------------------------------------------------ navigation
    def open_path(self, path: str, anchor: str = "", line: int | None = None) -> None:
        """Open a page or raw source in the page pane and focus it (used by the palette)."""
        self.main.open_path(path, anchor=anchor, line=line)

    # -------------------------------------------------------------------- agent
    @property
    def chat(self) -> ChatPane:
        """The chat with the agent."""
        # Imported here: the agent pane is mounted after the first frame, and so is its code.
        from wikitui.ui.widgets.chat_pane import ChatPane

        return self.main.query_one(ChatPane)

    def action_review(self) -> None:
        """Review the pending changeset (ctrl+r)."""
        self.chat.action_review()

    def action_review_batch(self, batch_id: str | None = None) -> None:
        """Review a batch's changesets together (the palette's "Review batch", ``/review batch [ID]``)."""
        self._review_batch(batch_id)

    @work(exclusive=True, group="batch-review")
    async def _review_batch(self, batch_id: str | None) -> None:
        from wikitui.ui.screens.batch_review import applied_line, review_batch

        done = await review_batch(self, self.workspace, batch_id)
        if done is None:
            return
        line, severity = applied_line(done)
        self.notify(line, title="Batch applied", severity=severity, timeout=8)
        if done.written:
            self.main.vault_changed(set(done.written))

    def action_cancel_agent(self) -> None:
        """Cancel the agent's running turn (esc, wherever the focus is)."""
        self.chat.action_cancel()

    def action_stop_batch(self) -> None:
        """ctrl+c while a batch runs: stop it after the current source (again: now), as esc does."""
        self.chat.controller.batch.stop()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """esc cancels a turn only while one runs (else it is left to others); ctrl+r is hidden in a review;
        ctrl+c stops a batch only while one runs."""
        if action == "stop_batch":
            try:
                return self.chat.controller.batch.running
            except Exception:  # the agent pane mounts just after the first frame
                return False
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

    def on_chat_pane_batch_review_requested(self, message: ChatPane.BatchReviewRequested) -> None:
        """``/review batch [ID]`` in the chat."""
        self.action_review_batch(message.batch_id)

    def on_chat_pane_changeset_applied(self, message: ChatPane.ChangesetApplied) -> None:
        """The chat wrote pages (the workspace's graph and index are current): refresh the page, trees and links."""
        try:
            main = self.main
        except LookupError:  # the app is closing (the message came after its screens went): nothing to refresh
            return
        main.vault_changed(set(message.paths))

    def action_help(self) -> None:
        """``?`` on a screen other than the workspace's (the review, a conflict): every key, that screen's first."""
        from wikitui.ui.screens.conflict import ConflictScreen
        from wikitui.ui.screens.help import help_screen
        from wikitui.ui.screens.review import ReviewScreen

        from wikitui.ui.screens.batch_review import BatchReviewScreen

        first = {ReviewScreen: "Review (ctrl+r)", ConflictScreen: "Review: a conflict",
                 BatchReviewScreen: "Batch review (/review batch)"}.get(type(self.screen))
        self.push_screen(help_screen(self, MainScreen, first))

    def _page_switcher(self) -> type[Provider]:
        """The quick switcher provider, imported when the palette first opens and bound to this app's vault."""
        from wikitui.ui.commands import SwitcherSource, page_switcher

        if self._switcher is None:
            self._switcher = page_switcher(SwitcherSource(
                graph=lambda: self.workspace.graph,
                recent=lambda: [loc.path for loc in self.main.navigator.history.entries()],
                open_path=self.open_path))
        return self._switcher

    def run_main_action(self, action: str) -> None:
        """Run a workspace action (a palette command) on the main screen."""
        self.call_later(self.main.run_action, action)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's commands, then every workspace action and every theme (on another screen: its keys)."""
        from wikitui.ui.commands import screen_commands, workspace_commands

        yield from super().get_system_commands(screen)
        if isinstance(screen, MainScreen):
            yield from workspace_commands(run_action=self.run_main_action, themes=self.available_themes,
                                          use_theme=partial(setattr, self, "theme"))
        else:
            yield from screen_commands(screen)


def make_app(vault_path: Path | str, **options: Any) -> WikituiApp:
    """Build the app on the vault at ``vault_path``.

    Args:
        vault_path: The vault folder.
        **options: Passed to :class:`WikituiApp` (``opener``, ``watch``, ``index``, ``theme``).

    Raises:
        NotAVault: The folder is not a vault.
    """
    return WikituiApp(Workspace.open(vault_path), **options)


def run_app(vault_path: Path | str) -> int:
    """Run the workspace on ``vault_path`` until the user quits; returns the exit status."""
    import os

    from wikitui.ui.picture_method import choose_method

    app = make_app(vault_path)
    if choose_method(os.environ) == "auto":
        from wikitui.ui.widgets.picture import prepare_terminal

        prepare_terminal()  # textual-image asks the terminal what it draws: before Textual takes it over
    # Otherwise textual-image (numpy through its sixel module) loads after the first page, in a thread
    # (WikituiApp._load_pictures): first paint on vault-large from the process start, 0.777 s before and
    # 0.652 s after (bench/tui.py's run_start, 9 interleaved runs, load 2.5-3.7, 2026-12-02).
    # Closing the terminal (SIGHUP) or a kill (SIGTERM) ends the process before any unmount runs.
    restore = app.workspace.release_live_on_signals()
    try:
        app.run()
    finally:
        restore()
    return app.return_code or 0
