"""The chat's changeset card: what it says, and that a click asks for the review."""

from __future__ import annotations

from textual import on
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from tests.ui.test_review import build_changeset, vault_root  # noqa: F401  (the fixture)
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.ui.themes import bundled_theme_dir, load_theme_file
from wikitui.ui.widgets.changeset_card import ChangesetCard


class CardApp(App):
    """A chat-pane-sized column holding cards."""

    CSS = "VerticalScroll { width: 48; padding: 0 1; }"

    def __init__(self, *cards_args) -> None:
        super().__init__()
        self.cards_args = cards_args
        self.requested: list[str] = []

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            for changeset, status in self.cards_args:
                yield ChangesetCard(changeset, status=status)

    def on_mount(self) -> None:
        theme = load_theme_file(bundled_theme_dir() / "wikitui-dark.toml")
        self.register_theme(theme)
        self.theme = theme.name

    @on(ChangesetCard.ReviewRequested)
    def _review(self, event: ChangesetCard.ReviewRequested) -> None:
        self.requested.append(event.changeset_id)


def card_text(card: ChangesetCard) -> list[str]:
    return [line.rstrip() for line in card.render().plain.splitlines()]


async def test_card_lists_the_files_and_names_ctrl_r(vault_root):  # noqa: F811
    changeset = build_changeset(vault_root)[2]
    app = CardApp((changeset, "pending"))
    async with app.run_test(size=(60, 20)):
        card = app.query_one(ChangesetCard)
        lines = card_text(card)
        assert lines[0] == "3 files changed  +14 −5"
        assert lines[1].startswith("M wiki/concepts/attention.md") and lines[1].endswith("+2 −2")
        assert lines[2].startswith("M wiki/concepts/transformer.md") and lines[2].endswith("+4 −3")
        assert lines[3].startswith("A wiki/concepts/bert.md") and lines[3].endswith("+8 −0")
        assert card.border_subtitle == "ctrl+r review · pending"
        assert "BERT paper" in str(card.border_title)


async def test_clicking_the_card_asks_for_its_review_and_status_follows(vault_root):  # noqa: F811
    changeset = build_changeset(vault_root)[2]
    app = CardApp((changeset, "pending"))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.click(ChangesetCard)
        assert app.requested == ["cs-20260101-abc123"]
        card = app.query_one(ChangesetCard)
        card.status = "partial"
        assert card.border_subtitle == "partly applied · ctrl+r review the rest"
        assert card.has_class("-partial")
        card.status = "applied"
        assert card.border_subtitle == "✓ applied" and not card.has_class("-partial")


async def test_a_long_changeset_is_summarised(vault_root):  # noqa: F811
    vault = Vault.open(vault_root)
    builder = ChangesetBuilder(vault, LinkGraph.load(vault))
    for n in range(11):
        builder.new_page(f"wiki/notes/a-rather-long-folder-name/note-{n:02}.md", f"# Note {n}\n", "notes")
    changeset = builder.build("lint", "Notes")
    app = CardApp((changeset, "pending"))
    async with app.run_test(size=(60, 20)):
        lines = card_text(app.query_one(ChangesetCard))
        assert lines[0] == "11 files changed  +11 −0"
        assert len(lines) == 1 + ChangesetCard.MAX_FILES + 1
        assert lines[-1] == "… and 3 more"
        # paths too long for the card keep their file name
        assert all(len(line) <= 44 for line in lines)
        assert lines[1].startswith("A …") and "note-00.md" in lines[1]


def test_snapshot_changeset_cards(vault_root, snap_compare):  # noqa: F811
    changeset = build_changeset(vault_root)[2]
    app = CardApp((changeset, "pending"), (changeset, "partial"))
    assert snap_compare(app, terminal_size=(60, 20))
