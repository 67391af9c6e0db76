"""The wiki checks itself, through the real session and the fake model server (DESIGN §11).

Citations checked and returned once to the model; ``ask --json``; a contradiction
callout proposed then listed by lint; two near-duplicate pages merged with their
inbound links rewritten; ``/file`` linking the answer from the pages it cites.
"""

from __future__ import annotations

import io
import json

from tests.core.test_headless import fast_client, run
from tests.core.test_session import Chat, sent
from tests.fakeserver import text, tool_call
from wikitui.core.agent.citations import builder_unresolved, check_citations, hunk_unresolved, proposal_unresolved
from wikitui.core.agent.events import Notice
from wikitui.core.agent.headless import run_ask
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.lint import run_lint
from wikitui.core.workspace import Workspace

BAD = "The [[Dodo]] organised it ([[Nonexistent Page]], raw/nothere.md); the text is raw/chapter-03.md."
FIXED = "The [[Dodo]] organised it (raw/chapter-03.md)."


async def test_an_answer_with_bad_citations_is_returned_once_to_the_model(fake_llm, sample_vault):
    fake_llm.script(text(BAD), text(BAD))  # the model does not fix them: asked once, then listed
    chat = Chat(sample_vault)
    done = await chat.session.ask("Who organised the race?")
    assert len(fake_llm.requests) == 2
    feedback = sent(fake_llm, 1)[-1]
    assert feedback["role"] == "user" and feedback["content"].startswith("[wikitui: citations checked:")
    assert "[[Nonexistent Page]], raw/nothere.md" in feedback["content"]
    assert "[[Dodo]]" not in feedback["content"] and "chapter-03" not in feedback["content"]
    assert done.text == BAD
    notes = [n.text for n in chat.of(Notice)]
    assert "Unresolved citations: Nonexistent Page, raw/nothere.md" in notes


async def test_a_model_that_fixes_its_citations_ends_the_turn_clean(fake_llm, sample_vault):
    fake_llm.script(text(BAD), text(FIXED))
    chat = Chat(sample_vault)
    done = await chat.session.ask("Who organised the race?")
    assert done.text == FIXED and len(fake_llm.requests) == 2
    assert not any(n.text.startswith("Unresolved citations") for n in chat.of(Notice))


def test_citations_resolve_like_links_and_pages_of_sources(sample_vault):
    graph = LinkGraph.load(Vault.open(sample_vault))
    cited = check_citations("[[dodo]], [[Dodo#Nowhere]], [[Mad Hatter|him]], `raw/chapter-07.md`, "
                            "raw/chapter-07.md#page=3, [x](wiki/characters/mouse.md) and [[Nobody]].", graph)
    assert [(c.target, c.path) for c in cited] == [
        ("dodo", "wiki/characters/dodo.md"), ("Dodo#Nowhere", "wiki/characters/dodo.md"),
        ("Mad Hatter", "wiki/characters/mad-hatter.md"), ("raw/chapter-07.md", "raw/chapter-07.md"),
        ("raw/chapter-07.md#page=3", None),  # a text file has no pages
        ("wiki/characters/mouse.md", "wiki/characters/mouse.md"), ("Nobody", None)]
    assert check_citations("```\n[[Nobody]] raw/none.md\n```\n", graph)[0].target == "raw/none.md"


def test_ask_json_lists_citations_and_the_unresolved(fake_llm, sample_vault):
    fake_llm.script(text(BAD), text(BAD))
    code, out, err = run(run_ask, sample_vault, "Who organised the race?", client=fast_client(), as_json=True)
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["answer", "citations", "unresolved", "changeset", "tokens", "cost"]
    assert data["answer"] == BAD and data["changeset"] is None
    assert data["citations"] == [
        {"target": "Dodo", "path": "wiki/characters/dodo.md"}, {"target": "Nonexistent Page", "path": None},
        {"target": "raw/nothere.md", "path": None}, {"target": "raw/chapter-03.md", "path": "raw/chapter-03.md"}]
    assert data["unresolved"] == ["Nonexistent Page", "raw/nothere.md"]
    assert set(data["tokens"]) == {"in", "out"} and isinstance(data["cost"], float)
    assert "Unresolved citations: Nonexistent Page, raw/nothere.md" in err  # stderr lists them too


def edit(path, old, new, reason="r"):
    return tool_call("propose_edit", path=path, edits=[{"old": old, "new": new}], reason=reason)


async def test_a_contradiction_callout_proposed_is_then_listed_by_lint(fake_llm, sample_vault):
    callout = ("> [!contradiction] The Dodo gives the prizes — [[Alice]] says she hands out the comfits "
               "(raw/chapter-03.md)")
    fake_llm.script(edit("wiki/characters/dodo.md", "Its remedy is the Caucus-race.",
                         "Its remedy is the Caucus-race.\n\n" + callout), text("Noted on [[Dodo]]."))
    chat = Chat(sample_vault)
    done = await chat.session.ask("Note the disagreement about the prizes")
    ws = Workspace.open(sample_vault)
    ws.require_graph()
    ws.apply(done.changeset)
    vault = Vault.open(sample_vault)
    found = [p for p in run_lint(vault, LinkGraph.load(vault)).problems if p.check == "contradiction"
             and p.path == "wiki/characters/dodo.md"]
    assert [(p.target, p.message) for p in found] == [("Alice", "The Dodo gives the prizes")]


async def test_a_proposal_adding_a_broken_link_is_returned_and_its_hunk_marked(fake_llm, sample_vault):
    fake_llm.script(edit("wiki/characters/dodo.md", "Its remedy is the Caucus-race.",
                         "Its remedy is the Caucus-race ([[Caucus Rules]])."),
                    text("Linked the rules from [[Dodo]]."), text("I cannot find the rules' page."))
    chat = Chat(sample_vault)
    done = await chat.session.ask("Link the rules")
    assert not done.failed and len(fake_llm.requests) == 3
    assert "your proposals add [[Caucus Rules]] (in wiki/characters/dodo.md)" in sent(fake_llm, 2)[-1]["content"]
    graph = LinkGraph.load(Vault.open(sample_vault))
    assert proposal_unresolved(done.changeset, graph) == [("wiki/characters/dodo.md", "Caucus Rules")]
    assert builder_unresolved(chat.session.turns[-1].builder, graph) == proposal_unresolved(done.changeset, graph)
    marks = hunk_unresolved(done.changeset, graph)
    assert list(marks.values()) == [["Caucus Rules"]]
    assert list(marks)[0] in {h.id for h in done.changeset.files[0].hunks}


def test_a_link_to_a_page_the_same_changeset_deletes_is_unresolved(sample_vault):
    from wikitui.core.changes.builder import ChangesetBuilder

    vault = Vault.open(sample_vault)
    graph = LinkGraph.load(vault)
    b = ChangesetBuilder(vault, graph)
    b.delete("wiki/characters/dinah.md", "merged elsewhere")
    b.edit("wiki/characters/dodo.md", [{"old": "Its remedy is the Caucus-race.",
                                        "new": "Its remedy is the Caucus-race ([[Dinah]] was not there)."}], "r")
    b.move("wiki/characters/mouse.md", "wiki/characters/the-mouse.md", "rename")
    b.new_page("wiki/concepts/tails.md", "---\ntitle: Tails\ntype: concept\nsummary: s\n---\n\n"
               "The [[Mouse]]'s tale, told to [[Alice]].\n", "new")
    assert builder_unresolved(b, graph) == [("wiki/characters/dodo.md", "Dinah")]  # the moved Mouse still resolves
    changeset = b.build("edit", "t")
    assert proposal_unresolved(changeset, graph) == [("wiki/characters/dodo.md", "Dinah")]
    assert ["Dinah"] in hunk_unresolved(changeset, graph).values()


async def test_two_near_duplicate_pages_merged_with_inbound_links_rewritten(fake_llm, sample_vault):
    kitty = ("---\ntitle: Cheshire Kitty\ntype: entity\nsummary: The grinning cat.\naliases: [The Grin]\n"
             "sources: [raw/chapter-08.md]\n---\n\n# Cheshire Kitty\n\nIt appears over the croquet-ground.\n\n"
             "Its owner: [the Duchess](../characters/duchess.md).\n")
    (sample_vault / "wiki/objects/cheshire-kitty.md").write_text(kitty, encoding="utf-8")  # another folder
    with (sample_vault / "wiki/characters/duchess.md").open("a", encoding="utf-8") as fh:
        fh.write("\nHer pet is the [[Cheshire Kitty]]; see also [the grin](../objects/cheshire-kitty.md).\n")
    fake_llm.script(tool_call("propose_merge", from_path="wiki/objects/cheshire-kitty.md",
                              into_path="Cheshire Cat", reason="the same cat"), text("Merged into [[Cheshire Cat]]."))
    chat = Chat(sample_vault)
    done = await chat.session.ask("Merge the two cat pages")
    files = {f.path: f for f in done.changeset.files}
    assert files["wiki/objects/cheshire-kitty.md"].action == "delete"
    merged = files["wiki/characters/cheshire-cat.md"].new_text
    assert "Cheshire Kitty" in merged.split("---", 2)[1] and "The Grin" in merged.split("---", 2)[1]
    assert "raw/chapter-08.md" in merged.split("---", 2)[1]
    assert "## Cheshire Kitty\n\nIt appears over the croquet-ground." in merged
    assert "Its owner: [the Duchess](duchess.md)." in merged  # its relative links work from the new folder
    duchess = files["wiki/characters/duchess.md"].new_text
    assert "[[Cheshire Cat|Cheshire Kitty]]" in duchess and "[the grin](cheshire-cat.md)" in duchess
    ws = Workspace.open(sample_vault)
    ws.require_graph()
    ws.apply(done.changeset)
    vault = Vault.open(sample_vault)
    graph = LinkGraph.load(vault)
    assert not (sample_vault / "wiki/objects/cheshire-kitty.md").exists()
    assert graph.find_page("Cheshire Kitty") == "wiki/characters/cheshire-cat.md"
    assert not [p for p in run_lint(vault, graph).problems if p.check == "broken-link"
                and p.path == "wiki/characters/duchess.md"]


async def test_a_merge_rewrites_links_in_pages_the_same_turn_proposed(fake_llm, sample_vault):
    kitty = "---\ntitle: Cheshire Kitty\ntype: entity\nsummary: s\n---\n\nIt grins.\n"
    (sample_vault / "wiki/characters/cheshire-kitty.md").write_text(kitty, encoding="utf-8")
    grin = "---\ntitle: The Grin\ntype: concept\nsummary: s\n---\n\nLeft by the [[Cheshire Kitty]].\n"
    fake_llm.script(tool_call("propose_page", path="wiki/concepts/grin.md", content=grin, reason="new"),
                    tool_call("propose_edit", path="wiki/characters/dodo.md",
                              edits=[{"old": "Its remedy is the Caucus-race.", "new": "Its remedy is the Caucus-race (the [[cheshire-kitty]] watched)."}],
                              reason="r"),
                    tool_call("propose_merge", from_path="Cheshire Kitty", into_path="Cheshire Cat", reason="r"),
                    text("Merged into [[Cheshire Cat]]."))
    done = await Chat(sample_vault).session.ask("Write about the grin, then merge the cats")
    files = {f.path: f for f in done.changeset.files}
    assert "Left by the [[Cheshire Cat|Cheshire Kitty]]." in files["wiki/concepts/grin.md"].new_text
    assert "Caucus-race (the [[Cheshire Cat|cheshire-kitty]] watched)." in files["wiki/characters/dodo.md"].new_text
    assert files["wiki/characters/cheshire-kitty.md"].action == "delete"


async def test_a_merge_of_a_page_into_itself_or_nowhere_records_nothing(fake_llm, sample_vault):
    fake_llm.script(tool_call("propose_merge", from_path="Dodo", into_path="wiki/characters/dodo.md", reason="r"),
                    tool_call("propose_merge", from_path="Nobody At All", into_path="Dodo", reason="r"),
                    text("Nothing merged."))
    chat = Chat(sample_vault)
    done = await chat.session.ask("Merge")
    assert done.changeset is None
    results = [m["content"] for m in sent(fake_llm, 2) if m["role"] == "tool"]
    assert "are the same page" in results[0] and "is not a page of the wiki" in results[1]


async def test_file_links_the_answer_from_the_pages_it_cites(fake_llm, sample_vault):
    fake_llm.script(text("The [[Dodo]] organised it; the [[Mouse]] was wet (raw/chapter-03.md)."))
    chat = Chat(sample_vault)
    await chat.session.ask("Who organised the race?")
    filed = await chat.session.file_answer()
    files = {f.path: f for f in filed.changeset.files}
    assert list(files) == ["wiki/answers/who-organised-the-race.md", "wiki/characters/dodo.md",
                           "wiki/characters/mouse.md"]
    for cited in ("wiki/characters/dodo.md", "wiki/characters/mouse.md"):
        assert files[cited].new_text.endswith(
            "\n\nFiled answer: [[answers/who-organised-the-race|Who organised the race?]]\n")
    ws = Workspace.open(sample_vault)
    ws.require_graph()
    ws.apply(filed.changeset)
    graph = LinkGraph.load(Vault.open(sample_vault))
    back = {b.source for b in graph.backlinks("wiki/answers/who-organised-the-race.md")}
    assert {"wiki/characters/dodo.md", "wiki/characters/mouse.md"} <= back


async def test_the_lint_pass_is_asked_to_merge_near_duplicates(fake_llm, sample_vault):
    fake_llm.script(text("## Findings\nnone"))
    # A 16k window: at the 8k default the sample's lint report and the ten tools (with evidence) take more than
    # half of it, and the compact prompt is chosen (tests/core/test_compact_window.py covers that choice).
    await Chat(sample_vault, context_tokens=16384).session.lint()
    system = sent(fake_llm, 0)[0]["content"]
    assert "read BOTH pages in full" in system and "merge a pair with propose_merge" in system
    assert "propose_move, propose_chart, propose_merge)" in system  # the role names the tool among the changes it can propose


def test_a_source_edited_after_ingest_makes_every_page_citing_it_stale(fake_llm, sample_vault):
    from tests.core.test_headless import ingest_script
    from wikitui.core.agent.headless import run_ingest

    fake_llm.script(*ingest_script())
    code, _out, err = run(run_ingest, sample_vault, "raw/chapter-03.md", apply=True, client=fast_client())
    assert code == 0, err
    with (sample_vault / "raw/chapter-03.md").open("a", encoding="utf-8") as fh:
        fh.write("\nA correction to the chapter.\n")
    vault = Vault.open(sample_vault)
    stale = {p.path for p in run_lint(vault, LinkGraph.load(vault)).problems
             if p.check == "stale" and p.target == "raw/chapter-03.md"}
    assert "wiki/themes/caucus-race.md" in stale  # written by the ingest
    assert "wiki/characters/mouse.md" in stale  # never written by wikitui: it cites the chapter too
    assert "wiki/characters/dodo.md" in stale  # edited by the ingest


def test_the_cli_ask_json_prints_one_object(fake_llm, sample_vault, capsys):
    from wikitui.cli import main

    fake_llm.script(text(FIXED))
    code = main(["ask", "Who organised the race?", "--json", "--vault", str(sample_vault)])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)  # stdout holds the object alone
    assert data["answer"] == FIXED and data["unresolved"] == []
    assert data["citations"] == [{"target": "Dodo", "path": "wiki/characters/dodo.md"},
                                 {"target": "raw/chapter-03.md", "path": "raw/chapter-03.md"}]


async def test_a_merge_keeps_anchors_labels_and_embeds_and_leaves_the_generated_index_alone(fake_llm, sample_vault):
    kitty = "---\ntitle: Cheshire Kitty\ntype: entity\nsummary: s\n---\n\n## Grin\n\nSee [[Cheshire Kitty#Grin]].\n"
    (sample_vault / "wiki/characters/cheshire-kitty.md").write_text(kitty, encoding="utf-8")
    with (sample_vault / "wiki/characters/mouse.md").open("a", encoding="utf-8") as fh:
        fh.write("\n[[Cheshire Kitty#Grin|the grin]] and ![[cheshire-kitty]] and [[cheshire-kitty]].\n")
    fake_llm.script(tool_call("propose_merge", from_path="Cheshire Kitty", into_path="Cheshire Cat", reason="r"),
                    text("Merged into [[Cheshire Cat]]."))
    done = await Chat(sample_vault).session.ask("Merge")
    files = {f.path: f for f in done.changeset.files}
    mouse = files["wiki/characters/mouse.md"].new_text
    assert ("[[Cheshire Cat#Grin|the grin]] and ![[Cheshire Cat|cheshire-kitty]] and [[Cheshire Cat|cheshire-kitty]]."
            in mouse)
    assert "See [[Cheshire Cat#Grin|Cheshire Kitty]]." in files["wiki/characters/cheshire-cat.md"].new_text
    assert "wiki/index.md" not in files  # its catalog is regenerated after the apply


def test_ask_json_with_file_names_the_filed_changeset(fake_llm, sample_vault):
    fake_llm.script(text(FIXED))
    code, out, err = run(run_ask, sample_vault, "Who organised the race?", file=True, client=fast_client(),
                         as_json=True)
    assert code == 0, err
    data = json.loads(out)  # the object only: no patch on stdout
    assert data["answer"] == FIXED
    assert [c.id for c in PendingStore(Vault.open(sample_vault)).list()] == [data["changeset"]]


async def test_an_answer_may_cite_the_page_it_proposes_and_name_a_folder(fake_llm, sample_vault):
    page = "---\ntitle: Caucus Rules\ntype: concept\nsummary: s\n---\n\nEveryone wins ([[Dodo]]).\n"
    fake_llm.script(tool_call("propose_page", path="wiki/concepts/caucus-rules.md", content=page, reason="r"),
                    text("I proposed [[Caucus Rules]]; the chapters are in raw/ and raw/assets/."))
    chat = Chat(sample_vault)
    done = await chat.session.ask("Write the rules down")
    assert len(fake_llm.requests) == 2 and not done.failed  # nothing returned to the model
    assert not any(n.text.startswith("Unresolved citations") for n in chat.of(Notice))


def test_a_piped_ask_prints_only_the_revised_answer_after_a_citation_retry(fake_llm, sample_vault):
    # `wikitui ask ... > answer.md`: the file holds the answer the model gave after its citations
    # went back, once; stderr says it was revised (issue 21.5).
    fake_llm.script(text(BAD), text(FIXED))
    code, out, err = run(run_ask, sample_vault, "Who organised the race?", client=fast_client())
    assert code == 0, err
    assert out == FIXED + "\n"
    assert "citations went back to the model once; the revised answer replaces it" in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_answer_streams_and_the_revision_is_announced_between(fake_llm, sample_vault):
    fake_llm.script(text(BAD), text(FIXED))
    out, err = _Terminal(), io.StringIO()
    code = run_ask(Workspace.open(sample_vault), "Who organised the race?", client=fast_client(), out=out, err=err)
    assert code == 0, err.getvalue()
    assert out.getvalue() == BAD + "\n" + FIXED + "\n"  # streamed as it came
    assert "the revised answer follows" in err.getvalue()
