"""A turn's catalog at any size (DESIGN §13): selection time, tokens against the budget, recall (prints JSON).

    .venv/bin/python bench/turn_catalog.py [--sizes 1000,10000] [--questions N] [--windows 8192,32768]

Not part of the test run. On generated vaults (``bench/_common.generate_vault``, 40-word
bodies, 3-8 links a page, index.md written by wikitui's own catalog, the search index
built once), for each window:

- **selection**: the seconds :func:`~wikitui.core.agent.fitting.fit_first_request` takes for
  a turn's first request (one search, the entries fitted to the share; a fresh
  :class:`~wikitui.core.agent.turn_catalog.TurnCatalog` per turn, as each turn has), median
  and p90; and the same with the old cut at a line (``catalog=None``) beside it;
- **tokens**: the first request's tokens (system prompt, the user's message, the tool
  schemas) against what the window leaves after the answer's reserve, and the
  WIKI.md + index.md part against its share;
- **recall**: the share of questions whose page's entry the request carries: asked by
  title ("What do we know about <title>?"), by words of the summary only (no title), and a
  source naming three pages (all three must be there), against the cut at a line; and
  without a search index (the graph's titles, aliases and summaries matched instead: "graph").

Token counts use litellm's counter, as the agent does (no model is called).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import generate_vault, loadavg, median, ms, percentile  # noqa: E402


def _vault(root: Path, pages: int):
    from wikitui.core.search.facade import SearchIndex
    from wikitui.core.vault.catalog import render_index
    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

    generate_vault(root, pages=pages, words=40)
    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    head = "# Index\n\nThe generated wiki's catalog.\n\n<!-- wikitui:index -->\n"
    (root / vault.index_path).write_text(render_index(vault, graph, head), encoding="utf-8")
    vault = Vault.open(root)
    graph = LinkGraph.load(vault)
    start = time.perf_counter()
    index = SearchIndex(vault)
    index.update(graph)
    index.optimize()
    return vault, graph, index, time.perf_counter() - start


def _questions(graph, vault, n: int, seed: int) -> list[tuple[str, str, list[str]]]:
    """(kind, text, the paths it is about): by title, by summary words, a source about three pages."""
    rng = random.Random(seed)
    special = {vault.index_path, vault.log_path}
    pages = sorted(p for p in graph.pages if p not in special)
    out = []
    for _ in range(n):
        p = rng.choice(pages)
        info = graph.pages[p]
        out.append(("title", f"What do we know about {info.title}?", [p]))
        words = info.summary.rstrip(".").split()
        out.append(("summary", "Which page says " + " ".join(words[:6]).lower() + "?", [p]))
        three = rng.sample(pages, 3)
        text = "# Field notes\n\n" + "\n\n".join(
            f"## {graph.pages[q].title}\n\n{graph.pages[q].summary}" for q in three)
        out.append(("source", text, three))
    return out


def _run(vault, graph, index, window_tokens: int, questions, count_text, count_message, tools_tokens):
    from wikitui.core.agent.fitting import fit_first_request
    from wikitui.core.agent.prompts import ask as ask_prompt
    from wikitui.core.agent.prompts import compact
    from wikitui.core.agent.turn_catalog import Focus, TurnCatalog
    from wikitui.core.agent.window import ContextWindow
    from wikitui.core.vault.catalog import catalog_lines

    window = ContextWindow(window_tokens, "the benchmark")
    task = compact.Task(ask_prompt.ask_task(), compact.ask_task())
    times: dict[str, list] = {"chosen": [], "graph": [], "cut": []}
    found: dict[str, dict] = {"chosen": {}, "graph": {}, "cut": {}}
    sent, context, budgets = [], [], []
    for kind, text, about in questions:
        user = {"role": "user", "content": text if kind != "source" else "Ingest raw/notes.md."}
        entries = [catalog_lines(graph, [graph.pages[p]])[-1] for p in about]
        for how in ("chosen", "graph", "cut"):
            catalog = None if how == "cut" else TurnCatalog(vault, graph, index if how == "chosen" else None,
                                                            Focus(text))
            start = time.perf_counter()
            fitted = fit_first_request(vault, graph, task, window, tools_tokens, user, count_text, count_message,
                                       model="bench", initial_context_tokens=10**9, catalog=catalog)
            times[how].append(time.perf_counter() - start)
            ok = all(e in fitted.system for e in entries)
            found[how].setdefault(kind, []).append(ok)
            if how == "chosen":
                b = fitted.budget
                sent.append(fitted.system_tokens + count_message(user) + b.tools)
                budgets.append((b.window.tokens - b.reserve, b.context))
                start_at = fitted.system.find("## WIKI.md")
                end_at = fitted.system.rfind("\n\n## ")
                context.append(count_text(fitted.system[start_at:end_at]))
    limit, share = budgets[0]
    return {
        "window": window_tokens,
        "selection_ms": {"p50": ms(median(times["chosen"])), "p90": ms(percentile(times["chosen"], 90)),
                         "without_search_index_p50": ms(median(times["graph"])),
                         "cut_at_a_line_p50": ms(median(times["cut"]))},
        "request_tokens": {"max": max(sent), "median": int(median(sent)), "limit": limit},
        "wiki_md_and_index_with_headings_tokens": {"max": max(context), "share": share},
        "recall": {how: {kind: round(sum(v) / len(v), 3) for kind, v in by_kind.items()}
                   for how, by_kind in found.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--windows", default="8192,32768")
    parser.add_argument("--questions", type=int, default=20)
    args = parser.parse_args()

    from wikitui.core.agent.llm import LLMClient
    from wikitui.core.agent.tools import ToolBox
    from wikitui.core.config.settings import Settings

    client = LLMClient(Settings(model="openai/gpt-4o"))
    count_text = lambda s: client.count_tokens(text=s)  # noqa: E731
    count_message = lambda m: client.count_tokens([m])  # noqa: E731
    tools = {small: count_text(json.dumps(ToolBox.tool_schemas(small))) for small in (False, True)}
    count_text("warm the tokenizer")
    out: dict = {"loadavg_before": loadavg(), "vaults": []}
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            vault, graph, index, built = _vault(Path(tmp) / "vault", size)
            text = (vault.root / vault.index_path).read_text(encoding="utf-8")
            row = {"pages": size, "index_md_tokens": count_text(text), "search_index_build_s": round(built, 1),
                   "runs": []}
            questions = _questions(graph, vault, args.questions, seed=size)
            for w in (int(x) for x in args.windows.split(",")):
                row["runs"].append(_run(vault, graph, index, w, questions, count_text, count_message,
                                        tools.__getitem__))
            index.close()
            out["vaults"].append(row)
    out["loadavg_after"] = loadavg()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
