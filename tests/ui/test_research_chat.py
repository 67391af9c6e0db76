"""``/research TOPIC`` in the chat (issue 28 point 2): URLs proposed, reviewed one by one, only accepted ones clipped.

The model is the fake OpenAI-compatible server; the search engine and the pages are a
fake SearXNG on 127.0.0.1 (tests/fakeweb.py), whose request log shows what was fetched.
"""

from __future__ import annotations

import frontmatter
import pytest
from textual.app import App

from tests.fakeserver import text, tool_call
from tests.fakeweb import research_config
from tests.ui.test_chat import ChatHost, fast_client, notes, send, turn, wait_for
from wikitui.core.batch.queue import all_batches
from wikitui.core.research.proposals import ProposedSource, ResearchStore, SourceProposal
from wikitui.ui.screens.research import ResearchReviewScreen, sources_reviewer
from wikitui.ui.screens.review import screen_reviewer
from wikitui.ui.widgets.chat_pane import ChatPane


class ResearchHost(ChatHost):
    """The chat pane with both reviewers the workspace hands it."""

    def compose(self):
        yield ChatPane(self.workspace, reviewer=screen_reviewer(self, self.vault), client_factory=fast_client,
                       sources_reviewer=sources_reviewer(self))


def raw_files(root) -> set[str]:
    return {p.relative_to(root).as_posix() for p in (root / "raw").rglob("*") if p.is_file()
            and not p.name.startswith(".")}


def pages(web) -> list[str]:
    return [web.add_page("tea", "Victorian tea customs", "Tea at five was a ritual of the Victorian household."),
            web.add_page("hatters", "Mercury and hatters", "Hat makers were poisoned by mercury nitrate fumes."),
            web.add_page("dormice", "Dormouse hibernation", "The hazel dormouse sleeps through half the year.")]


def script(fake_llm, urls):
    fake_llm.script(
        tool_call("web_search", query="mad tea party history"),
        tool_call("propose_sources", sources=[{"url": u, "why": f"adds {u.rsplit('/', 1)[1]}"} for u in urls]),
        text("The wiki lacks the history behind the tea party; three sources proposed."),
    )


async def test_research_in_the_chat_then_accepting_2_of_3_in_the_review_clips_exactly_those(
        fake_llm, fake_web, sample_vault):
    urls = pages(fake_web)
    research_config(sample_vault, fake_web)
    script(fake_llm, urls)
    before = raw_files(sample_vault)
    app = ResearchHost(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "/research mad tea party")
        await wait_for(pilot, lambda: isinstance(app.screen, ResearchReviewScreen), "the sources' review")
        screen = app.screen
        assert fake_web.fetched_pages() == []  # proposed, nothing fetched
        shown = "".join(str(o.prompt) for o in screen.query_one("#sources-list").options)
        assert "Victorian tea customs" in shown and "adds hatters" in shown and urls[2] in shown
        await pilot.press("a", "r", "a")  # accept tea, reject hatters, accept dormice
        assert "2 accepted, 1 rejected, 0 undecided" in str(screen.query_one("#sources-help").render())
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.startswith("Sources") for n in notes(app.pane)), "the clips")
        added = raw_files(sample_vault) - before
        assert len(added) == 2
        assert {frontmatter.loads((sample_vault / p).read_text())["source_url"] for p in added} == {urls[0], urls[2]}
        assert sorted(fake_web.fetched_pages()) == ["/pages/dormice", "/pages/tea"]
        note = next(n for n in notes(app.pane) if n.startswith("Sources"))
        assert "2 clipped into raw/, 1 rejected" in note and all(p in note for p in added)
        assert ResearchStore(app.vault).latest() is None  # every URL decided


async def test_esc_leaves_the_sources_pending_and_research_alone_or_ctrl_r_reopens_them(fake_llm, fake_web, sample_vault):
    urls = pages(fake_web)
    research_config(sample_vault, fake_web)
    script(fake_llm, urls)
    app = ResearchHost(sample_vault)
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "/research mad tea party")
        await wait_for(pilot, lambda: isinstance(app.screen, ResearchReviewScreen), "the sources' review")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ResearchReviewScreen), "the review to close")
        assert any("Sources left pending" in n for n in notes(app.pane))
        assert ResearchStore(app.vault).latest() is not None and fake_web.fetched_pages() == []
        await send(pilot, "/research")
        await wait_for(pilot, lambda: isinstance(app.screen, ResearchReviewScreen), "the review again")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ResearchReviewScreen), "the review to close")
        await pilot.press("ctrl+r")  # no changeset pending: ctrl+r reviews the sources
        await wait_for(pilot, lambda: isinstance(app.screen, ResearchReviewScreen), "the review by ctrl+r")
        await pilot.press("j", "a", "i")  # the second URL only, queued for a batch ingest
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.startswith("Sources") for n in notes(app.pane)), "the clip")
        assert fake_web.fetched_pages() == ["/pages/hatters"]
        (batch,) = all_batches(app.vault)
        (entry,) = batch.entries
        assert entry.state == "queued" and (sample_vault / entry.source).is_file()
        assert any("ingest --resume" in n for n in notes(app.pane))
        assert [s.decision for s in ResearchStore(app.vault).latest().sources] == ["undecided", "accepted",
                                                                                 "undecided"]


async def test_lint_in_the_chat_may_search_and_its_sources_wait_for_research_alone(fake_llm, fake_web, sample_vault):
    urls = pages(fake_web)
    research_config(sample_vault, fake_web)
    fake_llm.script(tool_call("web_search", query="dormouse biology"),
                    tool_call("propose_sources", sources=[{"url": urls[2], "why": "the Dormouse page has no source"}]),
                    text("Sources to look for: the Dormouse's biology (proposed)."))
    app = ResearchHost(sample_vault)
    async with app.run_test(size=(120, 40)) as pilot:
        await turn(pilot, "/lint")
        assert not isinstance(app.screen, ResearchReviewScreen)  # not asked for: it waits
        assert any("/research alone reviews them" in n for n in notes(app.pane, "plan"))
        assert "web_search" in {t["function"]["name"] for t in fake_llm.requests[0]["tools"]}
        await send(pilot, "/research")
        await wait_for(pilot, lambda: isinstance(app.screen, ResearchReviewScreen), "the sources' review")
        assert [o.id for o in app.screen.query_one("#sources-list").options] == [urls[2]]
        assert fake_web.fetched_pages() == []


async def test_research_without_a_provider_says_how_to_add_one(fake_llm, sample_vault):
    app = ResearchHost(sample_vault)
    async with app.run_test(size=(100, 30)) as pilot:
        await turn(pilot, "/research mad tea party")
        assert any("[research] searxng_url" in n for n in notes(app.pane, "error"))
        assert fake_llm.requests == []


async def test_lint_without_a_provider_says_how_to_add_one_for_the_sources_it_names(fake_llm, sample_vault):
    fake_llm.script(text("Sources worth looking for: a history of tea parties."))
    app = ResearchHost(sample_vault)
    async with app.run_test(size=(100, 30)) as pilot:
        await turn(pilot, "/lint")
        assert any("on the web" in n and "[research] searxng_url" in n for n in notes(app.pane))
        assert len(fake_llm.requests) == 1  # the lint still ran


# ------------------------------------------------------------------------ the screen as drawn
class SourcesApp(App):
    """The sources' review alone, on a fixed proposal (nothing is fetched: the screen only decides)."""

    def __init__(self) -> None:
        super().__init__()
        self.proposal = SourceProposal("research-20261202-120000-abcd", "the Mad Tea-Party's history", "research",
                                       "2026-12-02T12:00:00", [
            ProposedSource("https://example.org/victorian-tea", "Victorian tea customs",
                           "the tea-time ritual the chapter parodies"),
            ProposedSource("https://example.org/mad-as-a-hatter", "Mercury and hatters: where 'mad as a hatter' "
                           "comes from, with the nineteenth-century medical reports",
                           "the origin of the Hatter's madness, which no page sources"),
            ProposedSource("https://example.org/dormouse", "Dormouse hibernation\x1b[2J",
                           "why the Dormouse sleeps through the party"),
        ])

    def on_mount(self) -> None:
        self.push_screen(ResearchReviewScreen(self.proposal))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_sources_review(snap_compare, size):
    async def decide(pilot):
        await pilot.press("a", "r")

    assert snap_compare(SourcesApp(), terminal_size=size, run_before=decide)


def test_the_background_lints_notice_names_the_web_sources_it_left_pending():
    from wikitui.core.agent.events import TurnFinished
    from wikitui.core.agent.semantic_lint import SemanticLint
    from wikitui.ui.idle_lint import notice_text

    proposal = SourcesApp().proposal
    found = SemanticLint(report=None, done=TurnFinished("lint", "report", None, sources=proposal))
    assert notice_text(found) == ("0 problems from the checks; no page change proposed. 3 web sources proposed, "
                                  "nothing fetched: /research reviews them.")
    assert "web source" not in notice_text(SemanticLint(report=None, done=TurnFinished("lint", "report")))
