"""Hostile input is data (DESIGN §8): deep nesting, NUL bytes, lone surrogates and huge lines in sources,
decks and chart specs give text or one clear line, never a traceback."""

from __future__ import annotations

import pytest

from wikitui.core.outputs.deck_html import render_deck_html
from wikitui.core.outputs.slides import parse_deck
from wikitui.core.vault.formats import convert_file
from wikitui.core.vault.formats.clip import article_markdown, slugify
from wikitui.core.vault.formats.html import extract_article


def settled(conv) -> None:
    """Text that is valid UTF-8 without NUL, or one line saying why there is none."""
    if conv.ok:
        conv.text.encode("utf-8")
        assert "\x00" not in conv.text
    else:
        assert "\n" not in conv.error and conv.text == ""


@pytest.mark.parametrize("name, data", [
    ("deep.html", b"<html><body>" + b"<div>" * 100_000 + b"deep text" + b"</div>" * 100_000 + b"</body></html>"),
    ("nul.html", b"<html><body><article><p>before\x00after " * 50 + b"</p></article></body></html>"),
    ("bad-utf8.html", b"<html><body><article><p>caf\xe9 \xff\xfe ok</p>" * 40 + b"</article></body></html>"),
    ("one-line.csv", b"a," * 3_000_000),
    ("nul.csv", b"a,b\n1,\x002\n"),
    ("surrogates.json", b'{"a": "\\ud800 lone"}'),
    ("deep.jsonl", b"[" * 100_000 + b"\n"),
    ("nul.txt", b"text\x00with nul"),
    ("garbage.pptx", b"PK\x03\x04" + b"\x00" * 1000),
    ("empty.pdf", b""),
    ("empty.csv", b""),
    ("empty.png", b""),
])
def test_hostile_files_convert_to_text_or_one_line(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    settled(convert_file(path))


def test_an_article_with_hostile_characters_clips_to_valid_yaml(tmp_path):
    import frontmatter

    article = extract_article(("<html><head><title>A\x00 title \ud800 with: colons # and 'quotes'</title></head>"
                               "<body><article><p>" + "Words of the article. " * 40 + "</p></article></body></html>"
                               ).encode("utf-8", "surrogatepass"))
    text = article_markdown(article.title, "https://example.com/a", __import__("datetime").date(2026, 1, 2),
                            article.markdown + "\x00\ud800")
    text.encode("utf-8")
    post = frontmatter.loads(text)
    assert "\x00" not in text and post["source_url"] == "https://example.com/a"
    assert slugify(article.title).startswith("a-title")


@pytest.mark.parametrize("body", [
    ">" * 100_000 + " deep quote",
    "- " * 20_000 + "deep list",
    "[" * 100_000 + "]" * 100_000,
    "\x00\ud800 text\n\n---\n\nnext",
    "```\n" + "---\n" * 10_000,
])
def test_hostile_decks_split_and_render(body):
    text = "---\nmarp: true\n---\n" + body
    deck = parse_deck(text)
    page = render_deck_html(deck, "t\ud800")
    page.encode("utf-8")
    assert "\x00" not in page
    assert page.count("<section ") == len(deck.slides) >= 1


def test_the_conversion_child_yields_the_cpu_to_the_workspace(tmp_path):
    """A 50 MB file converting in its child competed with the app for the 2 cores: the child runs niced."""
    import os
    import subprocess
    import sys

    if not hasattr(os, "nice"):
        pytest.skip("no process priorities on this platform")
    src = tmp_path / "note.csv"
    src.write_text("a,b\n1,2\n", encoding="utf-8")
    code = (
        "import os, sys\n"
        "from wikitui.core.vault.formats import isolated_child\n"
        "before = os.nice(0)\n"
        f"isolated_child.main([{str(src)!r}, 'csv'])\n"
        "sys.stderr.write(str(os.nice(0) - before))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith('"length": 8}\na,b\n1,2\n') and int(proc.stderr.strip().splitlines()[-1]) > 0
