"""Property: resolving a name several notes share matches a plain reference of Obsidian's rule (issue 24.4).

The reference reads the rule as written: among the notes whose stem the target names
(a ``folder/`` prefix matching the path's tail), an exact vault path wins (or, in a vault
with a wiki folder, a path relative to it); otherwise a note the target names relative to
the linking note's folder; otherwise the shortest path string, then alphabetical order.
When no stem matches, the notes of that title: the one in the linking note's folder, else
the shortest path.
Both ways the graph answers are checked: a link's resolution in the loaded graph
(memoized per target, settled per folder) and ``resolve_target(target, from_path)``.
"""

from __future__ import annotations

import posixpath
import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault

FOLDERS = ["", "a", "b", "A", "a/b", "b/a", "a/b/c", "c/a"]
NAMES = ["x", "X", "y", "note one"]
#: Frontmatter titles ("": none, the title is the file's stem); a target may name one.
TITLES = ["", "", "Topic", "topic", "x"]


def _rank(path: str) -> tuple[int, str]:
    return (len(path), path)


def reference(vault: Vault, pages: dict[str, str], target: str, source: str | None) -> str | None:
    """``pages``: path -> frontmatter title ("" for none); ``source`` None: a name from no page (no folder)."""
    t = target.lower()
    base = t[:-3] if t.endswith(".md") else t

    def no_md(p: str) -> str:
        return p[:-3].lower()

    folder = posixpath.dirname(source).lower() if source is not None else None
    cands = [p for p in pages if no_md(p) == base or no_md(p).endswith("/" + base)
             or no_md(vault.wiki_relative(p)) == base]
    if not cands:  # then by title (a page without one is titled by its stem): the linking folder's, else the shortest
        titled = [p for p, title in pages.items() if (title or posixpath.basename(p)[:-3]).lower() == t]
        here = [p for p in titled if folder is not None and posixpath.dirname(p).lower() == folder]
        return min(here or titled, key=_rank) if titled else None
    exact = [p for p in cands if no_md(p) == base or no_md(vault.wiki_relative(p)) == base]
    if exact:
        return min(exact, key=_rank)
    here = [] if folder is None else [p for p in cands if no_md(p) == (f"{folder}/{base}" if folder else base)]
    return min(here or cands, key=_rank)


@st.composite
def vaults(draw):
    wiki = draw(st.booleans())
    paths = draw(st.lists(st.tuples(st.sampled_from(FOLDERS), st.sampled_from(NAMES), st.sampled_from(TITLES)),
                          min_size=1, max_size=10))
    pages = {(f"wiki/{f}/" if wiki and f else "wiki/" if wiki else f"{f}/" if f else "") + f"{n}.md": title
             for f, n, title in paths}
    links = draw(st.lists(st.tuples(st.sampled_from(FOLDERS), st.sampled_from([*NAMES, "Topic"]), st.booleans()),
                          min_size=1, max_size=6))
    targets = [(f"{f}/{n}" if f else n) + (".md" if md else "") for f, n, md in links]
    source = draw(st.sampled_from(sorted(pages)))
    return wiki, pages, targets, source


_ROOTS: dict[bool, Path] = {}


def _vault(wiki: bool) -> Vault:
    """An empty vault on disk (with or without a wiki folder); the pages are given as texts."""
    if wiki not in _ROOTS:
        root = Path(tempfile.mkdtemp(prefix="wikitui-ties-"))
        (root / ("wiki" if wiki else ".obsidian")).mkdir()
        _ROOTS[wiki] = root
    return Vault(_ROOTS[wiki])


@settings(max_examples=300, deadline=None)
@given(vaults())
@example((False, {"note one.md": "Topic", "a/x.md": "topic", "b/y.md": ""}, ["Topic"], "b/y.md"))
@example((False, {"note one.md": "Topic", "a/x.md": "topic", "b/y.md": ""}, ["Topic"], "note one.md"))
def test_the_graph_resolves_a_shared_name_as_the_reference_does(case):
    wiki, pages, targets, source = case
    vault = _vault(wiki)
    graph = LinkGraph(vault)
    texts: dict[str, str | None] = {p: f"---\ntitle: {title}\n---\n" if title else "text\n"
                                    for p, title in pages.items()}
    texts[source] = (texts[source] or "") + "\n".join(f"[[{t}]]" for t in targets) + "\n"
    graph.set_texts(texts)
    got = [hit for _link, hit in graph.outgoing(source)]
    want = [reference(vault, pages, t, source) for t in targets]
    assert got == want
    assert [graph.resolve_target(t, source) for t in targets] == want
    # From no page (a name typed by the user) a tie goes to the exact path, else the shortest.
    for t in targets:
        assert graph.resolve_target(t) == reference(vault, pages, t, None)
