"""The review's file list lays its entries out without drawing them, and draws only what is painted.

An entry is two rows (badge and path; action, +/− and how much is decided), a third for a
move (where it comes from) and one more when the file changed on disk. The list counts
those rows up front and draws an entry when a row of it is painted; these tests hold the
count to what is drawn, for every kind of entry, and check that deciding or resizing a
long list draws only the entries on screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.app import App, ComposeResult

from wikitui.ui.widgets.changeset_files import DISK_LABELS, ChangesetFileList


@dataclass
class _Hunk:
    added: int = 1
    removed: int = 0


@dataclass
class _Change:
    path: str
    action: str
    new_path: str | None = None
    hunks: list[_Hunk] = field(default_factory=lambda: [_Hunk(), _Hunk()])


class _ListApp(App[None]):
    def __init__(self, files: list[_Change]) -> None:
        super().__init__()
        self.files = files

    def compose(self) -> ComposeResult:
        yield ChangesetFileList(self.files, id="files")


def _kinds() -> list[_Change]:
    return [
        _Change("wiki/concepts/new.md", "create"),
        _Change("wiki/concepts/edited.md", "edit"),
        _Change("wiki/old/place.md", "move", new_path="wiki/new/place.md"),
        _Change("wiki/gone.md", "delete"),
    ]


async def test_each_entrys_counted_rows_are_the_rows_it_draws_in_every_state():
    files = _kinds()
    app = _ListApp(files)
    async with app.run_test(size=(60, 30)) as pilot:
        listing = app.query_one(ChangesetFileList)
        await pilot.pause()
        for disk in ("same", *DISK_LABELS):
            for index in range(len(files)):
                listing.set_disk_state(index, disk)
            await pilot.pause()
            for index in range(len(files)):
                _, count = listing.rows_of(index)
                drawn = listing.entry_text(index).split("\n")
                assert count == len(drawn), (files[index].action, disk, drawn)
                name = (files[index].new_path or files[index].path).rsplit("/", 1)[-1]
                assert name in drawn[0]
            # The rows on screen are the entries' own, in order, with nothing cut off.
            rows = [strip.text.rstrip() for strip in (listing.render_line(y) for y in range(listing.size.height))]
            expected = [line for i in range(len(files)) for line in listing.entry_text(i).split("\n")]
            assert rows[: len(expected)] == expected


async def test_deciding_or_resizing_a_long_list_draws_only_the_entries_on_screen(monkeypatch):
    import wikitui.ui.widgets.changeset_files as module

    drawn: list[str] = []
    real = module._file_prompt

    def counting(change, decided, width, disk="same"):
        drawn.append(change.path)
        return real(change, decided, width, disk)

    monkeypatch.setattr(module, "_file_prompt", counting)
    files = [_Change(f"wiki/concepts/page-{n:03}.md", "edit") for n in range(200)]
    app = _ListApp(files)
    async with app.run_test(size=(60, 20)) as pilot:
        listing = app.query_one(ChangesetFileList)
        await pilot.pause()
        on_screen = listing.size.height // 2 + 1  # two rows an entry
        assert 0 < len(drawn) <= 2 * on_screen  # (selected and not: the first entry may be drawn both ways)
        drawn.clear()
        for index in range(200):  # `o` in a batch review: every page's count moves
            listing.set_decided(index, 2)
        await pilot.pause()
        assert 0 < len(drawn) <= on_screen and set(drawn) <= {f.path for f in files[:on_screen]}
        drawn.clear()
        await pilot.resize_terminal(50, 20)
        await pilot.pause()
        assert 0 < len(drawn) <= on_screen
        listing.select(150)
        await pilot.pause()
        shown = "\n".join(listing.render_line(y).text for y in range(listing.size.height))
        assert "page-150.md" in shown and "2/2 decided" in shown
