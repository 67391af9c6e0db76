"""A warm start from ``.wikitui/cache/graph.pickle`` gives exactly what a cold load gives.

When nothing changed since the cache was written, the graph takes the cached pages
*and* the cached resolution (no link is resolved again); when a page, a raw source or
an attachment came, went or changed, it re-resolves as a cold load would. Each test
compares everything a caller can ask the graph against a load that ignores the cache.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.names import PageNames

FILES = {
    "wiki/index.md": "# Index\n\n[[Alpha]] [[Beta]] [[Orphan]]\n",
    "wiki/log.md": "# Log\n\n- made [[Gamma]]\n",
    "wiki/a.md": "---\ntitle: Alpha\naliases: [First, Premier]\n---\n[[Beta]] and [[Gamma#Sec]] and [[#Top]]\n\n# Top\n",
    "wiki/b.md": "---\ntitle: Beta\n---\n[[first|the first]] [p](../raw/paper.pdf) [[paper.pdf]] ![[fig.png]]\n",
    "wiki/sub/c.md": "# Gamma\n\n[[Alpha]] [[Nowhere]] [[sub/d]] [site](https://example.com)\n\n## Sec\n",
    "wiki/sub/d.md": "---\ntitle: Delta\n---\n[[Premier]] [[notes.txt]] [x](c.md) [[Later]]\n",
    "wiki/orphan.md": "# Orphan\n\nno links here\n",
    "raw/paper.pdf": b"%PDF-1.4",
    "wiki/fig.png": b"\x89PNG",
}


def write(root: Path, rel: str, content: str | bytes) -> None:
    """Write a file and move its mtime on, so a same-size rewrite still counts as changed."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.stat().st_mtime_ns if path.exists() else 0
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, max(st.st_mtime_ns, old + 1_000_000_000)))


def make_vault(root: Path) -> Vault:
    for rel, content in FILES.items():
        write(root, rel, content)
    return Vault.open(root)


def snapshot(graph: LinkGraph) -> dict:
    """Everything a caller can ask the graph, in a comparable form."""
    return {
        "pages": list(graph.pages.items()),  # PageInfo compares field by field; the order counts too
        "raw": list(graph.raw_files.items()),
        "other": list(graph.other_files.items()),
        "outgoing": {p: [(l.target, l.line, l.start, t) for l, t in graph.outgoing(p)] for p in graph.pages},
        "backlinks": {
            p: [(b.source, b.link.line, b.link.start, b.link.context) for b in graph.backlinks(p)] for p in graph.pages
        },
        "unresolved": [(p, l.start, l.target) for p, l in graph.unresolved()],
        "orphans": graph.orphans(),
        "links": graph.link_count(),
        "names": {n: graph.find_page(n) for n in ("alpha", "First", "premier", "Delta", "sub/d", "Gamma", "fig.png")},
    }


def cold(vault: Vault) -> LinkGraph:
    return LinkGraph.load(vault, use_cache=False, save_cache=False)


@pytest.fixture
def resolutions(monkeypatch) -> list[str]:
    """The targets the link graph resolves from now on (by their names: stems, titles, aliases, files)."""
    seen: list[str] = []
    original = PageNames.candidates

    def counting(self, target):
        seen.append(target)
        return original(self, target)

    monkeypatch.setattr(PageNames, "candidates", counting)
    return seen


def test_a_warm_start_with_nothing_changed_takes_the_cached_resolution(tmp_path, resolutions):
    vault = make_vault(tmp_path)
    first = LinkGraph.load(vault)
    assert first.parsed_count == 7 and resolutions  # the cold load resolved every link
    resolutions.clear()

    warm = LinkGraph.load(vault)
    assert warm.parsed_count == 0
    assert resolutions == []  # nothing parsed, nothing resolved: the cache answered
    assert snapshot(warm) == snapshot(cold(vault)) == snapshot(first)
    assert [b.source for b in warm.backlinks("wiki/a.md")] == ["wiki/b.md", "wiki/index.md", "wiki/sub/c.md", "wiki/sub/d.md"]
    assert warm.orphans() == ["wiki/orphan.md"]


CHANGES = {
    "a page's links": [("wiki/b.md", "---\ntitle: Beta\n---\nnow [[Gamma]] and [[Nowhere]]\n")],
    "a title other pages link by": [("wiki/sub/c.md", "---\ntitle: Nowhere\n---\n[[Alpha]]\n")],
    "an alias": [("wiki/a.md", "---\ntitle: Alpha\naliases: [Later]\n---\n[[Beta]]\n")],
    "a new page": [("wiki/later.md", "# Later\n\n[[Alpha]] [[Orphan]]\n")],
    "a deleted page": [("wiki/sub/c.md", None)],
    "a new raw source a link names": [("raw/notes.txt", "notes")],
    "a deleted raw source": [("raw/paper.pdf", None)],
    "a new attachment": [("wiki/notes.txt", "an attachment")],
    "a deleted attachment": [("wiki/fig.png", None)],
    "a page rewritten at the same size": [("wiki/orphan.md", "# Orphan\n\nNO LINKS HERE\n")],
    "a file in raw/ and a page": [("raw/x/fig.png", b"png"), ("wiki/orphan.md", "# Orphan\n\n[[fig.png]]\n")],
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_warm_start_after_a_change_equals_a_cold_load(tmp_path, resolutions, change):
    vault = make_vault(tmp_path)
    before = snapshot(LinkGraph.load(vault))
    for rel, content in CHANGES[change]:
        if content is None:
            (tmp_path / rel).unlink()
        else:
            write(tmp_path, rel, content)
    resolutions.clear()

    warm = LinkGraph.load(vault)
    assert resolutions  # the cached resolution no longer holds: resolved again
    assert snapshot(warm) == snapshot(cold(vault)) != before

    # The first warm start wrote the cache again: the next one resolves nothing.
    resolutions.clear()
    again = LinkGraph.load(vault)
    assert again.parsed_count == 0 and resolutions == []
    assert snapshot(again) == snapshot(warm)


def test_a_page_touched_without_a_change_is_reparsed_and_the_graph_is_the_same(tmp_path):
    vault = make_vault(tmp_path)
    before = snapshot(LinkGraph.load(vault))
    write(tmp_path, "wiki/a.md", FILES["wiki/a.md"])  # same bytes, newer mtime
    warm = LinkGraph.load(vault)
    assert warm.parsed_count == 1
    after = snapshot(warm)
    assert after["pages"] != before["pages"]  # the new mtime is recorded
    assert {k: v for k, v in after.items() if k != "pages"} == {k: v for k, v in before.items() if k != "pages"}


def test_a_cache_saved_after_incremental_updates_loads_like_a_cold_load(tmp_path, resolutions):
    vault = make_vault(tmp_path)
    graph = LinkGraph.load(vault)
    write(tmp_path, "wiki/a-new.md", "# Aardvark\n\n[[Beta]] [[Zed]]\n")
    graph.update_path("wiki/a-new.md")  # added at the end of graph.pages, out of path order
    write(tmp_path, "raw/zed.md", "raw")
    graph.update_path("raw/zed.md")
    graph.save_cache()
    resolutions.clear()

    warm = LinkGraph.load(vault)
    assert warm.parsed_count == 0 and resolutions == []
    assert snapshot(warm) == snapshot(cold(vault))
    assert list(warm.pages) == sorted(warm.pages)


@pytest.mark.parametrize(
    "content",
    [
        b"not a pickle",
        pickle.dumps({"version": 5, "layout": ("wiki", "raw"), "pages": {}}),  # the previous format
        pickle.dumps(["a", "list"]),
    ],
    ids=["garbage", "old version", "foreign"],
)
def test_an_unreadable_or_stale_cache_is_ignored_and_replaced(tmp_path, content):
    vault = make_vault(tmp_path)
    graph = LinkGraph.load(vault)
    graph.cache_path.write_bytes(content)
    again = LinkGraph.load(vault)
    assert again.parsed_count == 7
    assert snapshot(again) == snapshot(cold(vault))
    assert LinkGraph.load(vault).parsed_count == 0  # rewritten in the current format


def test_a_cache_for_another_folder_layout_is_ignored(tmp_path):
    vault = make_vault(tmp_path)
    LinkGraph.load(vault)
    (tmp_path / ".wikitui").mkdir(exist_ok=True)
    (tmp_path / ".wikitui" / "config.toml").write_text('raw_dir = "wiki/sub"\n', encoding="utf-8")
    moved = Vault.open(tmp_path)
    graph = LinkGraph.load(moved)
    assert graph.parsed_count == 5  # wiki/sub/*.md are raw sources now, the rest parsed again
    assert snapshot(graph) == snapshot(cold(moved))


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["vault-small", "vault-large"])
def test_warm_starts_of_the_real_vaults_equal_cold_loads(corpus_copy, name):
    root = corpus_copy(name)  # skips when the corpus is absent
    vault = Vault.open(root)
    reference = snapshot(LinkGraph.load(vault))  # cold: writes the cache
    warm = LinkGraph.load(vault)
    assert warm.parsed_count == 0
    assert snapshot(warm) == reference
    assert len(reference["pages"]) > 1400 and reference["links"] > 2700 and reference["unresolved"]

    # One page renamed by its frontmatter: links to the old name unresolve, the rest stays.
    target = next(p for p, bl in reference["backlinks"].items() if len(bl) >= 2)
    text = (root / target).read_text(encoding="utf-8")
    write(root, target, "---\ntitle: Renamed Away\n---\n" + text.split("\n---\n", 1)[-1])
    changed = LinkGraph.load(vault)
    assert changed.parsed_count == 1
    assert snapshot(changed) == snapshot(cold(vault))
