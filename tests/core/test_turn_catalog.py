"""Context at any size (DESIGN §13): a catalog past its share is chosen for the turn, not cut at a line.

A generated vault of 3,000 pages, its index.md written by wikitui's own catalog, and an
8,192-token window: index.md is about forty times the share the request gives it.
"""

from __future__ import annotations

import random
import shutil

import pytest

from tests.fakeserver import text
from wikitui.core.agent.events import AgentError, Notice
from wikitui.core.agent.llm import LLMClient
from wikitui.core.agent.prompts.system import cut_to_tokens
from wikitui.core.agent.session import AgentSession
from wikitui.core.config.settings import load_settings
from wikitui.core.search.facade import SearchIndex
from wikitui.core.vault.catalog import render_index
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault

PAGES = 3000
WINDOW = 8192
TYPES = ("source", "entity", "concept", "topic")
_SYLLABLES = ("ka", "lo", "mi", "ne", "tor", "sal", "ver", "qui", "dan", "pel", "rus", "ith", "ox", "bre", "gan")
#: Late in the alphabet, in the last group (Topics): its line is past any cut of the catalog.
DEEP = ("Zorvath Quillmere", "topic", "The harbour city where the glass bells of the northern coast are cast.")
#: Three pages a source is about (one early, two late in the catalog).
ABOUT = (("Amberwick Fennel", "entity", "A herbalist who keeps the physic garden at the old abbey."),
         ("Tessaly Marrowgate", "concept", "The rule that a ferry may not leave until the bell has rung thrice."),
         ("Wyndra Oakhollow", "source", "A ledger of the river tolls paid at the mill between two floods."))


def _name(rng: random.Random) -> str:
    return " ".join("".join(rng.choice(_SYLLABLES) for _ in range(3)).title() for _ in range(2))


def _page(title: str, kind: str, summary: str) -> str:
    return f"---\ntitle: {title}\ntype: {kind}\nsummary: {summary}\n---\n\n# {title}\n\n{summary}\n"


def _generate(root) -> None:
    rng = random.Random(5)
    (root / "raw").mkdir(parents=True)
    wiki = root / "wiki"
    wiki.mkdir()
    (root / "WIKI.md").write_text("# Schema\n\nOne page per place, person, idea or source.\n", encoding="utf-8")
    seen: set[str] = set()
    for i in range(PAGES - 1 - len(ABOUT)):
        title = _name(rng)
        while title in seen:
            title = _name(rng)
        seen.add(title)
        kind = TYPES[i % len(TYPES)]
        summary = f"{' '.join(_name(rng).lower() for _ in range(3))} of the {kind} kind"
        (wiki / f"p{i:04d}.md").write_text(_page(title, kind, summary), encoding="utf-8")
    for n, (title, kind, summary) in enumerate((DEEP, *ABOUT)):
        (wiki / f"named-{n}.md").write_text(_page(title, kind, summary), encoding="utf-8")
    (root / ".wikitui").mkdir()
    (root / ".wikitui" / "config.toml").write_text(f"context_tokens = {WINDOW}\n", encoding="utf-8")
    (root / "raw" / "river-journal.md").write_text(
        "# A week on the river\n\n## The abbey garden\n\nAmberwick Fennel showed us the physic garden.\n\n"
        "## The ferry\n\nThe ferry waited: Tessaly Marrowgate, the bell rang thrice.\n\n## The mill\n\n"
        "At the mill the keeper opened Wyndra Oakhollow, the toll ledger.\n", encoding="utf-8")
    vault = Vault.open(root)
    head = "# Index\n\nThe places and people of the river country.\n\n<!-- wikitui:index -->\n"
    (root / vault.index_path).write_text(render_index(vault, LinkGraph.load(vault), head), encoding="utf-8")


@pytest.fixture(scope="module")
def big_vault(tmp_path_factory):
    """The generated vault and its search index (built once: the tests read it, their sessions write .wikitui/)."""
    root = tmp_path_factory.mktemp("ctx") / "vault"
    _generate(root)
    vault = Vault.open(root)
    index = SearchIndex(vault)
    index.update(LinkGraph.load(vault))
    index.close()
    return root


class Chat:
    def __init__(self, root, *, search: bool = True):
        self.vault = Vault.open(root)
        self.graph = LinkGraph.load(self.vault)
        self.events: list = []
        settings = load_settings(self.vault)
        self.client = LLMClient(settings)
        self.index = SearchIndex(self.vault) if search else None
        self.session = AgentSession(self.vault, self.graph, self.index, settings, client=self.client,
                                    on_event=self.events.append)

    def errors(self) -> list[str]:
        return [e.message for e in self.events if isinstance(e, AgentError)]

    def share(self) -> int:
        """WIKI.md + index.md's share of the window: a quarter, an eighth with the compact prompt."""
        compact = any(isinstance(e, Notice) and e.text.startswith("compact prompt") for e in self.events)
        return WINDOW // (8 if compact else 4)


def _sections(system: str, index_path: str) -> tuple[str, str]:
    """(WIKI.md's section, index.md's section) of a system prompt."""
    wiki_md = system[system.index("## WIKI.md"):system.index(f"## {index_path}\n")]
    return wiki_md, system[system.index(f"## {index_path}\n"):system.rindex("\n\n## ")]  # the task is last


def _entry(chat: Chat, title: str, summary: str) -> str:
    return f"- [[{title}]] — {summary}"


async def test_an_ask_about_a_page_deep_in_the_alphabet_carries_its_entry(fake_llm, big_vault):
    before = (big_vault / "wiki" / "index.md").read_bytes()
    chat = Chat(big_vault)
    fake_llm.script(text("It is a harbour city [[Zorvath Quillmere]]."))
    done = await chat.session.ask("Where are the glass bells of Zorvath Quillmere cast?")
    assert not done.failed, chat.errors()
    request = fake_llm.requests[0]
    system = request["messages"][0]["content"]
    wiki_md, index = _sections(system, chat.vault.index_path)
    entry = _entry(chat, DEEP[0], DEEP[2])
    whole = before.decode()
    cut, _tokens, _note = cut_to_tokens(whole, chat.share(), chat.client.count_tokens, "index.md")
    assert entry in whole and entry not in cut  # a cut at a line would have lost it
    assert entry in index
    assert "The places and people of the river country." in index  # the user's text above the marker
    assert f"The catalog lists {PAGES:,} pages (Sources 750, Entities 750, Concepts 750, Topics 750)" in index
    assert "more pages are not listed here: find them with search(query) or list_pages(type=...)." in index
    assert "is cut here" not in system
    count = chat.session._count_text  # the counter the fitting uses
    assert count(wiki_md) + count(index) <= chat.share() + 40  # + the two headings
    assert fake_llm.count_tokens(request) <= WINDOW - WINDOW // 8
    assert (big_vault / "wiki" / "index.md").read_bytes() == before


async def test_an_ingest_carries_the_entries_of_the_pages_its_source_is_about(fake_llm, big_vault):
    before = (big_vault / "wiki" / "index.md").read_bytes()
    chat = Chat(big_vault)
    fake_llm.script(text("Plan: update the three pages."))
    done = await chat.session.ingest("raw/river-journal.md")
    assert not done.failed, chat.errors()
    _wiki_md, index = _sections(fake_llm.requests[0]["messages"][0]["content"], chat.vault.index_path)
    for title, _kind, summary in ABOUT:
        assert _entry(chat, title, summary) in index, title
    assert fake_llm.count_tokens(fake_llm.requests[0]) <= WINDOW - WINDOW // 8
    assert (big_vault / "wiki" / "index.md").read_bytes() == before


async def test_without_a_search_index_the_graph_finds_the_entries(fake_llm, big_vault):
    chat = Chat(big_vault, search=False)
    fake_llm.script(text("A harbour city."))
    done = await chat.session.ask("What is Zorvath Quillmere?")
    assert not done.failed, chat.errors()
    _wiki_md, index = _sections(fake_llm.requests[0]["messages"][0]["content"], chat.vault.index_path)
    assert _entry(chat, DEEP[0], DEEP[2]) in index
    assert "more pages are not listed here" in index


async def test_a_hand_kept_index_keeps_its_headings_and_the_relevant_lines(fake_llm, big_vault, tmp_path):
    root = tmp_path / "own"
    shutil.copytree(big_vault, root, ignore=shutil.ignore_patterns("index", "sessions"))
    graph = LinkGraph.load(Vault.open(root))
    lines = ["# My index", ""]
    for kind in TYPES:
        lines += [f"## My {kind}s", ""]
        lines += [f"* [[{i.title}]]: {i.summary}" for i in sorted(graph.pages.values(), key=lambda i: i.title)
                  if i.type == kind]
        lines.append("")
    (root / "wiki" / "index.md").write_text("\n".join(lines), encoding="utf-8")
    chat = Chat(root, search=False)
    fake_llm.script(text("A harbour city."))
    done = await chat.session.ask("What is Zorvath Quillmere?")
    assert not done.failed, chat.errors()
    _wiki_md, index = _sections(fake_llm.requests[0]["messages"][0]["content"], chat.vault.index_path)
    assert f"* [[{DEEP[0]}]]: {DEEP[2]}" in index
    assert all(f"## My {kind}s" in index for kind in TYPES)
    assert "more lines of wiki/index.md are not shown here" in index
    assert chat.session._count_text(index) <= chat.share()


async def test_an_index_that_fits_is_sent_whole(fake_llm, sample_vault):
    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui" / "config.toml").write_text("context_tokens = 65536\n")
    chat = Chat(sample_vault, search=False)
    fake_llm.script(text("Alice is the heroine [[Alice]]."))
    done = await chat.session.ask("Who is Alice?")
    assert not done.failed, chat.errors()
    _wiki_md, index = _sections(fake_llm.requests[0]["messages"][0]["content"], chat.vault.index_path)
    whole = (sample_vault / "wiki" / "index.md").read_text(encoding="utf-8").rstrip()
    assert index == f"## {chat.vault.index_path}\n{whole}"
    assert "not listed here" not in index


async def test_a_health_check_carries_the_most_linked_pages(fake_llm, big_vault, tmp_path):
    root = tmp_path / "linked"
    shutil.copytree(big_vault, root, ignore=shutil.ignore_patterns("index", "sessions"))
    for n in range(5):  # the deep page becomes the wiki's hub
        with (root / "wiki" / f"p{n:04d}.md").open("a", encoding="utf-8") as f:
            f.write(f"\nSee [[{DEEP[0]}]].\n")
    chat = Chat(root, search=False)
    fake_llm.script(text("Findings: none."))
    done = await chat.session.lint()
    assert not done.failed, chat.errors()
    _wiki_md, index = _sections(fake_llm.requests[0]["messages"][0]["content"], chat.vault.index_path)
    assert _entry(chat, DEEP[0], DEEP[2]) in index
    assert "more pages are not listed here" in index


def test_a_share_too_small_for_the_shape_keeps_what_a_cut_keeps(big_vault):
    from wikitui.core.agent.turn_catalog import Focus, TurnCatalog

    vault = Vault.open(big_vault)
    catalog = TurnCatalog(vault, LinkGraph.load(vault), None, Focus("Zorvath Quillmere"))
    index = (big_vault / vault.index_path).read_text(encoding="utf-8")
    count = LLMClient(load_settings(vault)).count_tokens
    assert catalog.fit(index, 0, lambda s: count(text=s), 3.0) == ("", 0)
    chosen, tokens = catalog.fit(index, 400, lambda s: count(text=s), 3.0)
    assert f"[[{DEEP[0]}]]" in chosen and tokens <= 400
