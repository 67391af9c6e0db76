"""The parser's and the graph's fast paths give what the plain, general paths give.

A cold load of a big vault is dominated by parsing, so :func:`parse_page` reads only
the body (``mask_body`` from the body's offset, not ``mask_text`` over the whole file),
finds headings with a greedy pattern, and the graph keeps backlinks flat and promotes
what it built out of the collector's young generation. Each test below compares one
of those against the straightforward computation, on hand-written edge cases and on
every page of the sample vault and the real corpora.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.conftest import SAMPLE, corpus_path
from wikitui.core.vault.files import decode_text
from wikitui.core.vault.files import read_bytes
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.vault.links import _COMMENTS, _INLINE_CODE, _fence_spans, extract_links, mask_body, mask_text
from wikitui.core.vault.page import parse_page, split_frontmatter

# The textbook (lazy) heading pattern, matched against "\n" + the masked whole text.
_LAZY_HEADING = re.compile(r"\n#(#{0,5})[ \t]+([^\n]+?)[ \t#]*$", re.MULTILINE)
_BLOCK_ID = re.compile(r"\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)


def _blank(text: str, spans) -> str:
    out, pos = [], 0
    for a, b in spans:
        a = max(a, pos)
        out += [text[pos:a], re.sub(r"[^\n]", " ", text[a:b])]
        pos = max(b, a)
    return "".join(out) + text[pos:]


def reference_mask(text: str, frontmatter_lines: int) -> str:
    """mask_text's rules applied plainly: every step over the whole text, no shortcuts."""
    masked = text
    if frontmatter_lines:
        ends = [m.start() for m in re.finditer("\n", text)][:frontmatter_lines]
        fm_end = ends[-1] if len(ends) == frontmatter_lines else len(text)
        masked = _blank(text, [(0, fm_end)])
    masked = _blank(masked, _fence_spans(masked))
    masked = _blank(masked, [m.span() for m in _INLINE_CODE.finditer(masked)])
    return _blank(masked, [m.span() for m in _COMMENTS.finditer(masked)])


def reference_parse(text: str) -> tuple[list, list, list]:
    """(headings, block ids, links) the general way: mask everything, scan from offset 0."""
    fm, _body, body_line = split_frontmatter(text)
    masked = reference_mask(text, body_line - 1 if fm is not None else 0)
    assert mask_text(text, body_line - 1 if fm is not None else 0) == masked
    headings = [
        (len(m.group(1)) + 1, text[m.start(2) - 1 : m.end(2) - 1].strip(), masked.count("\n", 0, m.start()) + 1)
        for m in _LAZY_HEADING.finditer("\n" + masked)
    ]
    blocks = [m.group(1) for m in _BLOCK_ID.finditer(masked) if m.start() > 0 and masked[m.start() - 1] in " \t"]
    return headings, blocks, extract_links(text, masked)


def assert_parses_like_the_reference(path: str, text: str) -> None:
    info = parse_page(path, text)
    headings, blocks, links = reference_parse(text)
    assert [(h.level, h.text, h.line) for h in info.headings] == headings, path
    assert info.block_ids == blocks, path
    assert info.links == links, path
    fm, body, body_line = split_frontmatter(text)
    start = len(text) - len(body) if fm is not None else 0
    assert mask_body(text, start)[start:] == reference_mask(text, body_line - 1 if fm is not None else 0)[start:], path


EDGE_CASES = [
    "# Top\n## Sub ##\n### Closed ###   \n#### Trailing #tag\n",
    "#  \n# ###\n##\tTabbed\t#\t\n####### seven\n#NoSpace\n",
    "# Title `code`\n# A # B\n  # indented\n",
    "---\ntitle: T\n---\n# Right after the frontmatter\ntext [[A]] ^blk\n",
    "---\n# a YAML comment, not a heading [[Not A Link]]\ntitle: T\n---\nbody [[B]]\n",
    "---\ntitle: no newline after the close\n---",
    "---\ntitle: unclosed\n# Heading [[C]]\n",
    "---\r\ntitle: CRLF\r\n---\r\n# Heading #\r\nsee [[D|label]] and [e](E.md)\r\n",
    "```\n# fenced\n[[In Fence]]\n```\n# After\n~~~~\n[[Unclosed tilde]]\n~~~\n",
    "text `[[in code]]` and ``a`b`` [[F#Sec]] %% [[in comment]] %% <!-- [[G]]\n-->\n[[H#^blk]]",
    "%% unclosed comment [[I]]\n# still a comment\n",
    "~~~\n# fenced by tildes\n[[In Tildes]]\n~~~\n# After <!-- [[J]] -->\n",
    "[[A]] ![[img.png]] [x](<J K.md>) [w](https://e.com/a_(b)) [[  ]] [[|x]] [[L\\|t]]\n",
    "---\ntitle: [broken\n---\n# Still Here ^id-1\n",
    "",
    "# Only a heading",
]


@pytest.mark.parametrize("text", EDGE_CASES)
def test_edge_cases_parse_like_the_general_path(text):
    assert_parses_like_the_reference("wiki/edge.md", text)


def _pages(root: Path):
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.endswith(".md"):
                with open(os.path.join(folder, name), "rb") as fh:
                    yield name, decode_text(fh.read())[0]


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["sample", "vault-small", "vault-large", "alice"])
def test_every_page_of_the_real_vaults_parses_like_the_general_path(name):
    root = SAMPLE if name == "sample" else corpus_path(name)
    checked = headings = links = 0
    for path, text in _pages(root):
        assert_parses_like_the_reference(path, text)
        info = parse_page(path, text)
        checked += 1
        headings += len(info.headings)
        links += len(info.links)
    # Enough pages, headings and links that a divergence would have shown.
    assert checked >= {"sample": 55, "vault-small": 1400, "vault-large": 2700, "alice": 12}[name]
    assert headings >= checked // 2 and (links > 1000 or name in ("sample", "alice"))


# ------------------------------------------------------------------- the graph
def snapshot(graph: LinkGraph) -> dict:
    """Everything a caller can ask the graph about links, in a comparable form."""
    return {
        "outgoing": {p: [(l.target, l.line, l.start, t) for l, t in graph.outgoing(p)] for p in graph.pages},
        "backlinks": {p: [(b.source, b.link.line, b.link.context) for b in graph.backlinks(p)] for p in graph.pages},
        "unresolved": sorted((p, l.start) for p, l in graph.unresolved()),
        "orphans": sorted(graph.orphans()),
        "links": graph.link_count(),
    }


def test_a_graph_kept_current_one_file_at_a_time_equals_a_fresh_load(tmp_path):
    (tmp_path / "wiki").mkdir()
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "paper.pdf").write_bytes(b"%PDF")
    files = {
        "wiki/a.md": "---\ntitle: Alpha\naliases: [First]\n---\n[[Beta]] [[Gamma]] [[First]] [[#Top]]\n",
        "wiki/b.md": "---\ntitle: Beta\n---\n[[Alpha]] twice: [[alpha]] and [p](../raw/paper.pdf)\n",
        "wiki/c.md": "# Gamma\n\n[[Alpha#Sec]] [[Nowhere]]\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    vault = Vault.open(tmp_path)
    graph = LinkGraph.load(vault)
    edits = [
        ("wiki/b.md", "---\ntitle: Beta\n---\nnow only [[Gamma]] and [[paper.pdf]]\n"),  # links change, names do not
        ("wiki/d.md", "---\ntitle: Delta\n---\n[[Alpha]] [[Beta]] [[Delta]]\n"),  # a new page
        ("wiki/c.md", "---\ntitle: Nowhere\n---\n[[First]]\n"),  # a rename: [[Nowhere]] now resolves
        ("wiki/a.md", None),  # a deletion
    ]
    for rel, text in edits:
        if text is None:
            (tmp_path / rel).unlink()
        else:
            (tmp_path / rel).write_text(text, encoding="utf-8")
        graph.update_path(rel)
        assert snapshot(graph) == snapshot(LinkGraph.load(vault, use_cache=False)), rel
    assert sorted((p, l.target) for p, l in graph.unresolved()) == [
        ("wiki/b.md", "Gamma"),  # c.md is no longer titled by its "# Gamma"
        ("wiki/c.md", "First"),
        ("wiki/d.md", "Alpha"),
    ]
    assert [b.source for b in graph.backlinks("wiki/b.md")] == ["wiki/d.md"]
    assert [t for _l, t in graph.outgoing("wiki/b.md")] == [None, "raw/paper.pdf"]


def test_files_are_read_whole_or_up_to_a_limit(tmp_path):
    path = tmp_path / "big.md"
    data = b"x" * 200_000 + b"\n[[End]]\n"
    path.write_bytes(data)
    assert read_bytes(path) == data
    assert read_bytes(str(path), 10) == data[:10]
    assert read_bytes(path, 150_000) == data[:150_000]
    assert read_bytes(path, len(data) + 5) == data
    assert read_bytes(path, size=10) == data  # the file grew since it was listed: still read whole
    (tmp_path / "empty.md").write_bytes(b"")
    assert read_bytes(tmp_path / "empty.md") == b""
    assert read_bytes(tmp_path / "empty.md", 100) == b""


