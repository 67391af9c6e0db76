"""Benchmark the agent's economy and overhead against the fake OpenAI-compatible server.

Runs scripted turns through the real AgentSession, litellm and HTTP (no network, no
paid model) and prints JSON:

* prompt tokens sent (summed over every request of a turn, counted with
  ``litellm.token_counter``) for an ask that needs 3 pages, one that needs 5, and an
  ingest, on the sample vault and on a copy of vault-small, against the total tokens of
  the wiki (target: an ask needing <= 5 pages sends <= 5% of vault-small's tokens);
* the time wikitui itself adds per tool round trip, model excluded (target <= 20 ms on
  the sample vault): from the end of the model's stream to the start of the next request.

Usage: ``.venv/bin/python bench/agent.py [--vault-small PATH]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakeserver import FAKE_API_KEY, FAKE_MODEL, FakeLLM, Reply, text, tool_call, tool_calls  # noqa: E402

CORPUS = Path(os.environ.get("WIKITUI_CORPUS", ROOT.parent / "shared" / "corpus"))


def _env(fake: FakeLLM, home: Path) -> None:
    os.environ.update({
        "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
        "WIKITUI_MODEL": FAKE_MODEL, "WIKITUI_API_BASE": fake.api_base, "OPENAI_API_KEY": FAKE_API_KEY,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    })
    os.environ.pop("WIKITUI_CONFIG", None)


def _open(root: Path):
    from wikitui.core.graph import LinkGraph
    from wikitui.core.search import SearchIndex
    from wikitui.core.vault import Vault

    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    index = SearchIndex(vault)
    index.update(graph)
    return vault, graph, index


def wiki_tokens(vault, graph, count) -> int:
    """Tokens of every page plus WIKI.md: what sending the whole wiki would cost."""
    from wikitui.core.fsutil import read_text

    total = sum(count(read_text(vault.root / p)) for p in graph.pages)
    schema = vault.root / "WIKI.md"
    return total + (count(read_text(schema)) if schema.exists() else 0)


def _sent_tokens(fake: FakeLLM, first: int, count_messages) -> int:
    return sum(count_messages(r["messages"], r.get("tools")) for r in fake.requests[first:])


def ask_script(query: str, pages: list[str]) -> list[Reply]:
    """Search, read the pages (in one round), answer citing them."""
    cites = ", ".join(f"[[{Path(p).stem}]]" for p in pages)
    return [
        tool_call("search", query=query, scope="wiki", limit=8),
        tool_calls(*[("read", {"path": p}) for p in pages]),
        text(f"Here is what the wiki says, in a few paragraphs, drawing on {cites}. " * 4),
    ]


def edit_for(vault, page: str, source_title: str) -> dict:
    """An exact edit appending a 'see also' to the page's last non-empty line."""
    from wikitui.core.fsutil import read_text

    lines = [ln for ln in read_text(vault.root / page).splitlines() if ln.strip()]
    last = lines[-1]
    return {"old": last, "new": f"{last} See also [[{source_title}]]."}


def ingest_script(vault, source: str, query: str, pages: list[str]) -> list[Reply]:
    """Plan (read the source, search, read pages, state the plan), then write (a source page + edits)."""
    title = f"Source {Path(source).stem}"
    body = ("---\ntitle: " + json.dumps(title) + "\ntype: source\nsummary: A benchmark source summary.\n"
            f"sources: [{source}]\n---\n\n# {title}\n\n" + "A summary paragraph of the source. " * 30 + "\n")
    proposals = [("propose_page", {"path": vault.join_wiki(f"sources/{Path(source).stem}-bench.md"),
                                   "content": body, "reason": "source summary"})]
    proposals += [("propose_edit", {"path": p, "edits": [edit_for(vault, p, title)], "reason": "link the source"})
                  for p in pages]
    return [
        tool_call("read", path=source),
        tool_call("search", query=query, scope="wiki", limit=8),
        tool_calls(*[("read", {"path": p}) for p in pages]),
        text("Plan: takeaways... create the source page; update " + ", ".join(pages) + "."),
        tool_calls(*proposals),
        text("Proposed the source page and the links."),
    ]


async def measure(fake: FakeLLM, root: Path, *, ask_query: str, ingest_source: str, ingest_query: str) -> dict:
    from wikitui.core.agent.llm import LLMClient, load_litellm
    from wikitui.core.agent.session import AgentSession
    from wikitui.core.config import load_settings

    litellm = load_litellm()

    def count_text(s: str) -> int:
        return litellm.token_counter(model=FAKE_MODEL, text=s)

    def count_messages(messages, tools) -> int:
        return litellm.token_counter(model=FAKE_MODEL, messages=messages, tools=tools)

    vault, graph, index = _open(root)
    total = wiki_tokens(vault, graph, count_text)
    hits = [h.path for h in index.search(ask_query, scope="wiki", limit=10)]
    settings = load_settings(vault)
    out: dict = {"vault": root.name, "pages": len(graph.pages), "wiki_tokens": total}
    for n in (3, 5):
        pages = hits[:n]
        session = AgentSession(vault, graph, index, settings, client=LLMClient(settings))
        first = len(fake.requests)
        fake.script(*ask_script(ask_query, pages))
        done = await session.ask(f"A question needing {n} pages about {ask_query}")
        assert not done.failed, done
        sent = _sent_tokens(fake, first, count_messages)
        out[f"ask_{n}_pages"] = {"requests": len(fake.requests) - first, "prompt_tokens_sent": sent,
                                 "share_of_wiki": round(sent / total, 4),
                                 "pages_read_tokens": sum(count_text((root / p).read_text("utf-8-sig")) for p in pages),
                                 "overhead_ms": [round(x * 1000, 2) for x in session.round_overheads]}
    ingest_pages = [h.path for h in index.search(ingest_query, scope="wiki", limit=6)][:3]
    session = AgentSession(vault, graph, index, settings, client=LLMClient(settings))
    first = len(fake.requests)
    fake.script(*ingest_script(vault, ingest_source, ingest_query, ingest_pages))
    errors: list[str] = []
    session.on_event = lambda ev: errors.append(ev.summary) if getattr(ev, "ok", True) is False else None
    done = await session.ingest(ingest_source, auto_go=True)
    assert not done.failed and done.changeset is not None, (done, errors)
    sent = _sent_tokens(fake, first, count_messages)
    out["ingest"] = {"requests": len(fake.requests) - first, "prompt_tokens_sent": sent,
                     "share_of_wiki": round(sent / total, 4), "files_in_changeset": len(done.changeset.files),
                     "tool_errors": errors, "overhead_ms": [round(x * 1000, 2) for x in session.round_overheads]}
    overheads = out["ask_3_pages"]["overhead_ms"] + out["ask_5_pages"]["overhead_ms"] + out["ingest"]["overhead_ms"]
    out["round_trip_overhead_ms"] = {"median": round(statistics.median(overheads), 2), "max": max(overheads),
                                     "rounds": len(overheads)}
    index.close()
    return out


def _vault_small_copy(dest: Path) -> Path | None:
    src = CORPUS / "vault-small"
    if not src.is_dir():
        return None
    shutil.copytree(src, dest / "vault-small")
    root = dest / "vault-small"
    # Its sources live in archive/*.json; give the ingest a real statute as a markdown source.
    law = json.loads((src / "archive" / "ustg.json").read_text("utf-8"))
    par = law["paragraphen"][0]
    (root / "raw").mkdir(exist_ok=True)
    (root / "raw" / "ustg-1.md").write_text(f"# UStG {par['nummer']} {par['titel']}\n\n{par['inhalt']}\n", "utf-8")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    fake = FakeLLM().start()
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        _env(fake, tmp_path / "home")
        sample = tmp_path / "sample"
        shutil.copytree(ROOT / "sample", sample, ignore=shutil.ignore_patterns(".wikitui"))
        t0 = time.perf_counter()
        results["sample"] = asyncio.run(measure(fake, sample, ask_query="Cheshire Cat grin",
                                                ingest_source="raw/chapter-03.md", ingest_query="Dodo caucus race"))
        small = _vault_small_copy(tmp_path)
        if small is not None:
            results["vault-small"] = asyncio.run(measure(fake, small, ask_query="Vorsteuerabzug",
                                                         ingest_source="raw/ustg-1.md",
                                                         ingest_query="steuerbare Umsätze"))
            share = results["vault-small"]["ask_5_pages"]["share_of_wiki"]
            results["target_ask_5_pages_share_le_5pct"] = share <= 0.05
        else:
            results["vault-small"] = f"skipped: corpus not found at {CORPUS}"
        results["target_overhead_le_20ms_sample"] = results["sample"]["round_trip_overhead_ms"]["median"] <= 20
        results["seconds"] = round(time.perf_counter() - t0, 1)
    fake.stop()
    print(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
