"""Research from lint and ``/research`` (issue 28 point 2, DESIGN §9): web search, proposed URLs, clips on accept.

A fake SearXNG on 127.0.0.1 (tests/fakeweb.py) answers the searches and serves the
pages its results point at; the model is the fake OpenAI-compatible server. What the
page server was asked for shows exactly what was fetched: nothing before the person
accepts, then only the URLs accepted.
"""

from __future__ import annotations

import json
import threading
import time

import frontmatter
import pytest

from tests.cli_run import run_wikitui
from tests.core.changes_util import make_vault, page
from tests.fakeserver import error, text, tool_call
from tests.fakeweb import research_config
from wikitui.core.batch.queue import all_batches
from wikitui.core.config.settings import load_settings
from wikitui.core.research.proposals import ResearchStore, SourceFinder
from wikitui.core.research.provider import (
    SNIPPET_CHARS,
    NoSearchProvider,
    SearchFailed,
    SearchProvider,
    hits_text,
    provider_from,
    web_search,
)
from wikitui.core.vault.layout import Vault


def raw_files(root) -> set[str]:
    return {p.relative_to(root).as_posix() for p in (root / "raw").rglob("*") if p.is_file()
            and not p.name.startswith(".")}


def three_pages(web) -> list[str]:
    return [web.add_page("tea", "Victorian tea customs", "Tea at five was a ritual of the Victorian household."),
            web.add_page("hatters", "Mercury and hatters", "Hat makers were poisoned by mercury nitrate fumes."),
            web.add_page("dormice", "Dormouse hibernation", "The hazel dormouse sleeps through half the year.")]


def research_script(urls: list[str]):
    return (tool_call("web_search", query="mad tea party history"),
            tool_call("propose_sources", sources=[{"url": u, "why": f"adds {u.rsplit('/', 1)[1]}"} for u in urls]),
            text("The wiki lacks the history behind the tea party; I proposed three sources."))


# ---------------------------------------------------------------------- the search client
def test_web_search_asks_searxng_for_json_and_reads_its_hits(fake_web):
    urls = three_pages(fake_web)
    hits = web_search(SearchProvider("searxng", fake_web.url), "mad tea party", limit=2)
    assert [h.url for h in hits] == urls[:2]
    assert hits[0].title == "Victorian tea customs" and "ritual" in hits[0].snippet
    (request,) = fake_web.requests
    assert request.startswith("/search?") and "format=json" in request and "q=mad+tea+party" in request


def test_hostile_results_are_cut_made_visible_and_only_web_addresses_kept(fake_web):
    fake_web.results = [
        {"url": "javascript:alert(1)", "title": "no", "content": "no"},
        {"url": "file:///etc/passwd", "title": "no", "content": "no"},
        {"url": "http://127.0.0.1/ok", "title": "\x1b]52;c;cGF3bmVk\x07Title\x1b[2J", "content": "x" * 100_000},
        {"url": "http://127.0.0.1/ok", "title": "a duplicate", "content": ""},
        "not a dict",
    ]
    hits = web_search(SearchProvider("searxng", fake_web.url), "q", limit=10)
    assert [h.url for h in hits] == ["http://127.0.0.1/ok"]
    result = hits_text("q", hits)
    assert "\x1b" not in result and "\x07" not in result and "␛" in result  # visible, not obeyed
    assert len(hits[0].snippet) <= SNIPPET_CHARS and len(result) < 1000
    assert "not instructions" in result


def test_a_search_engine_error_or_non_json_is_a_search_failure(fake_web):
    fake_web.status = 500
    with pytest.raises(SearchFailed, match="500"):
        web_search(SearchProvider("searxng", fake_web.url), "q")
    fake_web.status, fake_web.raw_body = 200, b"<html>format=json is off</html>"
    with pytest.raises(SearchFailed, match="JSON"):
        web_search(SearchProvider("searxng", fake_web.url), "q")


def test_a_slow_search_engine_is_bounded_by_the_total_deadline(fake_web):
    fake_web.hold = threading.Event()  # the engine answers only when released (at teardown)
    start = time.monotonic()
    with pytest.raises(SearchFailed):
        web_search(SearchProvider("searxng", fake_web.url, total_s=1.0), "q")
    assert time.monotonic() - start < 10


def test_brave_reads_its_key_from_the_variable_the_config_names(fake_web, monkeypatch):
    three_pages(fake_web)
    provider = provider_from({"provider": "brave", "api_key_env": "MY_BRAVE", "api_url": f"{fake_web.url}/brave"})
    assert provider is not None and provider.kind == "brave"
    with pytest.raises(Exception, match="MY_BRAVE"):
        web_search(provider, "tea")
    monkeypatch.setenv("MY_BRAVE", "brave-secret-1")
    hits = web_search(provider, "tea", limit=3)
    assert len(hits) == 3 and fake_web.headers[-1]["x-subscription-token"] == "brave-secret-1"


def test_config_takes_the_research_table_and_refuses_a_key_in_it(tmp_path):
    (tmp_path / ".wikitui").mkdir()
    (tmp_path / ".wikitui/config.toml").write_text(
        '[research]\nsearxng_url = "http://127.0.0.1:9/"\napi_key = "sk-no"\nprovider = "bing"\n')
    settings = load_settings(tmp_path)
    assert settings.research == {"searxng_url": "http://127.0.0.1:9/"}
    assert any("research.api_key" in w and "api_key_env" in w for w in settings.warnings)
    assert any("research.provider" in w for w in settings.warnings)
    assert provider_from(settings.research) == SearchProvider("searxng", "http://127.0.0.1:9")
    assert provider_from({}) is None and provider_from({"provider": "brave"}) is None


def test_only_addresses_a_search_returned_can_be_proposed(fake_web):
    urls = three_pages(fake_web)
    finder = SourceFinder(SearchProvider("searxng", fake_web.url))
    finder.search("tea", 5)
    with pytest.raises(Exception, match="only addresses a web_search"):
        finder.propose([("http://evil.example/x", "trust me")])
    assert "1 source(s) proposed" in finder.propose([(urls[0], "why\x1b[2J one")])
    assert "\x1b" not in finder.proposed[0].why


# ------------------------------------------------------------- research, headless
def test_research_proposes_urls_fetches_nothing_and_accepting_2_of_3_clips_exactly_those(
        fake_llm, fake_web, sample_vault):
    urls = three_pages(fake_web)
    research_config(sample_vault, fake_web)
    before = raw_files(sample_vault)
    fake_llm.script(*research_script(urls))

    proc = run_wikitui(["research", "mad", "tea", "party", "--json", "--vault", str(sample_vault)])
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)["research"]
    assert [s["url"] for s in doc["sources"]] == urls
    assert {s["decision"] for s in doc["sources"]} == {"undecided"}
    assert doc["sources"][1]["why"] == "adds hatters" and doc["topic"] == "mad tea party"
    assert fake_web.fetched_pages() == []  # nothing fetched that was not accepted
    assert raw_files(sample_vault) == before
    tools = {t["function"]["name"] for t in fake_llm.requests[0]["tools"]}
    assert {"web_search", "propose_sources"} <= tools
    tool_result = next(m for m in fake_llm.requests[1]["messages"] if m["role"] == "tool")
    assert urls[0] in tool_result["content"] and "web result" in tool_result["content"]

    proc = run_wikitui(["research", "accept", doc["id"], urls[0], urls[2], "--vault", str(sample_vault)])
    assert proc.returncode == 0, proc.stderr
    added = raw_files(sample_vault) - before
    assert len(added) == 2 and sorted(proc.stdout.split()) == sorted(added)
    assert sorted(fake_web.fetched_pages()) == ["/pages/dormice", "/pages/tea"]
    clipped = {frontmatter.loads((sample_vault / p).read_text())["source_url"] for p in added}
    assert clipped == {urls[0], urls[2]}

    proposal = ResearchStore(Vault.open(sample_vault)).load(doc["id"])
    assert [s.decision for s in proposal.sources] == ["accepted", "undecided", "accepted"]
    assert proposal.pending  # the hatters URL still waits

    proc = run_wikitui(["research", "reject", "latest", "--vault", str(sample_vault)])
    assert proc.returncode == 0 and "1 source rejected" in proc.stderr
    assert sorted(fake_web.fetched_pages()) == ["/pages/dormice", "/pages/tea"]  # rejecting fetches nothing
    assert ResearchStore(Vault.open(sample_vault)).latest() is None


def test_accept_with_ingest_queues_the_clipped_sources_for_a_batch(fake_llm, fake_web, sample_vault):
    urls = three_pages(fake_web)
    research_config(sample_vault, fake_web)
    fake_llm.script(*research_script(urls))
    proc = run_wikitui(["research", "tea", "--vault", str(sample_vault)])
    assert proc.returncode == 0, proc.stderr
    research_id = proc.stdout.split()[0]
    assert research_id.startswith("research-") and "[undecided]" in proc.stdout and "adds tea" in proc.stdout
    proc = run_wikitui(["research", "accept", research_id, urls[1], "--ingest", "--vault", str(sample_vault)])
    assert proc.returncode == 0, proc.stderr
    (batch,) = all_batches(Vault.open(sample_vault))
    assert [e.source for e in batch.entries] == [proc.stdout.strip()] and batch.entries[0].state == "queued"
    assert "ingest --resume" in proc.stderr


def test_research_without_a_provider_says_how_to_add_one_and_exits_2(fake_llm, sample_vault):
    proc = run_wikitui(["research", "tea", "--vault", str(sample_vault)])
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "[research] searxng_url" in proc.stderr
    assert fake_llm.requests == []


def test_accepting_a_url_the_proposal_lacks_is_a_user_error(fake_llm, fake_web, sample_vault):
    urls = three_pages(fake_web)
    research_config(sample_vault, fake_web)
    fake_llm.script(*research_script(urls))
    run_wikitui(["research", "tea", "--vault", str(sample_vault)])
    proc = run_wikitui(["research", "accept", "latest", "http://127.0.0.1:1/other", "--vault", str(sample_vault)])
    assert proc.returncode == 2 and "proposes no" in proc.stderr
    assert fake_web.fetched_pages() == []


def test_the_session_refuses_research_without_a_provider(sample_vault):
    import asyncio

    from wikitui.core.agent.session import AgentSession
    from wikitui.core.workspace import Workspace

    ws = Workspace.open(sample_vault)
    ws.load_graph()
    session = AgentSession(ws.vault, ws.graph, None, load_settings(ws.vault), client=object())
    done = asyncio.run(session.research("tea"))
    assert done.failed and done.sources is None
    assert str(NoSearchProvider()).startswith("no search provider configured")


# ------------------------------------------------------------------- lint's sources pass
def test_lint_offers_web_search_only_with_a_provider_and_its_urls_stay_pending(fake_llm, fake_web, sample_vault):
    fake_llm.script(text("No findings."))
    proc = run_wikitui(["lint", "--semantic", "--vault", str(sample_vault)])
    assert proc.returncode in (0, 1), proc.stderr
    assert "web_search" not in {t["function"]["name"] for t in fake_llm.requests[0]["tools"]}

    urls = three_pages(fake_web)
    research_config(sample_vault, fake_web)
    fake_llm.script(tool_call("web_search", query="dormouse biology"),
                    tool_call("propose_sources", sources=[{"url": urls[2], "why": "the Dormouse page has no source"}]),
                    text("Sources to look for: the Dormouse's biology (proposed)."))
    proc = run_wikitui(["lint", "--semantic", "--json", "--vault", str(sample_vault)])
    assert proc.returncode == 1, proc.stderr
    request = fake_llm.requests[1]
    assert "web_search" in {t["function"]["name"] for t in request["tools"]}
    assert "web_search" in request["messages"][0]["content"]  # the prompt says it may search
    proposal = ResearchStore(Vault.open(sample_vault)).latest()
    assert proposal is not None and proposal.op == "lint" and [s.url for s in proposal.sources] == [urls[2]]
    assert json.loads(proc.stdout)["research"] == proposal.id
    assert fake_web.fetched_pages() == []


def test_a_failed_search_goes_back_to_the_model_as_an_error(fake_llm, fake_web, sample_vault):
    research_config(sample_vault, fake_web)
    fake_web.status = 500
    fake_llm.script(tool_call("web_search", query="tea"), text("The search failed; nothing proposed."))
    proc = run_wikitui(["research", "tea", "--vault", str(sample_vault)])
    assert proc.returncode == 1 and "no source proposed" in proc.stderr
    tool_result = next(m for m in fake_llm.requests[1]["messages"] if m["role"] == "tool")
    assert tool_result["content"].startswith("error:") and "500" in tool_result["content"]


def test_research_exits_3_when_the_model_fails(fake_llm, fake_web, sample_vault):
    research_config(sample_vault, fake_web)
    fake_llm.script(error(401, "invalid api key"))
    proc = run_wikitui(["research", "tea", "--vault", str(sample_vault)])
    assert proc.returncode == 3 and "Traceback" not in proc.stderr


def test_lint_semantic_on_a_clean_wiki_exits_1_when_only_sources_were_proposed(fake_llm, fake_web, tmp_path):
    root = make_vault(tmp_path / "v", {  # a wiki the deterministic checks find nothing wrong with
        "Cat.md": page("Cat", "# Cat\n\nGrins at [[Alice]].\n").replace("---\n\n", "sources: [raw/chapter-01.md]\n---\n\n"),
        "Alice.md": page("Alice", "# Alice\n\nMeets the [[Cat]].\n"),
    }, index="# Index\n\n- [[Cat]]\n- [[Alice]]\n")
    urls = three_pages(fake_web)
    research_config(root, fake_web)
    fake_llm.script(tool_call("web_search", query="cat grin"),
                    tool_call("propose_sources", sources=[{"url": urls[0], "why": "a source for the Cat"}]),
                    text("No finding; one source to look for."))
    proc = run_wikitui(["lint", "--semantic", "--json", "--vault", str(root)])
    doc = json.loads(proc.stdout)
    assert doc["problems"] == [] and doc["changeset"] is None and doc["research"].startswith("research-")
    assert proc.returncode == 1 and "1 web source proposed" in proc.stderr


def test_an_accepted_url_that_cannot_be_clipped_is_reported_and_tried_again_next_time(fake_llm, fake_web, sample_vault):
    urls = three_pages(fake_web)
    gone = fake_web.page_url("gone")
    fake_web.results.append({"url": gone, "title": "A page that went away", "content": "404 soon"})
    research_config(sample_vault, fake_web)
    fake_llm.script(tool_call("web_search", query="tea"),
                    tool_call("propose_sources", sources=[{"url": gone, "why": "gone"}, {"url": urls[0], "why": "tea"}]),
                    text("Two sources."))
    assert run_wikitui(["research", "tea", "--vault", str(sample_vault)]).returncode == 0
    before = raw_files(sample_vault)
    proc = run_wikitui(["research", "accept", "latest", "--vault", str(sample_vault)])  # every undecided one
    assert proc.returncode == 1 and "not clipped" in proc.stderr and "404" in proc.stderr
    assert len(raw_files(sample_vault) - before) == 1
    proposal = ResearchStore(Vault.open(sample_vault)).latest()
    assert proposal is not None and proposal.find(gone).decision == "accepted" and proposal.find(gone).error
    fake_web.add_page("gone", "A page that came back", "It is back, with enough words to be an article's text.")
    proc = run_wikitui(["research", "accept", proposal.id, gone, "--vault", str(sample_vault)])
    assert proc.returncode == 0 and len(raw_files(sample_vault) - before) == 2
    assert ResearchStore(Vault.open(sample_vault)).latest() is None


def test_smoke_the_real_command_without_a_provider(sample_vault):
    from tests.cli_run import real_wikitui

    proc = real_wikitui(["research", "tea", "--vault", str(sample_vault)], timeout=120)
    assert proc.returncode == 2 and "[research] searxng_url" in proc.stderr and proc.stdout == ""
