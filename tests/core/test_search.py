"""Search: a person indexes a vault, searches it, edits files and searches again.

Small vaults are written into tmp_path so each test knows exactly what is on disk;
the sample vault and the real corpora check the same behaviour on real text.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from wikitui.core.base.errors import BadQuery
from wikitui.core.search.facade import SearchIndex
from wikitui.core.search.whoosh import backend as search_mod
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def page(title: str, body: str, *, type_: str = "concept", tags: str = "[]", summary: str = "", aliases: str = "[]") -> str:
    return (
        f"---\ntitle: {title}\ntype: {type_}\nsummary: {summary or title + ' in one line'}\n"
        f"tags: {tags}\naliases: {aliases}\n---\n\n# {title}\n\n{body}\n"
    )


def bump(path: Path, text: str) -> None:
    """Rewrite a file and make sure its mtime moves even on coarse-clock filesystems."""
    before = path.stat().st_mtime_ns
    path.write_text(text, encoding="utf-8")
    if path.stat().st_mtime_ns == before:
        os.utime(path, ns=(before + 1_000_000, before + 1_000_000))


@pytest.fixture(scope="module")
def converted_text(tmp_path_factory) -> Path:
    """The converted-text cache of :func:`vault`'s sources, made once for the module.

    Converting raw/page.html starts a conversion child (trafilatura: ~0.7 s), and the cache
    is keyed by content: every copy of the vault starts with it, as a vault that was
    indexed once does. What a conversion does is tested in tests/core/test_formats*.py.
    """
    root = _vault_files(tmp_path_factory.mktemp("converted") / "v")
    SearchIndex(Vault.open(root)).update()
    return root / ".wikitui" / "text"


@pytest.fixture
def vault(tmp_path, converted_text) -> Vault:
    """A small English vault: pages of several types and tags, and raw sources."""
    root = _vault_files(tmp_path / "v")
    shutil.copytree(converted_text, root / ".wikitui" / "text")
    return Vault.open(root)


def _vault_files(root: Path) -> Path:
    write(root, "WIKI.md", "# Schema\n")
    write(root, "wiki/index.md", "# Index\n\n- [[Gryphon]]\n")
    write(
        root,
        "wiki/entities/gryphon.md",
        page("Gryphon", "A lazy creature who escorts Alice.\nIt sleeps in the sun.", type_="entity", tags="[character, sea]"),
    )
    write(
        root,
        "wiki/sources/chapter-9.md",
        page(
            "Chapter 9",
            "The Queen finds the gryphon asleep. The gryphon wakes, the gryphon laughs,\n"
            "and the gryphon takes Alice to the Mock Turtle. More gryphon talk follows.\n"
            "Later a white rabbit hurries past.\n\nThe rabbit is late. Everything is white.",
            type_="source",
        ),
    )
    write(
        root,
        "wiki/concepts/marmalade.md",
        page("Orange jar", "Line one.\nLine two.\nShe took down a jar of ORANGE MARMALADE from a shelf.", tags="[food]"),
    )
    write(root, "raw/chapter-01.md", "# CHAPTER I. Down the Rabbit-Hole\n\nAlice was beginning to get very tired.\n")
    write(root, "raw/notes.txt", "first line\nthe hookah smoking caterpillar\n")
    write(root, "raw/page.html", "<html><head><style>p {color: red}</style></head>\n<body><div class='x'>\n<p>A croquet game with flamingos</p></div></body></html>\n")
    write(root, "raw/assets/diagram.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    return root


@pytest.fixture
def index(vault) -> SearchIndex:
    idx = SearchIndex(vault)
    stats = idx.update()
    assert stats.added == 8 and stats.rebuilt
    yield idx
    idx.close()


def paths(hits) -> list[str]:
    return [h.path for h in hits]


# ----------------------------------------------------------------- finding things
def test_a_word_in_a_page_body_is_found_with_a_snippet_and_its_line(index):
    hits = index.search("marmalade")
    assert paths(hits) == ["wiki/concepts/marmalade.md"]
    hit = hits[0]
    assert hit.kind == "page" and hit.title == "Orange jar" and hit.score > 0
    assert "**MARMALADE**" in hit.snippet and "jar of ORANGE" in hit.snippet
    lines = (index.vault.root / hit.path).read_text().splitlines()
    assert "MARMALADE" in lines[hit.line - 1]
    assert hit.line == 13  # frontmatter (7 lines), blank, heading, blank, two lines, then the match


def test_the_snippet_shows_the_line_with_most_query_words(index):
    body = "A hamstery is not a hamster.\nThe hamster ran.\nUnrelated line.\nThe velvet hamster ran home.\n"
    write(index.vault.root, "wiki/concepts/runs.md", page("Runs", body))
    index.update()
    (hit,) = index.search("velvet hamster")
    assert hit.line == 14 and hit.snippet == "The **velvet** **hamster** ran home."
    (hit,) = index.search("hamster")  # the first line with the word itself, not "hamstery"
    assert hit.line == 11 and hit.snippet == "A hamstery is not a **hamster**."


def test_a_title_match_ranks_above_a_page_that_repeats_the_word(index):
    hits = paths(index.search("gryphon"))
    assert hits[0] == "wiki/entities/gryphon.md"  # title "Gryphon", the word once in its body
    assert "wiki/sources/chapter-9.md" in hits  # the word five times, not in its title


def test_a_phrase_needs_its_words_side_by_side(index):
    assert paths(index.search('"white rabbit"')) == ["wiki/sources/chapter-9.md"]
    # The same words apart match as separate words only.
    write(index.vault.root, "wiki/concepts/apart.md", page("Apart", "white cliffs and a rabbit"))
    index.update()
    assert paths(index.search('"white rabbit"')) == ["wiki/sources/chapter-9.md"]
    assert set(paths(index.search("white rabbit"))) == {"wiki/sources/chapter-9.md", "wiki/concepts/apart.md"}


def test_a_phrase_is_shown_and_opened_at_the_line_that_holds_it(tmp_path):
    # Issue 21.7: the sample's "mad here" was shown at an early line holding "here" only.
    root = tmp_path / "v"
    write(root, "WIKI.md", "# Schema\n")
    early = "".join(f"'I shall sit here,' said voice {i}, 'or here, or there.'\n" for i in range(30))
    filler = "".join(f"Line {i} of ordinary prose about nothing much.\n" for i in range(40))
    write(root, "raw/chapter.md", "# Pig and Pepper\n\n" + early + filler + "'We're all mad here. I'm mad.'\n")
    from wikitui.core.search.whoosh.querying import SNIPPET_HEAD

    deep = "".join(f"Here is line {i}, nothing in it, just padding text.\n" for i in range(600))
    assert len(deep) > SNIPPET_HEAD
    write(root, "raw/deep.md", "# Deep\n" + deep + "Everyone is mad here, said the cat.\n")
    idx = SearchIndex(Vault.open(root))
    idx.update()
    hits = {h.path: h for h in idx.search('"mad here"')}
    lines = (root / "raw/chapter.md").read_text().splitlines()
    hit = hits["raw/chapter.md"]
    assert lines[hit.line - 1] == "'We're all mad here. I'm mad.'"
    assert "**mad** **here**" in hit.snippet
    hit = hits["raw/deep.md"]  # past the first bytes read for a snippet
    assert hit.line == 602 and hit.snippet == "Everyone is **mad** **here**, said the cat."
    # Words between ("mad, here") or stop words only ("mad in here") still read as the phrase.
    write(root, "wiki/p.md", page("P", "Here.\nHere again.\nThey were mad, as in here.\n"))
    idx.update()
    (hit,) = idx.search('"mad here" kind:page')
    assert hit.line == 13 and "**mad**, as in **here**" in hit.snippet
    idx.close()


def obsidian_help(root: Path) -> Vault:
    """A few pages the way Obsidian's help vault words them (an Obsidian vault: no raw/)."""
    (root / ".obsidian").mkdir(parents=True)
    write(root, "Internal links.md", "# Internal links\n\nLearn how to link notes.\n\n"
          "## Link to a heading in a note\n\nYou can link to specific headings in notes by adding a hash (#).\n")
    write(root, "Format your notes.md", "# Format your notes\n\nHeadings start with a hash sign.\n")
    write(root, "Backlinks.md", "# Backlinks\n\nSee which notes link to this one.\n")
    return Vault.open(root)


def test_a_question_with_no_page_holding_every_word_ranks_by_any_word_and_says_so(tmp_path):
    # Issue 21.9: "how do I link to a heading" found nothing ("how", "do", "I" are in no page).
    from wikitui.core.search.whoosh.querying import ANY_WORD_NOTE

    idx = SearchIndex(obsidian_help(tmp_path / "help"))
    idx.update()
    exact = idx.search("link heading")
    assert paths(exact)[0] == "Internal links.md" and exact.notes == ()
    hits = idx.search("how do I link to a heading")
    assert paths(hits)[0] == "Internal links.md" and hits.notes == (ANY_WORD_NOTE,)
    assert hits[0].line == 7 and "**link** to specific **headings**" in hits[0].snippet
    # Stop words never had to match: "to a" alone adds nothing, and no note.
    assert paths(idx.search("link to a heading"))[0] == "Internal links.md"
    assert idx.search("link to a heading").notes == ()
    # Filters and exclusions stay required; one word has nothing to loosen.
    assert paths(idx.search("how do I link heading -hash")) == ["Backlinks.md"]
    assert paths(idx.search("how do I link heading NOT hash")) == ["Backlinks.md"]
    assert idx.search("zzyzzx") == [] and idx.search("zzyzzx").notes == ()
    assert paths(idx.search("kind:page zzyzzx backlinks")) == ["Backlinks.md"]
    assert idx.search("kind:raw how do I link") == []
    idx.close()


def test_prefix_and_fuzzy_queries(index):
    assert paths(index.search("marma*")) == ["wiki/concepts/marmalade.md"]
    hits = index.search("marmelade~")  # one letter wrong
    assert paths(hits) == ["wiki/concepts/marmalade.md"]
    assert "**MARMALADE**" in hits[0].snippet
    assert index.search("narmalade~") == []  # fuzzy keeps the first letter (documented)
    assert paths(index.search("caterpiller~")) == ["raw/notes.txt"]


def test_tag_type_and_kind_filters(index):
    assert paths(index.search("tag:character")) == ["wiki/entities/gryphon.md"]
    assert paths(index.search("tag:Food")) == ["wiki/concepts/marmalade.md"]
    assert paths(index.search("type:entity")) == ["wiki/entities/gryphon.md"]
    assert paths(index.search("alice type:source")) == ["wiki/sources/chapter-9.md"]
    raw = index.search("kind:raw", limit=20)
    assert sorted(paths(raw)) == ["raw/assets/diagram.png", "raw/chapter-01.md", "raw/notes.txt", "raw/page.html"]
    assert all(h.kind == "raw" for h in raw)


def test_scope_limits_results_to_pages_or_raw_sources(index):
    everywhere = set(paths(index.search("alice")))
    assert {"raw/chapter-01.md", "wiki/entities/gryphon.md"} <= everywhere
    assert all(p.startswith("wiki/") for p in paths(index.search("alice", scope="wiki")))
    assert paths(index.search("alice", scope="raw")) == ["raw/chapter-01.md"]
    with pytest.raises(BadQuery, match="scope"):
        index.search("alice", scope="everything")


def test_raw_sources_titles_html_and_binary_files(index):
    (hit,) = index.search("tired")
    assert hit.title == "CHAPTER I. Down the Rabbit-Hole" and hit.line == 3
    (hit,) = index.search("hookah")
    assert hit.title == "notes.txt" and hit.line == 2 and "**hookah**" in hit.snippet
    (hit,) = index.search("flamingos")
    # A web page is indexed as its converted article: the line is the one the source viewer shows.
    assert hit.path == "raw/page.html" and hit.line == 1 and "<" not in hit.snippet
    assert index.search("div") == [] and index.search("color") == []  # markup is not text
    (hit,) = index.search("diagram")  # a binary file is found by its name only
    assert hit.path == "raw/assets/diagram.png" and hit.line is None


def test_snippets_with_many_words_and_with_letters_that_lower_case_longer():
    from wikitui.core.search.documents import SearchText
    from wikitui.core.search.whoosh.analysis import WikiAnalyzer
    from wikitui.core.search.whoosh.snippets import SnippetMaker

    ana = WikiAnalyzer("en")
    # Dozens of expanded terms (a prefix query): found with the regex, not one str.find each.
    words = "apple banana cherry damson elder fig grape hazel iris juniper kale lemon mango nutmeg olive pear"
    words += " quince radish sage thyme ugli vanilla walnut yam zucchini rabbits"
    many = frozenset(ana.terms(words))
    maker = SnippetMaker(many, ana)
    assert maker._alts is None  # more spellings than str.find is worth
    doc = SearchText("Nothing here.\nThe white rabbits ran.\n", 5)
    assert maker.find(doc) == ("The white **rabbits** ran.", 6)
    # "İ" lower-cases to two characters: the text is matched case-insensitively instead.
    doc = SearchText("İSTANBUL notes\nA RABBIT in İzmir.\n")
    assert SnippetMaker(frozenset(ana.terms("rabbit")), ana).find(doc) == ("A **RABBIT** in İzmir.", 2)


def test_long_pages_get_snippets_near_the_top_and_far_down(tmp_path):
    from wikitui.core.search.whoosh.querying import SNIPPET_HEAD

    root = tmp_path / "v"
    write(root, "WIKI.md", "# Schema\n")
    filler = "".join(f"Line {i} of ordinary prose about nothing much, ünïcödé included.\n" for i in range(2000))
    assert len(filler.encode()) > 4 * SNIPPET_HEAD
    write(root, "wiki/top.md", page("Top", "The walrus sat on a rock.\n" + filler))
    write(root, "wiki/deep.md", page("Deep", filler + "At last the carpenter arrived.\n"))
    idx = SearchIndex(Vault.open(root))
    idx.update()
    (top,) = idx.search("walrus")
    lines = (root / "wiki/top.md").read_text(encoding="utf-8").splitlines()
    assert "**walrus**" in top.snippet and "walrus" in lines[top.line - 1]
    (deep,) = idx.search("carpenter")
    lines = (root / "wiki/deep.md").read_text(encoding="utf-8").splitlines()
    assert "**carpenter**" in deep.snippet and lines[deep.line - 1] == "At last the carpenter arrived."


def test_a_metadata_only_match_shows_the_summary(index):
    (hit,) = index.search("tag:sea")
    assert hit.snippet == "Gryphon in one line" and hit.line is None


def test_limit_and_blank_or_stopword_queries(index):
    assert len(index.search("alice", limit=1)) == 1
    assert index.search("   ") == []
    assert index.search("the and of") == []


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ('"white rabbit', "unbalanced quotes"),
        ('""', "empty phrase"),
        ("type:", "'type:' needs a value"),
        ("gryphon tag:", "'tag:' needs a value"),
        ("kind:book", "kind:page or kind:raw"),
        ("(alice OR gryphon", "unbalanced parentheses"),
        ("alice)", "unbalanced parentheses"),
        ("AND alice", "'AND' needs a term before it"),
        ("alice OR", "'OR' needs a term after it"),
        ("alice NOT", "'NOT' needs a term after it"),
    ],
)
def test_malformed_queries_raise_bad_query_with_one_line(index, query, message):
    with pytest.raises(BadQuery) as err:
        index.search(query)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_boolean_operators_and_exclusion(index):
    assert set(paths(index.search("marmalade OR hookah"))) == {"wiki/concepts/marmalade.md", "raw/notes.txt"}
    assert "wiki/sources/chapter-9.md" not in paths(index.search("alice -gryphon"))
    assert "wiki/sources/chapter-9.md" not in paths(index.search("alice NOT gryphon"))


# ------------------------------------------------------------ keeping it current
def test_a_hyphenated_word_is_one_word_and_a_leading_minus_excludes(tmp_path):
    root = tmp_path / "v"
    write(root, "WIKI.md", "# Schema\n")
    write(root, "wiki/self.md", page("Self", "On self-awareness and the e-mail age."))
    write(root, "wiki/awareness.md", page("Awareness", "Awareness of the world, and of the self."))
    idx = SearchIndex(Vault.open(root))
    idx.update()
    assert paths(idx.search("self-awareness")) == ["wiki/self.md"]
    assert "**self**-**awareness**" in idx.search("self-awareness")[0].snippet.lower()
    assert paths(idx.search("e-mail")) == ["wiki/self.md"]
    assert paths(idx.search("self -awareness")) == []
    assert paths(idx.search("awareness -e-mail")) == ["wiki/awareness.md"]
    with pytest.raises(BadQuery, match="need another word beside them"):
        idx.search("world (-self)")


def test_editing_one_file_reindexes_only_that_file(index):
    target = index.vault.root / "wiki/concepts/marmalade.md"
    bump(target, page("Orange jar", "Nothing but treacle here."))
    stats = index.update()
    assert (stats.added, stats.updated, stats.removed, stats.total) == (0, 1, 0, 8)
    assert index.search("marmalade") == []
    assert paths(index.search("treacle")) == ["wiki/concepts/marmalade.md"]
    again = index.update()
    assert again.changed == 0 and not again.busy


def test_new_and_deleted_files(index):
    write(index.vault.root, "wiki/concepts/tarts.md", page("Tarts", "The Knave stole them."))
    (index.vault.root / "raw/notes.txt").unlink()
    stats = index.update()
    assert (stats.added, stats.updated, stats.removed, stats.total) == (1, 0, 1, 8)
    assert paths(index.search("knave")) == ["wiki/concepts/tarts.md"]
    assert index.search("hookah") == []


def vault_files(vault: Vault) -> list[Path]:
    return [p for p in sorted(vault.root.rglob("*")) if p.is_file() and ".wikitui" not in p.parts]


def touch(path: Path, seconds: int = 5) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + seconds * 1_000_000_000))


def test_a_segment_whose_files_all_changed_is_dropped(index, vault):
    assert index.segment_count() == 1
    for path in vault_files(vault):  # a checkout changed them all
        path.write_bytes(path.read_bytes() + b"\n")
        touch(path)
    stats = index.update()
    assert stats.updated == 8 and stats.total == 8
    assert index.segment_count() == 1  # the old segment held only replaced documents
    assert paths(index.search("marmalade")) == ["wiki/concepts/marmalade.md"]


def test_files_touched_but_not_changed_are_not_reindexed(index, vault):
    """A checkout, a sync tool or ``touch`` gives files a new time and the same bytes."""
    for path in vault_files(vault):
        touch(path)
    stats = index.update()
    assert (stats.added, stats.updated, stats.removed, stats.unchanged) == (0, 0, 0, 8)
    assert index.segment_count() == 1  # nothing was written
    assert paths(index.search("marmalade")) == ["wiki/concepts/marmalade.md"]
    again = index.update()
    assert (again.changed, again.unchanged) == (0, 0)  # their new times were recorded
    fresh = SearchIndex(Vault.open(vault.root))  # and kept for the next process
    assert (fresh.update().changed, fresh.update().unchanged) == (0, 0)
    fresh.close()
    # The same size and other bytes: that is a change.
    target = vault.root / "wiki/concepts/marmalade.md"
    bump(target, target.read_text(encoding="utf-8").replace("MARMALADE", "MARMOLADE"))
    stats = index.update()
    assert (stats.updated, stats.unchanged) == (1, 0)
    assert paths(index.search("marmolade")) == ["wiki/concepts/marmalade.md"]
    touch(target, 7)  # compared with the document indexed now, not the one it replaced
    stats = index.update()
    assert (stats.updated, stats.unchanged) == (0, 1)
    # An explicit re-index of a touched file is skipped the same way.
    touch(vault.root / "wiki/entities/gryphon.md", 9)
    stats = index.update_paths(["wiki/entities/gryphon.md"])
    assert (stats.updated, stats.unchanged) == (0, 1)


def test_touched_files_are_recognised_from_the_index_when_the_manifest_copy_is_lost(index, vault):
    index.close()
    (vault.state_dir / "index" / "manifest.pickle").unlink()
    for path in vault_files(vault):
        touch(path)
    fresh = SearchIndex(Vault.open(vault.root))  # reads paths, times and digests from the index itself
    stats = fresh.update()
    assert (stats.updated, stats.unchanged) == (0, 8)
    assert fresh.update().unchanged == 0
    fresh.close()


def test_update_paths_reindexes_exactly_the_given_paths(index):
    root = index.vault.root
    bump(root / "wiki/concepts/marmalade.md", page("Orange jar", "Now about treacle."))
    bump(root / "wiki/entities/gryphon.md", page("Gryphon", "Changed but not named below."))
    (root / "raw/notes.txt").unlink()
    stats = index.update_paths(["wiki/concepts/marmalade.md", "raw/notes.txt", "WIKI.md", ".wikitui/x.md"])
    assert (stats.added, stats.updated, stats.removed) == (0, 1, 1)
    assert paths(index.search("treacle")) == ["wiki/concepts/marmalade.md"]
    assert index.search("hookah") == []
    assert paths(index.search("escorts")) == ["wiki/entities/gryphon.md"]  # not re-indexed yet
    assert index.update().updated == 1


def test_a_graph_supplies_page_metadata(vault):
    graph = LinkGraph.load(vault)
    idx = SearchIndex(vault)
    stats = idx.update(graph)
    assert stats.added == 8
    assert paths(idx.search("tag:character")) == ["wiki/entities/gryphon.md"]
    # A file changed after the graph parsed it is parsed again from disk.
    bump(vault.root / "wiki/entities/gryphon.md", page("Griffin", "Renamed.", type_="entity"))
    graph.update_path("wiki/entities/gryphon.md")
    assert idx.update(graph).updated == 1
    assert idx.search("griffin")[0].title == "Griffin"


def test_progress_is_reported_and_cancel_stops_early(vault):
    idx = SearchIndex(vault)
    seen: list[tuple[int, int]] = []
    polls = iter(range(100))
    stats = idx.update(progress=lambda done, total: seen.append((done, total)), cancel=lambda: next(polls) >= 3)
    assert stats.cancelled and stats.added == 3 and stats.total == 3
    assert seen[-1] == (3, 8)
    assert len(idx.search("kind:page OR kind:raw", limit=50)) == 3  # what was done is committed and searchable
    rest = idx.update()
    assert rest.added == 5 and rest.total == 8 and not rest.cancelled


def test_a_cancelled_rebuild_keeps_the_previous_index(index):
    stats = index.rebuild(cancel=lambda: True)
    assert stats.cancelled and stats.added == 0
    assert paths(index.search("marmalade")) == ["wiki/concepts/marmalade.md"]
    full = index.rebuild()
    assert full.rebuilt and full.added == 8 and full.total == 8
    assert paths(index.search("marmalade")) == ["wiki/concepts/marmalade.md"]


def test_another_process_commit_is_seen_on_update(index, vault):
    other = SearchIndex(vault)  # e.g. `wikitui search` run while the TUI is open
    write(vault.root, "wiki/concepts/tarts.md", page("Tarts", "The Knave stole them."))
    assert other.update().added == 1
    assert index.update().changed == 0  # it reads the other's manifest instead of re-indexing
    assert paths(index.search("knave")) == ["wiki/concepts/tarts.md"]
    other.close()


def test_a_held_write_lock_skips_the_update_instead_of_failing(vault, index):
    from whoosh import index as whoosh_index

    other = whoosh_index.open_dir(str(vault.state_dir / "index"), indexname=search_mod.index_name())
    writer = other.writer()  # another process in the middle of a long rebuild
    try:
        bump(vault.root / "wiki/concepts/marmalade.md", page("Orange jar", "treacle"))
        quick = SearchIndex(vault, lock_timeout=0.1)
        stats = quick.update()  # how long the skip takes is bench/search_lock.py's (a figure, not a test)
        assert stats.busy and stats.changed == 0
        assert paths(quick.search("marmalade")) == ["wiki/concepts/marmalade.md"]  # old index still answers
    finally:
        writer.cancel()
    assert quick.update().updated == 1


def test_writers_in_threads_take_turns(index, vault):
    errors: list[BaseException] = []

    def edit(i: int) -> None:
        try:
            rel = f"wiki/concepts/thread-{i}.md"
            write(vault.root, rel, page(f"Thread {i}", f"word{i}"))
            index.update_paths([rel])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=edit, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(paths(index.search(f"word{i}")) == [f"wiki/concepts/thread-{i}.md"] for i in range(4))


# ---------------------------------------------------------------- broken indexes
def test_a_corrupt_index_is_rebuilt_not_a_crash(index, vault):
    index.close()
    for f in (vault.state_dir / "index").iterdir():
        f.write_bytes(b"\x00garbage\xff" * 50)
    fresh = SearchIndex(vault)
    stats = fresh.update()
    assert stats.rebuilt and stats.added == 8
    assert paths(fresh.search("marmalade")) == ["wiki/concepts/marmalade.md"]


def test_a_damaged_segment_is_rebuilt(index, vault):
    index.close()
    (seg,) = [f for f in (vault.state_dir / "index").iterdir() if f.suffix == ".seg"]
    data = bytearray(seg.read_bytes())
    quarter = len(data) // 4
    data[quarter : 3 * quarter] = bytes(range(256)) * (2 * quarter // 256) + bytes(2 * quarter % 256)
    seg.write_bytes(bytes(data))  # the table of contents still reads fine
    fresh = SearchIndex(vault)
    stats = fresh.update()
    assert stats.rebuilt and stats.added == 8
    assert paths(fresh.search("marmalade")) == ["wiki/concepts/marmalade.md"]


def test_a_read_error_while_searching_reopens_then_rebuilds(index, monkeypatch):
    from whoosh.codec.whoosh3 import W3TermsReader

    real = W3TermsReader.term_info
    failures = iter([True, True])  # the reopened index fails too: it is rebuilt

    def flaky(self, *args, **kwargs):
        if next(failures, False):
            raise OSError("unreadable block")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(W3TermsReader, "term_info", flaky)
    assert paths(index.search("marmalade")) == ["wiki/concepts/marmalade.md"]
    assert next(failures, "done") == "done"


def test_a_different_schema_version_triggers_a_rebuild(index, vault, monkeypatch):
    index.close()
    monkeypatch.setattr(search_mod, "SCHEMA_VERSION", search_mod.SCHEMA_VERSION + 1)
    newer = SearchIndex(vault)
    stats = newer.update()
    assert stats.rebuilt and stats.added == 8
    names = [f.name for f in (vault.state_dir / "index").iterdir()]
    assert names and all(f"_v{search_mod.SCHEMA_VERSION}" in n for n in names if n.endswith((".toc", ".seg")))
    assert paths(newer.search("marmalade")) == ["wiki/concepts/marmalade.md"]


def test_optimize_keeps_results(index, vault):
    for i in range(3):
        write(vault.root, f"wiki/concepts/extra-{i}.md", page(f"Extra {i}", "marmalade again"))
        index.update()
    before = paths(index.search("marmalade"))
    index.optimize()
    segs = [f for f in (vault.state_dir / "index").iterdir() if f.suffix == ".seg"]
    assert len(segs) == 1
    assert paths(index.search("marmalade")) == before


# --------------------------------------------------------------------- German
@pytest.fixture
def german(tmp_path) -> Vault:
    root = tmp_path / "de"
    write(root, "WIKI.md", "# Schema\n")
    write(
        root,
        "wiki/gesetze/EStG § 15 Einkünfte aus Gewerbebetrieb.md",
        page(
            "EStG § 15 Einkünfte aus Gewerbebetrieb",
            "Einkünfte aus Gewerbebetrieb sind die Einkünfte aus gewerblichen Unternehmen.\n"
            "Die Regelung des § 15 EStG gilt auch für die Mitunternehmer und für die Straße.",
            type_="gesetz",
        ),
    )
    write(
        root,
        "wiki/concepts/Einkunft.md",
        page("Einkunft", "Eine Einkunft ist, was der Steuerpflichtige nach Abzug der Kosten erzielt, und nicht mehr.\n"
             "Siehe § 2 EStG für die sieben Einkunftsarten der Einkommensteuer."),
    )
    return Vault.open(root)


def test_german_text_keeps_umlauts_paragraph_signs_and_stems(german):
    idx = SearchIndex(german)
    idx.update()
    assert idx.language == "de"
    hits = idx.search("Einkünfte")
    assert set(paths(hits)) == {"wiki/gesetze/EStG § 15 Einkünfte aus Gewerbebetrieb.md", "wiki/concepts/Einkunft.md"}
    assert any("**Einkünfte**" in h.snippet for h in hits)
    assert paths(idx.search('"§ 15"')) == ["wiki/gesetze/EStG § 15 Einkünfte aus Gewerbebetrieb.md"]
    assert paths(idx.search("§15")) == ["wiki/gesetze/EStG § 15 Einkünfte aus Gewerbebetrieb.md"]
    assert paths(idx.search('"§ 2"')) == ["wiki/concepts/Einkunft.md"]
    hit = idx.search("strasse")[0]  # ß and ss are one word to the German stemmer
    assert "**Straße**" in hit.snippet and hit.line == 12


def test_the_language_can_be_set_in_the_vault_config(german):
    write(german.root, ".wikitui/config.toml", '[search]\nlanguage = "en"\n')
    idx = SearchIndex(german)
    idx.update()
    assert idx.language == "en"
    assert paths(idx.search("Einkünfte")) == ["wiki/gesetze/EStG § 15 Einkünfte aus Gewerbebetrieb.md"]


# -------------------------------------------------------------- sample & corpora
def test_sample_vault_session(sample_vault):
    vault = Vault.open(sample_vault)
    graph = LinkGraph.load(vault)
    idx = SearchIndex(vault)
    stats = idx.update(graph)
    assert stats.total == len(graph.pages) + len(graph.raw_files)
    gryphon = graph.find_page("Gryphon")
    assert gryphon is not None
    hits = idx.search("gryphon")
    assert hits[0].path == gryphon and hits[0].title == "Gryphon"
    for hit in hits:
        if hit.line is not None:
            line = (sample_vault / hit.path).read_text(encoding="utf-8").splitlines()[hit.line - 1]
            assert "gryphon" in line.lower() and "**" in hit.snippet
    raw = idx.search("gryphon", scope="raw")
    assert raw and all(h.kind == "raw" and h.path.startswith("raw/") for h in raw)
    tag = graph.pages[gryphon].tags[0]
    assert gryphon in paths(idx.search(f"tag:{tag}", limit=100))


@pytest.mark.corpus
def test_vault_small_german_statutes(corpus_copy):
    vault = Vault.open(corpus_copy("vault-small"))
    idx = SearchIndex(vault)
    stats = idx.update()
    assert stats.total == stats.added > 1400
    assert idx.language == "de"
    hits = idx.search('"§ 15" EStG', limit=20)
    assert hits and any("§ 15" in h.title for h in hits)
    hits = idx.search("Einkünfte Gewerbebetrieb")
    assert hits and any("**Einkünfte**" in h.snippet or "**Gewerbebetrieb**" in h.snippet for h in hits)
    for hit in hits:
        if hit.line is not None:
            text = (vault.root / hit.path).read_text(encoding="utf-8-sig").splitlines()[hit.line - 1].lower()
            assert "einkünft" in text or "gewerbebetrieb" in text


@pytest.mark.corpus
def test_vault_large_crlf_pages_and_a_one_file_update(corpus_copy):
    vault = Vault.open(corpus_copy("vault-large"))
    graph = LinkGraph.load(vault)
    idx = SearchIndex(vault)
    assert idx.update(graph).added == len(graph.pages) + len(graph.raw_files)
    crlf = next(p for p in graph.pages if b"\r\n" in (vault.root / p).read_bytes() and graph.pages[p].headings)
    word = graph.pages[crlf].headings[0].text.split()[0]
    hit = next(h for h in idx.search(f'"{word}"', limit=50) if h.path == crlf)
    assert hit.line is not None and "\r" not in hit.snippet
    target = vault.root / crlf
    bump(target, target.read_text(encoding="utf-8") + "\nxylophonic zeppelin\n")
    stats = idx.update()
    assert (stats.added, stats.updated, stats.removed) == (0, 1, 0)
    assert paths(idx.search("xylophonic zeppelin")) == [crlf]


def test_modules_left_out_of_whoosh_s_fast_import_still_import_later_as_the_real_ones():
    """The fast path's stand-ins are gone once Whoosh has loaded: a later import gets the real module."""
    code = (
        "import sys, wikitui.core.search.whoosh.fast.loader as s; s.import_whoosh();"
        "import urllib.request, whoosh.lang.morph_en; from whoosh.query import terms;"
        "print(urllib.request.urlopen.__name__, sorted(terms.variations('rabbits'))[:2])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["urlopen ['rabbit', 'rabbits']"]


def test_index_files_are_read_in_place_not_copied():
    import io

    from wikitui.core.search.whoosh.fast.loader import _ViewReader, import_whoosh

    import_whoosh()
    from whoosh.filedb import compound

    data = b"first line\nsecond\n" + bytes(range(256)) * 4
    view, ref = _ViewReader(memoryview(data)), io.BytesIO(data)
    for op in (lambda f: f.read(5), lambda f: f.readline(), lambda f: f.seek(3, 1), lambda f: f.tell(),
               lambda f: f.readline(), lambda f: f.seek(-10, 2), lambda f: f.read(), lambda f: f.read(4)):
        assert op(view) == op(ref)
    part = compound.BufferFile(memoryview(data), name="x")
    assert isinstance(part.file, _ViewReader) and part.get(11, 6) == b"second"


def test_an_index_with_other_fields_under_the_same_version_is_rebuilt(vault):
    from whoosh import fields, index as whoosh_index

    folder = vault.state_dir / "index"
    folder.mkdir(parents=True)
    old = fields.Schema(path=fields.ID(stored=True, unique=True), body=fields.TEXT)
    ix = whoosh_index.create_in(str(folder), old, indexname=search_mod.index_name())
    with ix.writer() as writer:
        writer.add_document(path="wiki/concepts/marmalade.md", body="stale")
    idx = SearchIndex(vault)
    stats = idx.update()
    assert stats.rebuilt and stats.added == 8
    assert paths(idx.search("marmalade")) == ["wiki/concepts/marmalade.md"]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_simple_queries_skip_the_parser_but_mean_exactly_the_same(lang):
    """The fast path builds the very query Whoosh's parser builds, and leaves the rest to it."""
    from wikitui.core.search.whoosh.schema import _FIELD_ALIASES, FIELD_BOOSTS, TEXT_FIELDS, build_schema, make_parser
    from wikitui.core.search.whoosh.simple_query import simple_query

    parser = make_parser(build_schema(lang))
    fast = [
        "music", "buddhism karma", "the music", "the", "the a of", "Straße über Müller",
        "und der die Freiheit", "Hölderlin und die Griechen", "Tat tvam asi", "x 1 2 3", "2024",
        "12abc", "  music  ", "music\tart", "Ärger Öl ß", "naïve café", "İstanbul", "Gottes Wort",
        "been being have", "x TO y", "relig*", "Relig* music", "a*", "the*", "Einkünft*", '"holy spirit"',
        '"Holy"', '"the spirit"', '"the of"', '"tat tvam asi" god', '"Straße  über" Müller', "tag:x music",
        "tag:Character", "tags:sea", "type:concept god", "kind:page freedom", "kind:raw", "title:music",
        "body:Straße", "path:wiki", 'type:concept "holy spirit" relig*',
    ]
    slow = [
        "§15", "e-mail", "music AND art", "NOT music", "philosphy~", "-war peace", "war -peace", "(a OR b)",
        '"holy spirit"~2', '"§ 15"', "Tag:x", "foo:bar", "tag:x,y", "music*art", "*sic", "mus?c", "15.3",
        "war^2", "+war", '"e-mail address"', "c++", "title:" + ("the" if lang == "en" else "der"),
    ]
    for text in fast:
        built = simple_query(parser.schema, text, TEXT_FIELDS, FIELD_BOOSTS, _FIELD_ALIASES)
        assert built is not None, text
        parsed = parser.parse(text)
        assert built == parsed, text
        assert repr(built) == repr(parsed), text
    for text in slow:
        assert simple_query(parser.schema, text, TEXT_FIELDS, FIELD_BOOSTS, _FIELD_ALIASES) is None, text
