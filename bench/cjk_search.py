"""CJK search: wikitui's bigram analyzer against jieba's Whoosh analyzer, on tests/data/cjk_vault.

Both index the same files into the same plain Whoosh schema (title boosted 5x,
body) and answer the same queries. A query word that analyses into several tokens
is the phrase of them for the bigrams (as in wikitui's schema), and all of them
(Whoosh's default) for jieba: its search mode yields overlapping words (巴菲特 ->
巴菲, 菲特, 巴菲特) whose positions are character offsets, so as a phrase they never
match. Printed per analyzer:

- recall: for each word, the files found against the files grep finds it in;
- ranking: whether the file about the word comes first;
- one-character words (猫, 金, 仁): whether every file holding them is found;
- index time: the fixture's files copied ``--copies`` times, indexed in RAM (best of three), and the index's size;
- import cost: a fresh interpreter importing the analyzer and analysing one line
  (jieba loads its dictionary on first use).

Run: ``python bench/cjk_search.py [--copies 40]`` (needs ``jieba`` installed; it is
not a dependency of wikitui).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VAULT = ROOT / "tests" / "data" / "cjk_vault"
sys.path.insert(0, str(ROOT))

from tests.core.test_search_cjk import FIRST, WORDS, grep  # noqa: E402

IMPORTS = {
    "bigram": "from wikitui.core.search.whoosh.analysis import WikiAnalyzer; a = WikiAnalyzer('en')",
    "jieba": "from jieba.analyse import ChineseAnalyzer; a = ChineseAnalyzer()",
}


def _bigrams_only():
    from wikitui.core.search.whoosh.analysis import WikiAnalyzer

    class BigramsOnly(WikiAnalyzer):
        """Lucene's default: no character tokens beside the bigrams."""

        def __call__(self, value, **kw):
            kw["mode"] = "query" if kw.get("mode") == "index" else kw.get("mode", "")
            return super().__call__(value, **kw)

    globals()["BigramsOnly"] = BigramsOnly
    BigramsOnly.__qualname__ = "BigramsOnly"
    return BigramsOnly


def analyzer(name: str):
    from wikitui.core.search.whoosh.analysis import WikiAnalyzer

    if name == "bigram":
        return WikiAnalyzer("en")
    if name == "bigram-only":
        return _bigrams_only()("en")
    from jieba.analyse import ChineseAnalyzer

    return ChineseAnalyzer()


def files() -> list[tuple[str, str, str]]:
    out = []
    for top in ("wiki", "raw"):
        for p in sorted((VAULT / top).rglob("*")):
            if p.is_file():
                text = p.read_text(encoding="utf-8")
                title = next((line[2:] for line in text.splitlines() if line.startswith("# ")), p.stem)
                out.append((p.relative_to(VAULT).as_posix(), title, text))
    return out


def build(name: str, docs, copies: int = 1):
    from whoosh import fields
    from whoosh.filedb.filestore import RamStorage

    ana = analyzer(name)
    multi = "phrase" if name == "bigram" else "and"
    schema = fields.Schema(
        path=fields.ID(stored=True, unique=True),
        title=fields.TEXT(analyzer=ana, multitoken_query=multi),
        body=fields.TEXT(analyzer=ana, multitoken_query=multi),
    )
    ix = RamStorage().create_index(schema)
    start = time.perf_counter()
    writer = ix.writer()
    for n in range(copies):
        for path, title, text in docs:
            writer.add_document(path=f"{n}/{path}" if n else path, title=title, body=text)
    writer.commit()
    seconds = time.perf_counter() - start
    ix.size = sum(len(f) for f in ix.storage.files.values())
    return ix, seconds


def search(ix, query: str) -> list[str]:
    from whoosh.qparser import MultifieldParser

    parser = MultifieldParser(["title", "body"], ix.schema, fieldboosts={"title": 5.0})
    with ix.searcher() as s:
        return [hit["path"] for hit in s.search(parser.parse(query), limit=100)]


def import_cost(name: str) -> float:
    """Median seconds, over three fresh interpreters, to import the analyzer and analyse one line."""
    code = IMPORTS[name] + "; list(a('巴菲特的浮存金'))"
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
    base = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import whoosh.analysis"], check=True, capture_output=True, cwd=ROOT)
        base.append(time.perf_counter() - start)
    return sorted(times)[1] - sorted(base)[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=40)
    args = ap.parse_args()
    docs = files()
    for name in ("bigram", "bigram-only", "jieba"):
        ix, _ = build(name, docs)
        found = wanted = 0
        missed = []
        for word in WORDS:
            expected = grep(VAULT, word)
            got = set(search(ix, word)) & expected
            found += len(got)
            wanted += len(expected)
            if got != expected:
                missed.append(f"{word} {len(got)}/{len(expected)}")
        chars = [(c, set(search(ix, c)) == grep(VAULT, c)) for c in ("猫", "金", "仁")]
        firsts = [(q, (search(ix, q) or ["-"])[0] == first) for q, first in FIRST]
        runs = [build(name, docs, args.copies) for _ in range(3)]
        big, seconds = runs[0][0], min(t for _, t in runs)  # the best of three: the machine is shared
        print(f"{name}: recall {found}/{wanted} files over {len(WORDS)} words"
              + (f" (missed: {', '.join(missed)})" if missed else ""))
        print(f"  ranking: the file about the word first for {sum(ok for _, ok in firsts)}/{len(firsts)} queries"
              + (f" (not: {', '.join(q for q, ok in firsts if not ok)})" if not all(ok for _, ok in firsts) else ""))
        print(f"  one-character words found in every file holding them: {sum(ok for _, ok in chars)}/{len(chars)}")
        print(f"  index time: {seconds:.2f} s for {len(docs) * args.copies} files"
              f" ({sum(len(t) for _, _, t in docs) * args.copies / 1e6:.2f} M characters), index {big.size / 1e6:.2f} MB")
        if name in IMPORTS:
            print(f"  import + first analysis: {import_cost(name) * 1000:.0f} ms over importing Whoosh's analysis")


if __name__ == "__main__":
    main()
