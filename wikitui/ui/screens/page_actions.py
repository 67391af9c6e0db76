"""What the workspace does with the page shown: its outline (``ctrl+o``) and editing it outside (``e``).

Mixed into :class:`~wikitui.ui.screens.main.MainScreen`, beside the navigation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import SuspendNotSupported

from wikitui.ui.editor import EditorError, editor_command, run_editor
from wikitui.ui.widgets.page_view import PageView

if TYPE_CHECKING:
    from wikitui.core.vault.page import Heading


class PageActionsMixin:
    """The outline and the external editor, for the main screen (which provides the navigation state)."""

    def action_outline(self) -> None:
        """List the page's headings; the one chosen scrolls into view (back returns)."""
        from wikitui.ui.screens.outline import OutlineScreen

        info = self.current_info if self.current_kind == "page" else None
        if info is None:
            self.notify("The outline lists the headings of a wiki page; open one first.", severity="warning")
            return
        if not info.headings:
            self.notify(f"{info.title} has no headings.")
            return
        path = self.current_path

        def chosen(heading: "Heading | None") -> None:
            if heading is None or self.current_path != path:
                return
            page = self.query_one(PageView)
            self.wapp.history.remember(path, anchor=heading.text, leaving_scroll=page.scroll_y)
            if not page.scroll_to_line(heading.line):
                page.scroll_to_anchor(heading.text)
            self._refresh_history_keys()
            page.focus()

        self.app.push_screen(OutlineScreen(info.title, info.headings), chosen)

    def action_edit_page(self) -> None:
        """Open the page in ``$VISUAL``/``$EDITOR`` (the app steps aside meanwhile), then show it again."""
        path = self.current_path
        if path is None or self.current_kind != "page":
            what = "a read-only source" if self.current_kind == "source" else "no page"
            self.notify(f"Nothing to edit here: this is {what}.", severity="warning")
            return
        vault = self.wapp.vault
        try:
            command = editor_command()
            with self.app.suspend():
                result = run_editor(command, vault.root / path, vault.root)
        except EditorError as exc:
            self.notify(str(exc), severity="error")
            return
        except SuspendNotSupported:
            self.notify(f"This terminal cannot hand itself to an editor; edit {path} in another window.", severity="warning")
            return
        if result.status:
            self.notify(f"the editor exited with status {result.status}", severity="warning")
        self.page_edited(path)

    def page_edited(self, path: str) -> None:
        """A page was changed outside: bring the graph, the trees, the page and the index up to date."""
        graph = self.wapp.graph
        if graph is not None:
            try:
                graph.update_path(path)
            except Exception as exc:  # a page that no longer parses still shows (as text)
                self.notify(f"{path}: {exc}", severity="warning")
        if graph is not None:
            self.vault_changed({path})
        else:
            self.redisplay(keep_scroll=True, changed=True)
        if self.wapp.search_index is not None:
            self.wapp._update_index([path])
