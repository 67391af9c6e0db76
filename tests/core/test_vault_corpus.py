"""The link graph on real vaults (../shared/corpus), checked against an independent count.

The corpora are copied once per module (they are never written). The second half of
this file is a deliberately simple, separate implementation of DESIGN §2's link rules
(line-based fence and code-span stripping, plain dictionaries for stem/title/alias
lookup) so that a bug in :mod:`wikitui.core.vault.links` or :mod:`wikitui.core.vault.graph` shows
up as a disagreement; the figures it established are hard-coded too, so a regression
shared by both implementations still fails.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml

from tests.conftest import corpus_path
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault

pytestmark = pytest.mark.corpus

#: Established by the independent count below. In a wiki folder (vault-small) a page without a
#: frontmatter title is named by its single H1; an Obsidian vault read as a wiki (vault-large)
#: names notes by their files, as Obsidian does ("# Ideas" and "# Hardware" are sections there).
EXPECTED = {
    "vault-small": {"pages": 1452, "links": 7877, "unresolved": 74},
    "vault-large": {"pages": 2722, "links": 2727, "unresolved": 339},
}


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """Module-wide temp copies of the two vaults, made on first use."""
    made: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in made:
            src = corpus_path(name)
            made[name] = tmp_path_factory.mktemp("corpus") / name
            shutil.copytree(src, made[name])
        return made[name]

    return get


@pytest.fixture(scope="module")
def small(copies) -> LinkGraph:
    return LinkGraph.load(Vault.open(copies("vault-small")))


@pytest.fixture(scope="module")
def large(copies) -> LinkGraph:
    return LinkGraph.load(Vault.open(copies("vault-large")))


# --------------------------------------------------------------- properties
@pytest.mark.parametrize("name", ["vault-small", "vault-large"])
def test_every_markdown_file_of_the_wiki_is_a_page(copies, name):
    root = copies(name)
    graph = LinkGraph.load(Vault.open(root), save_cache=False)
    expected = {p for p in _walk(root) if p.endswith(".md") and _is_page(root, p)}
    assert set(graph.pages) == expected
    assert len(graph.pages) == EXPECTED[name]["pages"]
    assert all(info.title for info in graph.pages.values())


def test_frontmatter_behind_a_byte_order_mark_is_read(copies, small):
    root = copies("vault-small")
    # No BOM file of this vault has title/type in its frontmatter: its other fields prove the read.
    concept = "wiki/concepts/Geringfügige Beschäftigung.md"
    law = "wiki/gesetze/EStG § 50d Anwendung von Abkommen zur Vermeidung der Doppelbesteuerung.md"
    for path in (concept, law):
        assert (root / path).read_bytes().startswith(b"\xef\xbb\xbf---")
    info = small.pages[concept]
    assert info.has_frontmatter and info.frontmatter_error is None
    assert info.tags == ["einkommensteuer", "estg", "lohnsteuer", "geringfügige-beschäftigung"]
    assert info.sources == ["archive/estg.json"]
    assert info.title == "Geringfügige Beschäftigung"  # no title field: its one H1
    assert info.body_line == 7
    assert small.pages[law].meta["gesetz"] == "EStG"
    assert small.pages[law].meta["paragraph"] == "§ 50d"
    assert [t for _l, t in small.outgoing(law)][0] == "wiki/sources/Einkommensteuergesetz (EStG).md"


def test_obsidian_trash_and_settings_are_not_part_of_the_vault(copies, large):
    root = copies("vault-large")
    assert (root / ".trash" / "Untitled 1.md").is_file()
    assert (root / ".obsidian").is_dir()
    assert not [p for p in (*large.pages, *large.other_files) if p.startswith(".")]


def test_crlf_pages_parse_without_carriage_returns(copies, large):
    path = "03. Culture/Fun and Activities/Photography/Neutral Density Filter.md"
    assert b"\r\n" in (copies("vault-large") / path).read_bytes()
    info = large.pages[path]
    assert info.title == "Neutral Density Filter"
    assert all("\r" not in h.text for h in info.headings)
    assert [(l.target, l.line, t) for l, t in large.outgoing(path)][:2] == [
        ("Wratten Numbers", 6, "03. Culture/Fun and Activities/Photography/Wratten Numbers.md"),
        ("Absorbance", 12, "04. Organized Knowledge - Old Format/Science and Engineering/Physics/Mechanics/"
         "Electrodynamics/Optics/Absorbance.md"),
    ]
    assert all("\r" not in l.context for l in info.links)


def test_case_only_and_folder_qualified_links_resolve(small, large):
    law = (
        "wiki/gesetze/UStG § 10 Bemessungsgrundlage für Lieferungen, sonstige Leistungen"
        " und innergemeinschaftliche Erwerbe.md"
    )
    by_target = {l.target: t for l, t in small.outgoing(law)}
    assert by_target["Sonstige Leistungen"] == "wiki/concepts/sonstige Leistungen.md"
    # Its file is EU-EWR-Staatsangehöriger.md; the slashed name is its H1, which titles the page.
    assert {t for l, t in small.outgoing("wiki/gesetze/EStG § 1a.md") if l.target == "EU/EWR-Staatsangehöriger"} == {
        "wiki/concepts/EU-EWR-Staatsangehöriger.md"
    }
    showcase = "06. Collected Knowledge/Desktop Environment Showcase.md"
    out = [(l.target, l.anchor, t) for l, t in large.outgoing(showcase)]
    folder = "06. Collected Knowledge/Desktop Environments"
    assert out[0] == (folder, "", folder + ".md")
    assert ("", "OS Specific Adjustments", showcase) in out  # [[#Heading]]
    assert ("Unity Screenshot.png", "", None) in out  # the image was dropped from the corpus
    music = {(l.target, l.anchor): t for l, t in large.outgoing("01. Personal/Knowledge/Music.md")}
    assert music[("Digital Communications", "^Heading")].endswith("/Digital Communications.md")


def test_a_name_in_two_folders_resolves_to_the_shortest_path(large):
    assert {"Phonetics.md", "06. Collected Knowledge/Phonetics.md"} <= set(large.pages)
    targets = {l.target: t for l, t in large.outgoing("06. Collected Knowledge/Phonology.md")}
    assert targets["Phonetics"] == "Phonetics.md"


def test_names_with_section_signs_quotes_apostrophes_and_backticks(small, large):
    assert small.find_page("EStG § 11") == "wiki/gesetze/EStG § 11.md"
    assert "wiki/concepts/Abflussprinzip.md" in {b.source for b in small.backlinks("wiki/gesetze/EStG § 11.md")}
    for name in ("About `We are Good People`", "'In the pre-Muhammadian era'", "On 'Vox Populi, Vox Dei'"):
        assert large.find_page(name) == f"{name}.md"
    colour = "04. Organized Knowledge - Old Format/Creativity and Arts/Colour Theory/"
    targets = [t for _l, t in large.outgoing(colour + "Colour Theory.md")]
    assert colour + "Newton's Experiments on Colours.md" in targets


@pytest.mark.parametrize("name", ["vault-small", "vault-large"])
def test_link_counts_match_an_independent_computation(copies, name):
    root = copies(name)
    graph = LinkGraph.load(Vault.open(root), save_cache=False)
    pages, links, unresolved = independent_count(root)
    assert len(graph.pages) == pages
    assert graph.link_count() == links
    assert sorted((p, l.target) for p, l in graph.unresolved()) == sorted(unresolved)
    assert (pages, links, len(unresolved)) == tuple(EXPECTED[name].values())


# ------------------------------------------------- the independent computation
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_WIKI = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_MD = re.compile(
    r"\[([^\[\]\n]*(?:\[[^\[\]\n]*\][^\[\]\n]*)*)\]"
    r"\(\s*(<[^>\n]*>|(?:[^\s()]|\([^\s()]*\))+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _walk(root: Path) -> list[str]:
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for f in files:
            if not f.startswith("."):
                out.append(Path(folder, f).relative_to(root).as_posix())
    return sorted(out)


def _is_page(root: Path, rel: str) -> bool:
    if (root / "wiki").is_dir():
        return rel.startswith("wiki/")
    return not rel.startswith("raw/") and rel != "WIKI.md"


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def _blank_code_spans(line: str) -> str:
    """Blank `code spans` on one line: a run of n backticks up to the next run of exactly n."""
    out, i, n = list(line), 0, len(line)
    while i < n:
        if line[i] != "`":
            i += 1
            continue
        j = i
        while j < n and line[j] == "`":
            j += 1
        k, close = j, -1
        while k < n:
            if line[k] != "`":
                k += 1
                continue
            e = k
            while e < n and line[e] == "`":
                e += 1
            if e - k == j - i:
                close = e
                break
            k = e
        if close == -1:
            i = j
            continue
        out[i:close] = " " * (close - i)
        i = close
    return "".join(out)


def _mask(text: str) -> tuple[str | None, str]:
    """(frontmatter YAML or None, the text with frontmatter, fences, code spans and comments blanked)."""
    lines = text.split("\n")
    fm = None
    if lines[0].rstrip("\r \t") == "---":
        for i in range(1, len(lines)):
            if lines[i].rstrip("\r \t") in ("---", "..."):
                fm = "\n".join(lines[1:i])
                lines[: i + 1] = [_blank(x) for x in lines[: i + 1]]
                break
    fence = None
    for i, line in enumerate(lines):
        if fence is None and _FENCE.match(line):
            fence = _FENCE.match(line).group(1)
            lines[i] = _blank(line)
        elif fence is not None:
            s = line.strip()
            if s and set(s) == {fence[0]} and len(s) >= len(fence) and len(line) - len(line.lstrip(" ")) <= 3:
                fence = None
            lines[i] = _blank(line)
    body = "\n".join(_blank_code_spans(x) for x in lines)
    return fm, re.sub(r"%%.*?(?:%%|$)|<!--.*?(?:-->|$)", lambda m: _blank(m.group(0)), body, flags=re.S)


def _h1_title(body: str) -> str:
    """A wiki page's title from its heading: the first heading, when it is the page's only H1."""
    heads = [(len(m.group(1)), m.group(2).strip().rstrip("#").strip())
             for m in re.finditer(r"^(#{1,6})[ \t]+(.+)$", body, flags=re.M)]
    if heads and heads[0][0] == 1 and sum(1 for lvl, _ in heads if lvl == 1) == 1:
        return heads[0][1]
    return ""


def _links(body: str) -> list[tuple[str, str]]:
    found = []
    for m in _WIKI.finditer(body):
        target, _, anchor = m.group(1).partition("|")[0].rstrip("\\").partition("#")
        if target.strip() or anchor.strip():
            found.append((m.start(), "wiki", target.strip()))
    rest = _WIKI.sub(lambda m: " " * len(m.group(0)), body)
    for m in _MD.finditer(rest):
        url = m.group(2)[1:-1] if m.group(2).startswith("<") else m.group(2)
        if not _SCHEME.match(url):
            found.append((m.start(), "md", unquote(url.partition("#")[0])))
    return [(kind, target) for _pos, kind, target in sorted(found)]


def _names(value) -> list[str]:
    if isinstance(value, str):
        return [x.strip() for x in value.split(",") if x.strip()]
    return [str(x).strip() for x in value or [] if x is not None]


def independent_count(root: Path) -> tuple[int, int, list[tuple[str, str]]]:
    """(pages, link occurrences other than URLs, unresolved (page, target)) per DESIGN §2."""
    files = _walk(root)
    pages = [f for f in files if f.endswith(".md") and _is_page(root, f)]
    all_files, page_set = set(files), set(pages)
    wiki = "wiki/" if (root / "wiki").is_dir() else ""
    stems: dict[str, list[str]] = {}
    titles: dict[str, list[str]] = {}
    aliases: dict[str, list[str]] = {}
    files_by_name: dict[str, list[str]] = {}
    page_links: dict[str, list[tuple[str, str]]] = {}
    for p in pages:
        text = (root / p).read_bytes().removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace")
        fm, body = _mask(text)
        try:
            meta = yaml.safe_load(fm) if fm is not None else {}
        except yaml.YAMLError:
            meta = {}
        meta = meta if isinstance(meta, dict) else {}
        title = str(meta.get("title") or "").strip() or (_h1_title(body) if wiki else "") or posixpath.basename(p)[:-3]
        stems.setdefault(posixpath.basename(p)[:-3].lower(), []).append(p)
        titles.setdefault(title.lower(), []).append(p)
        for alias in _names(meta.get("aliases") or meta.get("alias")):
            aliases.setdefault(alias.lower(), []).append(p)
        page_links[p] = _links(body)
    for f in all_files - page_set:
        files_by_name.setdefault(posixpath.basename(f).lower(), []).append(f)

    def best(cands: list[str]) -> str | None:
        return min(cands, key=lambda c: (len(c), c)) if cands else None

    def tail(cands: list[str], want: str, strip_md: bool) -> list[str]:
        keep = []
        for c in cands:
            low = c.lower()[:-3] if strip_md else c.lower()
            rel = low[len(wiki):] if wiki and low.startswith(wiki) else low
            if want in (low, rel) or low.endswith("/" + want):
                keep.append(c)
        return keep

    def by_name(target: str) -> str | None:
        t = target.replace("\\", "/").lstrip("/").lower()
        base = t[:-3] if t.endswith(".md") else t
        cands = stems.get(base.rsplit("/", 1)[-1], [])
        cands = tail(cands, base, True) if "/" in base else cands
        if cands:
            return best(cands)
        for table in (titles, aliases):
            if t in table:
                return best(table[t])
        name = t.rsplit("/", 1)[-1]
        for key, want in ((name, t), (name + ".md", t + ".md")):
            cands = files_by_name.get(key, [])
            cands = tail(cands, want, False) if "/" in want else cands
            if cands:
                return best(cands)
        return None

    total, unresolved = 0, []
    for p, links in page_links.items():
        for kind, target in links:
            total += 1
            if not target:
                continue  # [[#Heading]]: this page
            hit = None
            if kind == "md":
                joined = posixpath.normpath(posixpath.join(posixpath.dirname(p), target))
                rooted = posixpath.normpath(target.lstrip("/"))
                hit = next((c for c in (joined, rooted) if c in all_files), None)
            if hit is None and by_name(target) is None:
                unresolved.append((p, target))
    return len(pages), total, unresolved
