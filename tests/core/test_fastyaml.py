"""The flat-YAML fast path reads frontmatter exactly as PyYAML does, or declines."""

from __future__ import annotations

import datetime as dt
import os

import pytest
import yaml

from tests.conftest import SAMPLE, corpus_path
from wikitui.core.vault.files import decode_text
from wikitui.core.vault.flat_yaml import load_simple
from wikitui.core.vault.page import split_frontmatter


@pytest.mark.parametrize(
    "text, expected",
    [
        ("title: A\ntype: concept\n", {"title": "A", "type": "concept"}),
        ("tags: [a, 'b c', \"d\"]\n", {"tags": ["a", "b c", "d"]}),
        ("aliases:\n  - One\n  - 'Two'\nsummary: x\n", {"aliases": ["One", "Two"], "summary": "x"}),
        ("created: 2026-11-20\ncount: 12\n", {"created": dt.date(2026, 11, 20), "count": 12}),
        ("sources:\n- raw/a.md\n", {"sources": ["raw/a.md"]}),
        ("empty:\n", {"empty": None}),
        ("title: It''s\n", {"title": "It''s"}),
        ("title: 'It''s'\n", {"title": "It's"}),
        ("title: Über uns\nk_1: yes please\n", {"title": "Über uns", "k_1": "yes please"}),
        ("key.with-dots: x\nkey with space: y\n_k: 3\n", {"key.with-dots": "x", "key with space": "y", "_k": 3}),
    ],
)
def test_flat_frontmatter_is_read_like_pyyaml(text, expected):
    assert load_simple(text) == expected == yaml.safe_load(text)


@pytest.mark.parametrize(
    "text",
    [
        "zip: 01234\n",  # YAML 1.1 octal: PyYAML reads 668
        "draft: yes\n",
        "n: 1.5\n",
        "title: A # comment\n",
        "meta:\n  nested: 1\n",
        "summary: >\n  folded\n",
        "title: \"esc\\n\"\n",
        "a: &x 1\nb: *x\n",
        "title: a: b\n",
        "tags: [[nested]]\n",
        "title: A\ntitle: B\n",
        "title: Off\n",  # YAML 1.1 boolean, though it starts like a word
        "a: null\n",
        "ключ: x\n",  # a key PyYAML reads, outside the subset
        "a : x\n",
        "a:b\n",
        "title: Tab\there\n",
    ],
)
def test_anything_beyond_the_flat_subset_is_left_to_pyyaml(text):
    assert load_simple(text) is None


def _frontmatters(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.endswith(".md"):
                with open(os.path.join(folder, name), "rb") as fh:
                    fm, _body, _line = split_frontmatter(decode_text(fh.read())[0])
                if fm is not None:
                    yield fm


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["sample", "vault-small", "vault-large"])
def test_every_frontmatter_of_the_real_vaults_reads_the_same(name):
    root = SAMPLE if name == "sample" else corpus_path(name)
    checked = 0
    for fm in _frontmatters(root):
        fast = load_simple(fm)
        if fast is None:
            continue
        try:
            slow = yaml.load(fm, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            pytest.fail(f"fast path accepted YAML that PyYAML rejects: {fm[:200]!r}")
        assert fast == (slow or {}), fm[:200]
        checked += 1
    # vault-large has almost no frontmatter; the others have it on (nearly) every page.
    assert checked >= {"sample": 55, "vault-small": 1400, "vault-large": 1}[name]
