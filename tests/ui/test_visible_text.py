"""The TUI never sends a page's or a proposal's control characters to the terminal (DESIGN §8).

A human's page holding cursor moves, erase-line, an OSC 52 clipboard write, a C1 CSI
and bidi overrides is reviewed (an agent's edit next to it) and shown in the page pane:
the screen holds their visible forms (``␛``, ``\\x9b``, ``⟨U+202E⟩``), no raw byte, and
the hunk holding them carries its ⚠ line.
"""

from __future__ import annotations

import re

from tests.ui.test_page_view import PageApp
from tests.ui.test_review import ReviewApp, build_changeset, vault_root  # noqa: F401 - the fixture
from tests.ui.workspace_helpers import screen_text
from wikitui.core.changes.model import Changeset, make_file_change
from wikitui.core.vault.visible_text import visible
from wikitui.ui.widgets.page_view import PageView

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
ESCAPES = "\x1b[1A\x1b[2Khidden line\x1b]52;c;ZXZpbA==\x07 \x9b2J \u202eevil\u202c"
SHOWN = "␛[1A␛[2Khidden line␛]52;c;ZXZpbA==␇ \\x9b2J ⟨U+202E⟩evil⟨U+202C⟩"


def hostile_changeset(root):
    """The review's usual changeset, with a human's escapes beside an agent's edit, and a file made of them."""
    page = root / "wiki/concepts/attention.md"
    page.write_text(page.read_text().replace("Attention sentence 1a about",
                                             f"visible line\n{ESCAPES}\nAttention sentence 1a about"))
    changeset = build_changeset(root)[2]
    made = make_file_change(len(changeset.files), "wiki/concepts/made.md", "create", None, "",
                            f"# Made\n\nvisible line\n{ESCAPES}\n", reason=f"why {ESCAPES}")
    return Changeset(id=changeset.id, op=changeset.op, title=f"title {ESCAPES}", created=changeset.created,
                     files=[*changeset.files, made])


async def test_the_review_shows_escapes_visibly_and_flags_their_hunk(vault_root):  # noqa: F811
    app = ReviewApp(hostile_changeset(vault_root))
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        shown = screen_text(app)
        assert not RAW.search(shown), repr(RAW.search(shown))
        assert "visible line" in shown and SHOWN in shown  # both lines, each in its place
        assert "⚠ holds invisible or control characters" in shown and "U+202E RIGHT-TO-LEFT OVERRIDE" in shown
        assert "title ␛[1A" in shown  # the changeset's title too
        for _ in range(3):
            await pilot.press("n")  # the created file: its reason and its one hunk
        await pilot.pause()
        shown = screen_text(app)
        assert not RAW.search(shown), repr(RAW.search(shown))
        assert f"why {SHOWN}" in shown and f"{SHOWN}" in shown and "⚠ holds invisible" in shown
        rows = shown.split("\n")
        at = next(i for i, row in enumerate(rows) if "+ visible line" in row)
        assert "␛[1A" in rows[at + 1]  # the hidden line stays below the visible one


async def test_a_hunk_without_such_characters_has_no_flag(vault_root):  # noqa: F811
    app = ReviewApp(build_changeset(vault_root)[2])
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        assert "⚠ holds invisible" not in screen_text(app)


async def test_the_page_pane_shows_escapes_visibly():
    text = (f"---\ntitle: \"T \\u202eevil\"\ntype: concept\nsummary: \"s \\x1b[2J\"\n---\n\n# Page\n\n"
            f"visible line\n\n{ESCAPES}\n\n`code {ESCAPES}`\n")
    app = PageApp(text, path="wiki/hostile.md")
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        view = app.query_one(PageView)
        shown = screen_text(app)
        assert not RAW.search(shown), repr(RAW.search(shown))
        assert SHOWN in shown and f"code {SHOWN}" in shown
        assert "T ⟨U+202E⟩evil" in shown and "s ␛[2J" in shown  # the header from the frontmatter
        assert view.document is not None


def test_textual_alone_would_send_them_raw():
    """Why each display boundary calls visible(): Textual's Content drops BEL (with BS, VT, FF and CR) but keeps
    ESC, C1 and the bidi characters as they are, to be written to the terminal."""
    from textual.content import Content

    content = Content(ESCAPES)
    assert "\x07" not in content.plain
    assert "\x1b" in content.plain and "\x9b" in content.plain and "\u202e" in content.plain
    assert visible(ESCAPES) == SHOWN


async def test_the_workspace_shows_a_hostile_page_and_source_visibly(sample_vault):
    from tests.ui.workspace_helpers import notices, wait_for, wait_ready, workspace

    (sample_vault / "wiki/hostile.md").write_text(
        f"---\ntitle: \"Hostile \\x1b[2J\\u202eevil\"\ntype: concept\n---\n\n# Hostile\n\nvisible line\n"
        f"{ESCAPES} [[Alice]]\n\n## Head \x1b[31mred\n")
    alice = sample_vault / "wiki/characters/alice.md"
    alice.write_text(alice.read_text() + f"\nSee [[Hostile]] {ESCAPES}\n")
    (sample_vault / "raw/hostile.txt").write_text(f"visible line\n{ESCAPES}\n")
    (sample_vault / "raw/name \x1b[2J.md").write_text("# A name\n")
    app = workspace(sample_vault, watch=False, index=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("wiki/hostile.md")
        await wait_for(pilot, lambda: "visible line" in screen_text(app), "the page")
        shown = screen_text(app)
        assert not RAW.search(shown), repr(RAW.search(shown))
        assert SHOWN in shown and "Hostile ␛[2J⟨U+202E⟩evil" in shown
        app.main.open_path("wiki/characters/alice.md")
        await wait_for(pilot, lambda: "See Hostile" in screen_text(app) or "Hostile ␛" in screen_text(app), "alice")
        shown = screen_text(app)
        assert not RAW.search(shown), repr(RAW.search(shown))
        app.main.open_path("raw/hostile.txt")
        await wait_for(pilot, lambda: "visible line" in screen_text(app), "the source")
        shown = screen_text(app)
        assert not RAW.search(shown), repr(RAW.search(shown))
        assert SHOWN in shown
        app.main.notify(f"wiki/a {ESCAPES}.md: changed on disk")  # a toast naming a file
        await wait_for(pilot, lambda: f"wiki/a {SHOWN}.md: changed on disk" in notices(app), "the toast")


def test_the_files_byte_order_mark_is_not_flagged_but_one_inside_the_text_is():
    from wikitui.ui.widgets.diff_view import hidden_mark

    bom_only = make_file_change(0, "wiki/a.md", "edit", "x", "\ufeff# T\nold\n", "\ufeff# T\nnew\n").hunks[0]
    assert hidden_mark(bom_only) is None
    inside = make_file_change(0, "wiki/a.md", "create", None, "", "\ufeff# T\npay\u200bpal \ufeffx\n").hunks[0]
    assert inside.display_lines == ["+# T", "+pay\u200bpal \ufeffx"]
    mark = hidden_mark(inside).plain
    assert "U+200B ZERO WIDTH SPACE" in mark and "U+FEFF ZERO WIDTH NO-BREAK SPACE" in mark
