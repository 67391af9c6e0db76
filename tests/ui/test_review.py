"""The review screen, driven like a person would: keys in, then what the screen and the disk show.

The changeset is built for real with the core's ChangesetBuilder on a small temp
vault: attention.md gets 2 hunks, transformer.md 3, and a new page bert.md 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from wikitui.core.changes.builder import ChangesetBuilder, FileConflict
from wikitui.core.vault.create import init_vault
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.ui.screens.review import ConflictScreen, ReviewResult, ReviewScreen
from wikitui.ui.themes import bundled_theme_dir, load_theme_file
from wikitui.ui.widgets.diff_view import DiffView


def _page(title: str, topic: str, paragraphs: int) -> str:
    """A page whose every body line is unique, so edits are unambiguous."""
    lines = ["---", f"title: {title}", "type: concept", f"summary: {title} in one line", "---", f"# {title}", ""]
    for n in range(1, paragraphs + 1):
        lines += [f"## Part {n}", "", f"{topic} sentence {n}a about [[Attention]] and more.",
                  f"{topic} sentence {n}b with a second thought.", ""]
    return "\n".join(lines) + "\n"


@pytest.fixture
def vault_root(tmp_path) -> Path:
    root = tmp_path / "vault"
    init_vault(root)
    (root / "wiki" / "concepts").mkdir()
    (root / "wiki" / "concepts" / "attention.md").write_text(_page("Attention", "Attention", 6), encoding="utf-8")
    (root / "wiki" / "concepts" / "transformer.md").write_text(_page("Transformer", "Transformer", 8), encoding="utf-8")
    return root


def build_changeset(root: Path):
    """Six hunks over three files: f0h0 f0h1 | f1h0 f1h1 f1h2 | f2h0."""
    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    builder = ChangesetBuilder(vault, graph)
    builder.changeset_id = "cs-20260101-abc123"  # fixed, for snapshots
    builder.edit("wiki/concepts/attention.md", [
        {"old": "Attention sentence 1a about", "new": "Attention sentence 1a, scaled, about"},
        {"old": "Attention sentence 5b with a second thought.", "new": "Attention sentence 5b, see [[BERT]]."},
    ], "Link attention to BERT")
    builder.edit("wiki/concepts/transformer.md", [
        {"old": "Transformer sentence 1b with", "new": "Transformer sentence 1b (Vaswani et al., 2017) with"},
        {"old": "Transformer sentence 4a about [[Attention]] and more.",
         "new": "Transformer sentence 4a about [[Attention]], stacked in layers.\nEncoders feed decoders."},
        {"old": "Transformer sentence 8b with a second thought.", "new": "Transformer sentence 8b: [[BERT]] uses the encoder."},
    ], "Cite the paper and mention BERT")
    builder.new_page("wiki/concepts/bert.md", "---\ntitle: BERT\ntype: concept\nsummary: A bidirectional encoder\n---\n"
                     "# BERT\n\nBERT pre-trains a [[Transformer]] encoder with masked language modelling.\n",
                     "BERT had no page")
    changeset = builder.build("ingest", "BERT paper", model="test-model")
    assert [[h.id for h in f.hunks] for f in changeset.files] == [
        ["f0h0", "f0h1"], ["f1h0", "f1h1", "f1h2"], ["f2h0"]]
    return vault, graph, changeset


@pytest.fixture
def changeset(vault_root):
    return build_changeset(vault_root)[2]


class ReviewApp(App):
    """A tiny app that opens the review and keeps what it returns."""

    def __init__(self, changeset, on_apply=None, theme_file: str | None = "wikitui-dark.toml", vault=None) -> None:
        super().__init__()
        self.changeset = changeset
        self.on_apply = on_apply
        self.vault = vault
        self.results: list[ReviewResult] = []
        self._theme_file = theme_file

    def compose(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        if self._theme_file:
            theme = load_theme_file(bundled_theme_dir() / self._theme_file)
            self.register_theme(theme)
            self.theme = theme.name
        screen = ReviewScreen(self.changeset, on_apply=self.on_apply, vault=self.vault)
        self.push_screen(screen, callback=self.results.append)


def where(app: App) -> tuple[str, str]:
    """(file shown in the diff, id of the hunk under the cursor), as the screen shows them."""
    diff = app.screen.query_one(DiffView)
    return diff.change.path, diff.change.hunks[diff.cursor].id


def counts(app: App) -> str:
    return app.screen.query_one("#review-counts").render().plain


ATTENTION = "wiki/concepts/attention.md"
TRANSFORMER = "wiki/concepts/transformer.md"
BERT = "wiki/concepts/bert.md"


async def test_a_and_r_decide_and_move_to_the_next_undecided_hunk_across_files(changeset):
    app = ReviewApp(changeset)
    async with app.run_test(size=(120, 40)) as pilot:
        assert where(app) == (ATTENTION, "f0h0")
        assert counts(app) == "6 hunks · 0 accepted · 0 rejected · 6 undecided"
        await pilot.press("a")
        assert where(app) == (ATTENTION, "f0h1")
        await pilot.press("r")  # the last hunk of the file: on to the next file
        assert where(app) == (TRANSFORMER, "f1h0")
        assert counts(app) == "6 hunks · 1 accepted · 1 rejected · 4 undecided"
        files = app.screen.query_one("#review-files")
        assert files.selected == 1
        assert "edit   +2 −2  2/2 decided" in files.entry_text(0)
        assert "edit   +4 −3  0/3 decided" in files.entry_text(1)


async def test_deciding_the_last_undecided_hunk_wraps_to_the_first_one_left(changeset):
    app = ReviewApp(changeset)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n", "n")  # bert.md, the last file
        assert where(app) == (BERT, "f2h0")
        await pilot.press("a")  # nothing after it: wrap to the first undecided
        assert where(app) == (ATTENTION, "f0h0")
        await pilot.press("a", "a")  # f0h0, f0h1 accepted; f1h0 next
        assert where(app) == (TRANSFORMER, "f1h0")
        await pilot.press("j", "j", "r")  # reject f1h2: wrap back to f1h0, the first left
        assert where(app) == (TRANSFORMER, "f1h0")
        await pilot.press("r", "a")  # f1h0 rejected, then f1h1 accepted: all decided, cursor stays
        assert counts(app) == "6 hunks · 4 accepted · 2 rejected · 0 undecided"
        assert where(app) == (TRANSFORMER, "f1h1")


async def test_shift_a_and_shift_r_decide_every_undecided_hunk_of_the_file(changeset):
    app = ReviewApp(changeset)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n", "j", "r")  # reject f1h1 by hand first
        await pilot.press("k", "k")  # back to transformer's first hunk
        assert where(app) == (TRANSFORMER, "f1h0")
        await pilot.press("A")  # accepts f1h0 and f1h2; f1h1 stays rejected
        assert counts(app) == "6 hunks · 2 accepted · 1 rejected · 3 undecided"
        assert where(app) == (BERT, "f2h0")  # the next undecided hunk
        await pilot.press("p", "p", "R")
        await pilot.press("escape")
    result = app.results[0]
    assert result.accepted == {"f1h0", "f1h2"}
    assert result.rejected == {"f0h0", "f0h1", "f1h1"}
    assert result.applied is False


async def test_moving_with_j_k_arrows_n_p_decides_nothing(changeset):
    app = ReviewApp(changeset)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("j")
        assert where(app) == (ATTENTION, "f0h1")
        await pilot.press("down")
        assert where(app) == (TRANSFORMER, "f1h0")
        await pilot.press("k")
        assert where(app) == (ATTENTION, "f0h1")
        await pilot.press("up", "up")  # clamped at the first hunk
        assert where(app) == (ATTENTION, "f0h0")
        await pilot.press("n", "n")
        assert where(app) == (BERT, "f2h0")
        await pilot.press("n")  # no file after the last
        assert where(app) == (BERT, "f2h0")
        await pilot.press("p")
        assert where(app) == (TRANSFORMER, "f1h0")
        assert counts(app) == "6 hunks · 0 accepted · 0 rejected · 6 undecided"


async def test_e_writes_a_reason_for_the_hunk_under_the_cursor(changeset):
    app = ReviewApp(changeset)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("j", "e")
        reason = app.screen.query_one("#review-reason")
        assert app.focused is reason
        await pilot.press(*"cite it", "enter")
        assert app.focused is None  # back to the review's keys
        notes = [row.content.plain for row in app.screen.query_one(DiffView)._rows if row.kind == "note"]
        assert notes == ["✎ cite it"]
        # esc in the reason bar closes it, keeping the review open and the reason as it was
        await pilot.press("e", "x", "escape")
        assert isinstance(app.screen, ReviewScreen)
        # e again starts from the reason written; enter saves the edit
        await pilot.press("e")
        assert reason.value == "cite it"
        await pilot.press(*" please", "enter")
        notes = [row.content.plain for row in app.screen.query_one(DiffView)._rows if row.kind == "note"]
        assert notes == ["✎ cite it please"]
        await pilot.press("r", "escape")
    assert app.results == [
        ReviewResult(accepted=set(), rejected={"f0h1"}, reasons={"f0h1": "cite it please"}, applied=False)
    ]


async def test_enter_dismisses_with_the_exact_decisions(changeset):
    app = ReviewApp(changeset)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("a", "r", "j", "a", "enter")  # f0h0 ✓, f0h1 ✗, f1h1 ✓; f1h0, f1h2, f2h0 undecided
    assert app.results == [
        ReviewResult(accepted={"f0h0", "f1h1"}, rejected={"f0h1"}, reasons={}, applied=True)
    ]


async def test_enter_with_nothing_decided_stays_and_esc_leaves_everything_pending(changeset):
    app = ReviewApp(changeset)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("enter")
        assert isinstance(app.screen, ReviewScreen)
        assert app.results == []
        await pilot.press("j", "n", "escape")
    assert app.results == [ReviewResult(set(), set(), {}, applied=False)]


async def test_applying_the_result_writes_accepted_hunks_only(vault_root):
    from wikitui.core.changes.apply import apply_changeset

    vault, graph, changeset = build_changeset(vault_root)
    app = ReviewApp(changeset)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("a", "r", "r", "a", "A", "enter")  # bert.md's hunk left undecided
    result = app.results[0]
    assert result == ReviewResult({"f0h0", "f1h1", "f1h2"}, {"f0h1", "f1h0"}, {}, applied=True)
    outcome = apply_changeset(vault, graph, changeset, result.accepted, rejected=result.rejected)
    attention = (vault_root / ATTENTION).read_text(encoding="utf-8")
    transformer = (vault_root / TRANSFORMER).read_text(encoding="utf-8")
    assert "Attention sentence 1a, scaled, about" in attention  # f0h0 accepted
    assert "see [[BERT]]" not in attention  # f0h1 rejected
    assert "Attention sentence 5b with a second thought." in attention
    assert "Vaswani" not in transformer  # f1h0 rejected
    assert "Encoders feed decoders." in transformer  # f1h1 accepted
    assert "[[BERT]] uses the encoder" in transformer  # f1h2 accepted by A
    assert not (vault_root / BERT).exists()  # undecided: still pending, not written
    assert [f.path for f in outcome.remaining.files] == [BERT]


async def test_a_conflict_keeps_the_review_open_and_is_shown_plainly(changeset):
    calls: list[ReviewResult] = []

    def on_apply(result: ReviewResult) -> None:
        calls.append(result)
        raise FileConflict(TRANSFORMER, "the page changed on disk where this hunk edits it",
                           "<<<<<<< on disk\nTransformer sentence 4a, edited by hand.\n=======\n"
                           "Transformer sentence 4a about [[Attention]], stacked in layers.\n>>>>>>> proposed\n")

    app = ReviewApp(changeset, on_apply=on_apply)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("a", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, ConflictScreen)
        shown = " ".join(static.render().plain for static in app.screen.query("Static"))
        assert TRANSFORMER in shown
        assert "edited by hand" in shown and "changed on disk" in shown
        await pilot.press("escape")
        assert isinstance(app.screen, ReviewScreen)
        assert counts(app) == "6 hunks · 1 accepted · 0 rejected · 5 undecided"
    assert app.results == []  # never dismissed
    assert calls and calls[0].accepted == {"f0h0"}


async def test_on_apply_success_dismisses_with_the_result(changeset):
    seen: list[ReviewResult] = []
    app = ReviewApp(changeset, on_apply=seen.append)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("r", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
    assert seen == app.results == [ReviewResult(set(), {"f0h0"}, {}, applied=True)]


async def test_clicking_a_file_and_a_hunk_moves_the_cursor(changeset):
    app = ReviewApp(changeset)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.click("#review-files", offset=(4, 2))  # the second entry (2 lines each)
        assert where(app) == (TRANSFORMER, "f1h0")
        diff = app.screen.query_one(DiffView)
        start, _end = diff.hunk_region(2)
        await pilot.click(DiffView, offset=(20, start - int(diff.scroll_offset.y) + 1))
        assert where(app) == (TRANSFORMER, "f1h2")
        assert counts(app).endswith("6 undecided")


async def test_diff_colours_come_from_the_theme_variables_or_success_and_error(changeset):
    app = ReviewApp(changeset)
    async with app.run_test(size=(120, 40)):
        assert app.screen.query_one(DiffView).colour_variables == ("wikitui-diff-added", "wikitui-diff-removed")
    app = ReviewApp(changeset, theme_file=None)  # textual-dark has no wikitui variables
    async with app.run_test(size=(120, 40)):
        assert app.screen.query_one(DiffView).colour_variables == ("success", "error")


def test_snapshot_review_screen(changeset, snap_compare):
    async def decide(pilot):
        # attention.md decided; in transformer.md: f1h0 rejected with a reason, f1h1 accepted, cursor on f1h2
        await pilot.press("a", "r", "e", *"too vague", "enter", "r", "a")

    assert snap_compare(ReviewApp(changeset), terminal_size=(120, 40), run_before=decide)


def test_snapshot_conflict_over_the_review(changeset, snap_compare):
    def on_apply(result: ReviewResult) -> None:
        raise FileConflict(TRANSFORMER, "the page changed on disk where this hunk edits it",
                           "<<<<<<< on disk\nTransformer sentence 4a, edited by hand.\n=======\n"
                           "Transformer sentence 4a about [[Attention]], stacked in layers.\n>>>>>>> proposed\n")

    async def apply(pilot):
        await pilot.press("n", "j", "a", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(ReviewApp(changeset, on_apply=on_apply), terminal_size=(120, 40), run_before=apply)


def shown_diff(app: App) -> list[str]:
    """The diff pane's rows as the screen paints them now."""
    diff = app.screen.query_one(DiffView)
    return [diff.render_line(y).text.rstrip() for y in range(diff.scrollable_content_region.height)]


TOPIC = {ATTENTION: "Attention sentence", TRANSFORMER: "Transformer sentence", BERT: "BERT pre-trains"}


def assert_one_file_shown(app: App) -> None:
    """The diff pane shows the file of the hunk under the cursor, and only that file.

    Its title row (when in view) names that file, the hunk under the cursor is in view,
    and no line of another file's hunks is painted.
    """
    path, hunk_id = where(app)
    rows = shown_diff(app)
    title = [row for row in rows if row.lstrip().startswith(("edit ", "create ", "delete ", "move "))]
    assert all(path in row for row in title), (path, title)
    others = [topic for other, topic in TOPIC.items() if other != path]
    assert not [row for row in rows if any(topic in row for topic in others)], (path, rows)
    assert any(TOPIC[path] in row for row in rows), (path, rows)
    files = app.screen.query_one("#review-files")
    assert path in files.entry_text(files.selected)


async def test_the_diff_always_shows_the_file_of_the_hunk_under_the_cursor(changeset):
    # Going back to a file laid out before, then on to one never shown, painted the
    # new file's rows from the cache of the one shown second (a reused layout serial).
    app = ReviewApp(changeset)
    async with app.run_test(size=(100, 30)) as pilot:
        assert_one_file_shown(app)
        steps = (["n"], ["p"], ["e", *"why", "enter"], ["n", "n"], ["k"], ["j"], ["p"], ["j", "j"], ["j"],
                 ["p", "p"], ["a"], ["a"], ["r"], ["k"], ["e", "x", "enter"], ["a"], ["p"], ["a"], ["j"], ["r"])
        for keys in steps:
            await pilot.press(*keys)
            await pilot.pause()
            assert_one_file_shown(app)
        assert where(app) == (BERT, "f2h0")
        await pilot.press("a")  # the last file's hunk: wraps to the first undecided, in transformer.md
        assert where(app) == (TRANSFORMER, "f1h1")
        assert_one_file_shown(app)
        await pilot.press("a")
        assert counts(app) == "6 hunks · 5 accepted · 1 rejected · 0 undecided"
        assert_one_file_shown(app)
