"""The footer: as many key hints as fit, whole, and the palette key always at the right.

Textual's footer lays every hint out in a row that scrolls sideways and docks the
palette key (``^p palette``) over its right end. Once the hints are wider than the
footer (below about 110 columns here, beside the index status), hints ran under the
palette key and left stray characters around it (``^p palettet``). This footer
shows only the hints that fit, in their order, and lays itself out again when its
width changes.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer

from wikitui.ui.textual_internals import FooterKey


def hint_width(key: FooterKey) -> int:
    """Cells a compact hint takes: its key, a space and its description, then a one-cell margin."""
    width = cell_len(key.key_display)
    if key.description:
        width += 1 + cell_len(key.description)
    return width + 1


def palette_width(key: FooterKey) -> int:
    """Cells the palette key takes: a one-cell rule, its key, a space and its description."""
    return 1 + cell_len(key.key_display) + (1 + cell_len(key.description) if key.description else 0)


class WorkspaceFooter(Footer):
    """A compact footer whose hints never overflow (see the module docstring)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(compact=True, id=id)
        self._laid_out_for = -1
        self._composed_for: object = None

    def _shows(self) -> object:
        """What the hints depend on: the width and each shown binding as drawn (key, label, state)."""
        if not self._bindings_ready or not self.is_attached:
            return None
        app = self.app
        active = self.screen.active_bindings
        return (self.size.width, self.compact, self.show_command_palette, app.ENABLE_COMMAND_PALETTE, tuple(
            (key, binding.key, app.get_key_display(binding), binding.description, binding.action, enabled, tooltip,
             binding.group)
            for key, (_, binding, enabled, tooltip) in active.items()
            if binding.show or key == app.COMMAND_PALETTE_BINDING))  # the palette key is drawn though not "shown"

    def bindings_changed(self, screen: Screen) -> None:
        """Compose the hints again only when what they show changed.

        Textual's footer recomposes on every change of the bindings in force: each focus change,
        11 times while the workspace starts, most of them to the same hints, each one removing
        and mounting every hint (its CSS and layout): 45 ms of a workspace's start in all.
        """
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if self.is_attached and self._shows() != self._composed_for:
            await self.recompose()

    def compose(self) -> ComposeResult:
        """Textual's hints, cut to those that fit beside the palette key."""
        self._composed_for = self._shows()
        widgets = list(super().compose())
        width = self.size.width
        self._laid_out_for = width
        if not width:  # not laid out yet: the first resize composes again
            return
        palette = [w for w in widgets if isinstance(w, FooterKey) and w.has_class("-command-palette")]
        room = width - sum(palette_width(p) for p in palette)
        for widget in widgets:
            if widget in palette:
                continue
            if not isinstance(widget, FooterKey):
                continue  # group labels: wikitui's bindings have no groups
            needed = hint_width(widget)
            if needed > room:
                break  # the hints keep their order: none after the first that does not fit
            room -= needed
            yield widget
        yield from palette

    def on_resize(self, event: Resize) -> None:
        """Lay the hints out again for the new width."""
        if event.size.width != self._laid_out_for and self._bindings_ready:
            self.call_after_refresh(self.recompose)
