"""Helpers shared by the benchmarks: timing, vault preparation, and reference indexers.

The reference points are deliberately plain: a "bare" Whoosh script that indexes
the same files with the same fields the way a Whoosh tutorial would (stock
``StemmingAnalyzer``, default writer), and SQLite FTS5 from the standard library.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import sqlite3
import statistics
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("WIKITUI_CORPUS", ROOT.parent / "shared" / "corpus"))


# ------------------------------------------------------------------- timing
def timed(fn: Callable[[], object]) -> float:
    """Seconds one call of ``fn`` takes."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def percentile(xs: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of ``xs``."""
    if not xs:
        return float("nan")
    ordered = sorted(xs)
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def plain_python(work: Path) -> Path:
    """An interpreter with nothing installed (a fresh venv of the base Python, made once in ``work``).

    The reference for "``python -c pass``": the project's own venv runs its editable install's path
    hook and ``distutils-precedence.pth`` at every start (~15 ms here), which a plain interpreter does not.
    """
    import venv

    target = work / "plain-python"
    python = target / "bin" / "python"
    if not python.exists():
        venv.EnvBuilder(with_pip=False, clear=True).create(target)
    return python


def loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


# ------------------------------------------------------------------- vaults
def corpus_missing(name: str) -> str:
    """The note for a corpus that is not there: where it was looked for, and where it belongs."""
    return (
        f"{name}: skipped, corpus not found at {CORPUS / name} "
        "(the corpora live in ../shared/corpus beside the project, or set WIKITUI_CORPUS)"
    )


def copy_corpus(name: str, dest: Path) -> Path | None:
    """Copy a corpus vault into ``dest`` (None when the corpus is absent)."""
    src = CORPUS / name
    if not src.is_dir():
        return None
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".wikitui"))
    return dest


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    """Real English words (from the Alice corpus when present) topped up with made-up ones."""
    words: list[str] = []
    alice = CORPUS / "alice" / "raw"
    if alice.is_dir():
        seen: dict[str, int] = {}
        for f in sorted(alice.glob("*.md")):
            for w in re.findall(r"[a-z]{3,}", f.read_text(encoding="utf-8").lower()):
                seen[w] = seen.get(w, 0) + 1
        words = sorted(seen, key=lambda w: -seen[w])
    syllables = ["ka", "lo", "mi", "ne", "tor", "sal", "ver", "qui", "dan", "pel", "rus", "ith", "ox", "bre", "gan"]
    known = set(words)
    while len(words) < size:
        w = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
        if w not in known:
            known.add(w)
            words.append(w)
    return words


def generate_vault(dest: Path, pages: int = 10_000, words: int = 300, seed: int = 7,
                   link_range: tuple[int, int] = (3, 8)) -> dict:
    """Write a realistic synthetic vault: frontmatter, headings, lists, wikilinks, ~``words`` words a page.

    Word frequencies follow a Zipf law over a 25,000-word vocabulary (real words
    first). Some fixed phrases are planted so phrase queries have answers.

    Returns:
        Facts the benchmark builds its queries from (vocabulary, tags, phrases).
    """
    rng = random.Random(seed)
    vocab = _vocabulary(rng, 25_000)
    weights = [1 / (i + 1) for i in range(len(vocab))]
    cum = list(_accumulate(weights))
    tags = ["history", "science", "people", "places", "ideas", "books", "music", "law", "health", "travel"]
    types = ["concept", "entity", "source", "topic"]
    phrases = ["white rabbit", "mock turtle", "golden key", "march hare", "pool of tears"]
    titles = [f"{vocab[rng.randrange(50, 3000)].title()} {vocab[rng.randrange(50, 3000)].title()} {i}" for i in range(pages)]
    (dest / "wiki").mkdir(parents=True, exist_ok=True)
    (dest / "raw").mkdir(exist_ok=True)
    (dest / "WIKI.md").write_text("# Schema\n", encoding="utf-8")

    def sentence(n: int) -> str:
        ws = rng.choices(vocab, cum_weights=cum, k=n)
        if rng.random() < 0.02:
            ws.insert(rng.randrange(len(ws) + 1), rng.choice(phrases))
        return " ".join(ws).capitalize() + "."

    for i, title in enumerate(titles):
        folder = dest / "wiki" / types[i % len(types)] / f"part-{i // 1000:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        links = [f"[[{titles[rng.randrange(pages)]}]]" for _ in range(rng.randint(*link_range))]
        body: list[str] = []
        remaining = words
        section = 0
        while remaining > 0:
            if section:
                body.append(f"## {sentence(3)[:-1]}")
            para = " ".join(sentence(rng.randint(8, 20)) for _ in range(rng.randint(2, 4)))
            if links:
                para += " See " + links.pop() + "."
            body.append(para)
            if rng.random() < 0.4:
                body.extend(f"- {sentence(rng.randint(4, 9))}" for _ in range(rng.randint(2, 4)))
            remaining -= len(para.split())
            section += 1
        body.extend(f"Related: {link}" for link in links)
        fm = (
            f"---\ntitle: {title}\ntype: {types[i % len(types)]}\nsummary: {sentence(10)}\n"
            f"tags: [{', '.join(rng.sample(tags, rng.randint(1, 3)))}]\n"
            + (f"aliases: [{vocab[rng.randrange(3000, 9000)].title()} {i}]\n" if rng.random() < 0.2 else "")
            + "created: 2026-01-01\n---\n\n"
        )
        (folder / f"{title}.md").write_text(fm + f"# {title}\n\n" + "\n\n".join(body) + "\n", encoding="utf-8")
    return {"vocab": vocab, "tags": tags, "phrases": phrases, "titles": titles}


def _accumulate(xs: list[float]):
    total = 0.0
    for x in xs:
        total += x
        yield total


# --------------------------------------------------------- reference indexers
_FM = re.compile(r"\A---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*\r?$\n?", re.DOTALL | re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def vault_files(root: Path, wiki: str = "wiki", raw: str = "raw") -> list[tuple[str, str]]:
    """(vault-relative path, "page"|"raw") for what wikitui indexes: .md pages and raw sources."""
    out = []
    wiki_prefix = f"{wiki}/" if (root / wiki).is_dir() else ""
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.startswith("."):
                continue
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            if rel.startswith(raw + "/"):
                out.append((rel, "raw"))
            elif name.lower().endswith(".md") and rel != "WIKI.md" and rel.startswith(wiki_prefix):
                out.append((rel, "page"))
    return sorted(out)


def _read_doc(root: Path, rel: str, kind: str) -> dict | None:
    """The same fields wikitui indexes, extracted the simple way."""
    import yaml

    data = (root / rel).read_bytes()[: 2 * 1024 * 1024]
    if b"\x00" in data[:8192]:
        return None
    text = data.decode("utf-8-sig", errors="replace")
    meta: dict = {}
    body = text
    if kind == "page":
        m = _FM.match(text)
        if m:
            try:
                loaded = yaml.load(m.group(1), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
                meta = loaded if isinstance(loaded, dict) else {}
            except yaml.YAMLError:
                meta = {}
            body = text[m.end() :]
    headings = _HEADING.findall(body)

    def as_list(v) -> list[str]:
        if v is None:
            return []
        return [str(x) for x in v] if isinstance(v, list) else [str(v)]

    title = str(meta.get("title") or (headings[0] if headings else Path(rel).stem))
    st = (root / rel).stat()
    return {
        "path": rel,
        "kind": kind,
        "title": title,
        "aliases": "\n".join(as_list(meta.get("aliases"))),
        "tags": ",".join(as_list(meta.get("tags"))),
        "type": str(meta.get("type") or ""),
        "summary": str(meta.get("summary") or ""),
        "headings": "\n".join(headings),
        "body": body,
        "mtime": st.st_mtime_ns,
        "size": st.st_size,
    }


def bare_whoosh_build(root: Path, index_dir: Path) -> float:
    """Index the vault the way a plain Whoosh script would; returns seconds."""
    from whoosh import fields, index
    from whoosh.analysis import StemmingAnalyzer

    start = time.perf_counter()
    shutil.rmtree(index_dir, ignore_errors=True)
    index_dir.mkdir(parents=True)
    ana = StemmingAnalyzer()
    schema = fields.Schema(
        path=fields.ID(stored=True, unique=True),
        kind=fields.ID(stored=True),
        title=fields.TEXT(analyzer=ana, stored=True),
        aliases=fields.TEXT(analyzer=ana),
        tags=fields.KEYWORD(lowercase=True, commas=True, scorable=True),
        type=fields.KEYWORD(lowercase=True, commas=True),
        summary=fields.TEXT(analyzer=ana, stored=True),
        headings=fields.TEXT(analyzer=ana),
        body=fields.TEXT(analyzer=ana),
        mtime=fields.STORED(),
        size=fields.STORED(),
    )
    ix = index.create_in(str(index_dir), schema)
    writer = ix.writer()
    for rel, kind in vault_files(root):
        doc = _read_doc(root, rel, kind)
        if doc is not None:
            writer.add_document(**doc)
    writer.commit()
    return time.perf_counter() - start


def fts5_build(root: Path, db_path: Path) -> tuple[float, sqlite3.Connection]:
    """Index the same files into SQLite FTS5 (porter stemming); returns (seconds, connection)."""
    start = time.perf_counter()
    db_path.unlink(missing_ok=True)
    conn = sqlite3.connect(db_path)
    conn.execute(
        "CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, kind UNINDEXED, title, aliases, tags, type,"
        " summary, headings, body, tokenize='porter unicode61')"
    )
    rows = []
    for rel, kind in vault_files(root):
        doc = _read_doc(root, rel, kind)
        if doc is not None:
            rows.append(tuple(doc[k] for k in ("path", "kind", "title", "aliases", "tags", "type", "summary", "headings", "body")))
    conn.executemany("INSERT INTO docs VALUES (?,?,?,?,?,?,?,?,?)", rows)
    conn.commit()
    return time.perf_counter() - start, conn


def fts5_search(conn: sqlite3.Connection, query: str, limit: int = 10) -> list[tuple]:
    """Top hits with a snippet, title weighted like wikitui's (bm25 column weights)."""
    return conn.execute(
        "SELECT path, title, snippet(docs, 8, '**', '**', '…', 24) FROM docs WHERE docs MATCH ?"
        " ORDER BY bm25(docs, 0, 0, 5.0, 4.0, 1.0, 1.0, 2.0, 2.0, 1.0) LIMIT ?",
        (query, limit),
    ).fetchall()
