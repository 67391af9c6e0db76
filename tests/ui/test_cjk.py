"""Chinese, Japanese and Korean in the workspace (issue 24): the palette, ``[[`` completion, search and wrapping."""

from __future__ import annotations

from textual.command import CommandList

from tests.ui.test_chat import ChatHost
from tests.ui.workspace_helpers import wait_for, wait_ready, workspace
from wikitui.ui.widgets.chat_input import complete


# ------------------------------------------------------------------ the palette and [[ completion (24.3)
# Both already matched any part of a name (WordMatcher's substrings, complete()'s prefixes then substrings):
# these keep it so for CJK names, which have no spaces to start words at.
def _palette_prompts(app) -> list[str]:
    """The palette's hits: each one's first line (the title; the help line under it left out)."""
    hits = app.screen.query_one(CommandList)
    return [str(hits.get_option_at_index(i).prompt).split("\n")[0] for i in range(hits.option_count)]


async def test_ctrl_p_finds_a_cjk_page_by_part_of_its_title(cjk_vault):
    app = workspace(cjk_vault, watch=False, index=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("ctrl+p", *"浮存")
        await wait_for(pilot, lambda: _palette_prompts(app)[:1] == ["浮存金"], "浮存金 first", 5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/concepts/浮存金.md", "the page to open")
        await pilot.press("ctrl+p", *"哈撒韦")  # inside the alias 伯克希尔·哈撒韦
        await wait_for(pilot, lambda: any(p.startswith("伯克希尔") for p in _palette_prompts(app)[:1]), "伯克希尔", 5)
        await pilot.press("escape")
        await pilot.press("ctrl+p", *"バフェ")  # no title holds it: nothing, not everything
        await wait_for(pilot, lambda: not any("バリュー投資" == p for p in _palette_prompts(app)), "no false hit", 5)


def test_wikilink_completion_offers_cjk_titles_and_aliases_by_any_part():
    titles = lambda: ["浮存金", "保险浮存金", "巴菲特", "沃伦·巴菲特", "1962年11月", "1962年12月", "バリュー投資"]  # noqa: E731
    assert [c.label for c in complete("见[[浮存", titles=titles).candidates] == ["浮存金", "保险浮存金"]
    assert [c.label for c in complete("[[巴菲特", titles=titles).candidates] == ["巴菲特", "沃伦·巴菲特"]
    assert [c.label for c in complete("[[1962年", titles=titles).candidates] == ["1962年11月", "1962年12月"]
    assert [c.label for c in complete("[[投資", titles=titles).candidates] == ["バリュー投資"]


async def test_the_chat_input_completes_a_cjk_title(cjk_vault):
    app = ChatHost(cjk_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        chat_input = app.pane.chat_input
        chat_input.focus()
        await pilot.press(*"什么是[[浮存")
        assert chat_input.menu_open
        await pilot.press("tab")
        assert chat_input.text == "什么是[[浮存金]]"
        chat_input.set_text("")
        await pilot.press(*"[[哈撒")  # inside an alias
        await pilot.press("tab")
        assert chat_input.text == "[[伯克希尔·哈撒韦]]"


# ------------------------------------------------------------------ the / screen (24.1)
async def test_the_search_screen_finds_a_word_inside_a_run(cjk_vault):
    from textual.widgets import OptionList

    app = workspace(cjk_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        await pilot.press("slash", *"浮存")
        results = app.screen.query_one("#search-results", OptionList)
        await wait_for(pilot, lambda: results.option_count == 5, "a hit in each of the 5 files holding 浮存", 10)
        first = str(results.get_option_at_index(0).prompt)
        assert first.startswith("浮存金") and "浮存" in first.split("\n", 1)[1]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.main.current_path == "wiki/concepts/浮存金.md", "the page to open")


async def test_the_workspace_rebuilds_an_index_of_the_previous_analysis_with_progress(cjk_vault, monkeypatch):
    from textual.widgets import OptionList

    from tests.core.test_search_cjk import index_as_schema_3
    from wikitui.core.vault.layout import Vault
    from wikitui.ui.widgets.index_status import IndexStatus

    index_as_schema_3(Vault.open(cjk_vault), monkeypatch)
    shown: list[tuple[int, int]] = []
    real = IndexStatus.set_progress
    monkeypatch.setattr(IndexStatus, "set_progress", lambda self, done, total: (shown.append((done, total)),
                                                                                 real(self, done, total)))
    app = workspace(cjk_vault, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot)
        assert app.workspace.index_state.value == "ready"
        assert (13, 13) in shown  # the rebuild's progress, in the status beside the footer
        await pilot.press("slash", *"浮存")
        results = app.screen.query_one("#search-results", OptionList)
        await wait_for(pilot, lambda: results.option_count == 5, "the rebuilt index to answer", 10)
    names = {f.name for f in (cjk_vault / ".wikitui" / "index").iterdir() if f.suffix in (".toc", ".seg")}
    assert not any("_v3" in n for n in names)


# ------------------------------------------------------------------ wrapping (24.2)
#: A paragraph as a Chinese page writes it: no spaces, but English words with theirs.
PARAGRAPH = (
    "巴菲特认为，浮存金是伯克希尔增长最重要的引擎之一。保险客户先交保费，保险公司往往要过很多年才需要赔付。"
    "The float grows as the insurance business grows: 1967年收购国民保险公司时，浮存金只有大约两千万美元；"
    "后来浮存金超过了一千亿美元。「浮存金不是免费的午餐」，所以成本更重要。"
)
#: Characters no line may start with (closing punctuation, small kana, the prolonged sound mark).
CLOSING = set("。，、；：？！」』）》〕】”’…ーっゃゅょァィゥェォッャュョ")
OPENING = set("「『（《〔【“‘")


def _ideograph(ch: str) -> bool:
    return "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uff10" <= ch <= "\uff5a"


def _first_unit(row: str) -> str:
    """What the row starts with that could not have been split: opening marks, one ideograph or one
    other word, the closing marks after it."""
    i = 0
    while i < len(row) and row[i] in OPENING:
        i += 1
    if i < len(row) and _ideograph(row[i]):
        i += 1
    else:
        while i < len(row) and not row[i].isspace() and not _ideograph(row[i]) and row[i] not in OPENING:
            i += 1
    while i < len(row) and row[i] in CLOSING:
        i += 1
    return row[:i]


def assert_wrapped_well(rows: list[str], text: str, width: int) -> None:
    """Nothing lost, no line starting with closing punctuation, and every line as full as it can be:
    the next line's first unbreakable piece would not have fitted on it."""
    from rich.cells import cell_len

    assert "".join("".join(rows).split()) == "".join(text.split()), "characters lost or added"
    assert all(cell_len(row) <= width for row in rows), rows
    starts = [row for row in rows if row[:1] in CLOSING]
    assert not starts, f"lines start with closing punctuation: {starts}"
    for row, after in zip(rows, rows[1:]):
        gap = 1 if row[-1:].isascii() and after[:1].isascii() else 0  # a space was dropped at the break
        assert cell_len(row) + gap + cell_len(_first_unit(after)) > width, f"a short line: {row!r} before {after!r}"


def test_cjk_text_breaks_between_characters_keeping_punctuation_with_its_word():
    from textual.content import Content

    from wikitui.ui.markdown.wrap import wrap_content, wrap_runs

    for width in range(12, 41):
        rows = ["".join(seg[0] for seg in line) for line in wrap_runs([(PARAGRAPH, "", None)], width)]
        assert_wrapped_well(rows, PARAGRAPH, width)
        # The review's Content wraps the same way, keeping its styles.
        pieces = wrap_content(Content.styled(PARAGRAPH, "bold"), width)
        assert [p.plain for p in pieces] == rows, width
        assert all(span.style == "bold" for p in pieces for span in p.spans)
    # Korean separates its words with spaces: it still wraps at them.
    korean = "가치투자는 워런 버핏이 벤저민 그레이엄에게서 배운 투자 방법이다."
    rows = ["".join(seg[0] for seg in line) for line in wrap_runs([(korean, "", None)], 16)]
    assert rows == ["가치투자는 워런", "버핏이 벤저민", "그레이엄에게서", "배운 투자", "방법이다."]
    # English is wrapped as before.
    english = "The float grows as the insurance business grows, year after year."
    assert ["".join(s[0] for s in line) for line in wrap_runs([(english, "", None)], 20)] == [
        "The float grows as", "the insurance", "business grows, year", "after year."]


def _rows(widget) -> list[str]:
    return [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]


async def test_the_page_pane_fills_cjk_lines_at_any_narrow_width():
    from tests.ui.test_page_view import PageApp
    from wikitui.ui.widgets.page_view import PageView

    app = PageApp(text=f"# 浮存金\n\n{PARAGRAPH}\n", path="wiki/concepts/浮存金.md")
    async with app.run_test(size=(40, 30)) as pilot:
        view = app.query_one(PageView)
        for width in (40, 37, 33, 30, 27, 24):
            await pilot.resize_terminal(width, 30)
            await pilot.pause()
            rows = [r.strip() for r in _rows(view)]
            start = rows.index("浮存金") + 1  # the heading, then its rule
            para = [r for r in rows[start:] if r and not set(r) <= set("━─ ")]
            assert_wrapped_well(para, PARAGRAPH, view.scrollable_content_region.width)


async def test_the_source_viewer_and_the_chat_wrap_cjk_as_the_page_pane_does(cjk_vault):
    from textual.app import App, ComposeResult

    from wikitui.ui.widgets.chat_message import ChatMessage
    from wikitui.ui.widgets.page_view import PageView

    app = workspace(cjk_vault, watch=False, index=False)
    source = (cjk_vault / "raw/论语·学而.txt").read_text(encoding="utf-8")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_ready(pilot)
        app.main.open_path("raw/论语·学而.txt")
        view = app.query_one(PageView)
        await wait_for(pilot, lambda: any("学而时习之" in r for r in _rows(view)), "the source")
        for size in (100, 94, 88, 83):
            await pilot.resize_terminal(size, 40)
            await pilot.pause()
            rows = [r for r in _rows(view) if "│" in r]
            gutter = rows[0].index("│") + 2  # the line number, the bar, a space
            lines: list[list[str]] = []
            for row in rows:
                if row[: gutter - 2].strip():  # a numbered row: a line of the file starts
                    lines.append([])
                lines[-1].append(row[gutter:])
            width = view.scrollable_content_region.width - gutter - 1  # a cell kept free at the right edge
            texts = source.split("\n")  # the viewer numbers the empty line after the last newline too
            assert len(lines) == len(texts)
            for shown, text in zip(lines, texts):
                if text:
                    assert_wrapped_well(shown, text, width)

    class ChatApp(App):
        def compose(self) -> ComposeResult:
            yield ChatMessage(PARAGRAPH)

    chat = ChatApp()
    async with chat.run_test(size=(33, 20)) as pilot:
        await pilot.pause()
        message = chat.query_one(ChatMessage)
        rows = [r for r in _rows(message) if r.strip()]
        assert_wrapped_well([r.strip() for r in rows], PARAGRAPH, message.content_region.width)


async def test_the_review_wraps_a_cjk_paragraph_as_the_page_pane_does(cjk_vault):
    from tests.ui.test_review import ReviewApp, shown_diff
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault
    from wikitui.ui.widgets.diff_view import DiffView

    vault = Vault.open(cjk_vault)
    builder = ChangesetBuilder(vault, LinkGraph.load(vault))
    builder.new_page("wiki/concepts/浮存金的规模.md",
                     f"---\ntitle: 浮存金的规模\ntype: concept\nsummary: 规模\n---\n# 浮存金的规模\n\n{PARAGRAPH}\n", "新页")
    app = ReviewApp(builder.build("ingest", "raw/巴菲特致股东的信摘录.md", model="test-model"))
    async with app.run_test(size=(80, 40)) as pilot:
        diff = app.screen.query_one(DiffView)
        for size in (80, 77, 73, 70):
            await pilot.resize_terminal(size, 40)
            await pilot.pause()
            rows = shown_diff(app)
            gutter = diff.gutter_width()
            first = next(i for i, row in enumerate(rows) if row[gutter:].startswith("巴菲特"))
            shown = [row[gutter:] for row in rows[first:] if row.strip()]
            assert_wrapped_well(shown, PARAGRAPH, diff.scrollable_content_region.width - gutter)


async def test_the_chat_wraps_what_you_typed_in_chinese_as_its_answers():
    from textual.app import App, ComposeResult

    from wikitui.ui.widgets.chat_log import UserLine

    class LineApp(App):
        def compose(self) -> ComposeResult:
            yield UserLine(PARAGRAPH)
            yield UserLine("An English line that wraps at its spaces, as before, word by word.")

    app = LineApp()
    async with app.run_test(size=(31, 30)) as pilot:
        for width in (31, 28, 25):
            await pilot.resize_terminal(width, 30)
            await pilot.pause()
            line, english = app.query(UserLine)
            rows = [r.strip() for r in _rows(line) if r.strip()]
            assert len(rows) == line.content_region.height  # no row cut off, none blank
            assert_wrapped_well(rows, PARAGRAPH, line.content_region.width)
            assert [r.strip() for r in _rows(english) if r.strip()][0].endswith(("wraps", "wraps at", "that"))
