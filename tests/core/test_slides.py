"""Marp decks (DESIGN §9): a ``marp: true`` page split into slides as Marp splits it, and exported
to a self-contained HTML deck, or through marp-cli when it is on PATH."""

from __future__ import annotations

import base64
import os
import re
import shutil
import stat
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.core import formats_samples as samples
from wikitui.core.outputs.export import export_page, marp_error
from wikitui.core.outputs.slides import DeckError, is_deck, parse_deck, split_slides
from wikitui.core.vault.layout import Vault

DECK = """---
marp: true
title: Glacier talk
paginate: true
---

<!-- _class: lead -->
# Glaciers of the Alps

Why they shrink
<!-- Presenter: greet the room first. -->

---

## Code is not a separator

```yaml
key: value
---
other: value
```

Setext heading
---

- a list
  ***
***
## Last slide
<!-- backgroundColor: #eef -->

![[assets/chart.png|the chart]]
"""


# ------------------------------------------------------------ splitting
def test_a_deck_splits_where_marp_does():
    slides = split_slides(DECK)
    assert [s.number for s in slides] == [1, 2, 3]
    assert slides[0].text == "# Glaciers of the Alps\n\nWhy they shrink"
    assert slides[1].text.startswith("## Code is not a separator\n\n```yaml\nkey: value\n---\nother: value\n```")
    assert "Setext heading\n---" in slides[1].text and "- a list\n  ***" in slides[1].text
    assert slides[2].text == "## Last slide\n\n![[assets/chart.png|the chart]]"


def test_slides_know_their_line_in_the_page():
    lines = DECK.split("\n")
    for slide in split_slides(DECK):
        assert lines[slide.line - 1] == slide.text.split("\n")[0]


def test_directives_are_kept_out_of_view_and_notes_apart():
    first, second, third = split_slides(DECK)
    assert first.directives == {"paginate": True, "class": "lead"}  # paginate from the frontmatter
    assert second.directives == {"paginate": True}  # "_class" held for its own slide only
    assert third.directives == {"paginate": True, "backgroundColor": "#eef"}
    assert first.notes == ["Presenter: greet the room first."]
    assert not any("<!--" in s.text for s in (first, second, third))


def test_local_directives_carry_on_to_later_slides():
    slides = split_slides("---\nmarp: true\n---\n<!-- color: red -->\nA\n\n---\n\nB\n\n---\n<!-- _color: blue -->\nC\n")
    assert [s.directives.get("color") for s in slides] == ["red", "red", "blue"]


def test_the_heading_divider_directive_splits_at_headings():
    text = "---\nmarp: true\nheadingDivider: 2\n---\n# One\ntext\n## Two\nmore\n### Three stays\n"
    assert [s.text for s in split_slides(text)] == ["# One\ntext", "## Two\nmore\n### Three stays"]


def test_a_deck_without_a_body_is_one_empty_slide_and_crlf_is_fine():
    assert [s.text for s in split_slides("---\nmarp: true\n---\n")] == [""]
    crlf = DECK.replace("\n", "\r\n")
    assert [s.text for s in split_slides(crlf)] == [s.text for s in split_slides(DECK)]


@pytest.mark.parametrize("text, deck", [
    (DECK, True),
    ("---\nmarp: 'true'\n---\nx", True),
    ("\ufeff---\nmarp: true\n---\nx", True),
    ("---\nmarp: false\n---\nx", False),
    ("# marp: true\n\n---\n", False),
    ("---\nmarp: [true\n---\nx", False),  # broken YAML: a page, not a deck
    ("", False),
])
def test_what_a_deck_is(text, deck):
    assert is_deck(text) is deck


_line = st.one_of(
    st.text(st.characters(categories=("L", "N"), include_characters=" .,"), min_size=1, max_size=30)
    .map(str.strip).filter(bool),
    st.sampled_from(["# Title", "## Sub", "- item", "> quote", "```\n---\n```", "| a |\n|---|\n| 1 |"]),
)
_slide = st.lists(_line, min_size=1, max_size=5).map("\n\n".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(_slide, min_size=1, max_size=8), st.sampled_from(["---", "***", "___", "- - -"]))
def test_slides_joined_by_any_rule_split_back_the_same(bodies, rule):
    text = "---\nmarp: true\n---\n\n" + f"\n\n{rule}\n\n".join(bodies) + "\n"
    assert [s.text for s in parse_deck(text).slides] == bodies


# ------------------------------------------------------------ exporting
@pytest.fixture
def vault(tmp_path):
    root = tmp_path / "vault"
    (root / "raw").mkdir(parents=True)
    (root / "wiki" / "assets").mkdir(parents=True)
    (root / "wiki" / "talk.md").write_text(DECK, encoding="utf-8")
    samples.make_png(root / "wiki" / "assets" / "chart.png", (40, 20))
    return Vault.open(root)


def test_without_marp_an_html_deck_is_written_self_contained(vault, tmp_path):
    result = export_page(vault, "wiki/talk.md", "html", cwd=tmp_path, marp=None)
    assert result.path == tmp_path / "talk.html" and result.tool == "wikitui"
    page = result.path.read_text(encoding="utf-8")
    assert page.count("<section ") == 3 and "<title>Glacier talk</title>" in page
    assert 'class="slide lead"' in page and 'style="background:#eef"' in page
    assert "<h1>Glaciers of the Alps</h1>" in page and "<h2>Last slide</h2>" in page
    png = (vault.wiki_dir / "assets" / "chart.png").read_bytes()
    assert f'src="data:image/png;base64,{base64.b64encode(png).decode()}" alt="the chart"' in page
    # Nothing is loaded from elsewhere: no remote script, style, font or link; a CSP forbids it too.
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=\"(https?:)?//", page)
    assert "default-src 'none'" in page and "addEventListener('keydown'" in page
    assert "Presenter: greet" not in page and "_class" not in page
    mode = result.path.stat().st_mode & 0o777
    assert mode == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_deck_cannot_smuggle_markup_or_files_into_the_export(vault, tmp_path):
    secret = tmp_path / "secret.png"
    samples.make_png(secret)
    (vault.wiki_dir / "evil.md").write_text(
        "---\nmarp: true\n---\n<script>alert(1)</script>\n\n![x](../../secret.png)\n\n"
        "![y](/etc/hosts.png)\n\n[click](javascript:alert(1))\n\n<!-- _backgroundColor: red;}</style><script> -->\n",
        encoding="utf-8")
    page = export_page(vault, "wiki/evil.md", out=tmp_path / "evil.html", marp=None).path.read_text()
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'href="javascript:' not in page  # shown as text, never a link
    assert page.count("data:image") == 0  # a picture outside the vault is not read
    assert "</style><script>" not in page


def test_the_output_goes_where_asked_and_never_into_raw_or_a_page(vault, tmp_path):
    out = tmp_path / "decks" / "mine.html"
    out.parent.mkdir()
    assert export_page(vault, "wiki/talk.md", out=out, marp=None).path == out
    for bad, message in ((vault.raw_dir / "talk.html", "raw/ is read-only"),
                         (vault.wiki_dir / "copy.md", "never written over a markdown file"),
                         (tmp_path / "nowhere" / "x.html", "no such folder"),
                         (vault.root / ".wikitui" / "x.html", "wikitui's own folder")):
        (vault.root / ".wikitui").mkdir(exist_ok=True)
        with pytest.raises(DeckError, match=re.escape(message)):
            export_page(vault, "wiki/talk.md", out=bad, marp=None)
    assert sorted(p.name for p in vault.raw_dir.iterdir()) == []


def test_pdf_and_pptx_without_marp_say_how_to_install_it(vault, tmp_path):
    for fmt in ("pdf", "pptx"):
        with pytest.raises(DeckError, match=r"needs marp-cli.*npm install -g @marp-team/marp-cli.*--format html"):
            export_page(vault, "wiki/talk.md", fmt, cwd=tmp_path, marp=None)
    assert list(tmp_path.glob("talk.*")) == []


def test_a_page_that_is_not_a_deck_is_refused(vault, tmp_path):
    (vault.wiki_dir / "plain.md").write_text("# Just a page\n")
    with pytest.raises(DeckError, match="not a Marp deck: add `marp: true` to its frontmatter"):
        export_page(vault, "wiki/plain.md", cwd=tmp_path, marp=None)
    with pytest.raises(DeckError, match="unknown format 'docx'"):
        export_page(vault, "wiki/talk.md", "docx", cwd=tmp_path, marp=None)


FAKE_MARP = """#!{python}
import sys, pathlib
args = sys.argv[1:]
out = pathlib.Path(args[args.index("-o") + 1])
source = pathlib.Path([a for a in args if a.endswith(".md")][0])
if "FAIL" in source.read_text():
    sys.stderr.write("[  INFO ] Converting 1 markdown...\\n[ ERROR ] Failed converting Markdown. (No suitable\\n"
                     "          browser found.)\\nTrace...\\n")
    sys.exit(1)
out.write_text("MARP OUTPUT\\n" + " ".join(args) + "\\n" + source.read_text())
"""


@pytest.fixture
def fake_marp(tmp_path):
    exe = tmp_path / "bin" / "marp"
    exe.parent.mkdir()
    exe.write_text(FAKE_MARP.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return str(exe)


def test_with_marp_on_path_it_does_the_export(vault, tmp_path, fake_marp, monkeypatch):
    monkeypatch.setenv("PATH", str(Path(fake_marp).parent) + os.pathsep + os.environ["PATH"])
    result = export_page(vault, "wiki/talk.md", "pdf", cwd=tmp_path)
    assert result.tool == "marp-cli" and result.path == tmp_path / "talk.pdf"
    out = result.path.read_text()
    assert out.startswith("MARP OUTPUT\n--no-stdin --pdf ")
    assert str(vault.wiki_dir) not in out.splitlines()[1]  # marp-cli gets a copy, never the page itself
    assert "![the chart](data:image/png;base64," in out  # the Obsidian embed became a picture it can show
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_a_marp_failure_is_one_line_and_writes_nothing(vault, tmp_path, fake_marp):
    (vault.wiki_dir / "bad.md").write_text("---\nmarp: true\n---\nFAIL\n")
    with pytest.raises(DeckError) as info:
        export_page(vault, "wiki/bad.md", "pdf", cwd=tmp_path, marp=fake_marp)
    assert str(info.value) == ("marp-cli failed: Failed converting Markdown. (No suitable browser found.) "
                               "(PDF and PPTX need Chromium or Chrome installed); nothing was written")
    assert list(tmp_path.glob("*bad*")) == []
    assert marp_error("") == "" and marp_error("boom\n    at x\n") == "boom"


@pytest.mark.skipif(shutil.which("marp") is None, reason="marp-cli is not on PATH (npm install -g @marp-team/marp-cli)")
def test_the_real_marp_cli_makes_an_html_deck(vault, tmp_path):
    result = export_page(vault, "wiki/talk.md", "html", cwd=tmp_path)
    page = result.path.read_text()
    assert result.tool == "marp-cli" and "Glaciers of the Alps" in page and page.count("<section") >= 3
