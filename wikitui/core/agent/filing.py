"""Filing an answer as a page (``/file``), so explorations compound in the wiki.

Done without a model call: the answer already cites its pages; the page gets the
frontmatter the conventions ask for (``type: answer``, a one-line summary, the raw
sources the answer quotes) and a file name made from the question.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import unicodedata

from wikitui.core.vault.layout import Vault

_WIKILINK = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]+))?\]\]")
_RAW_PATH = re.compile(r"(?<![\w/])raw/[\w./\-]+\.\w+")


def slugify(text: str, limit: int = 60) -> str:
    """Lowercase-kebab-case ASCII of ``text`` (``Who stole the tarts?`` -> ``who-stole-the-tarts``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if len(slug) > limit:
        slug = slug[:limit].rsplit("-", 1)[0]
    return slug or "answer"


def plain(text: str) -> str:
    """Markdown reduced to plain text for a summary line (links to their labels, no emphasis)."""
    text = _WIKILINK.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[*_`>#]+", "", text)
    return re.sub(r"\s+", " ", text).strip()


def first_sentence(text: str, limit: int = 160) -> str:
    """The answer's first sentence as plain text, at most ``limit`` characters."""
    flat = plain(text)
    m = re.match(r"(.+?[.!?])(\s|$)", flat)
    sentence = m.group(1) if m else flat
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def answer_page(vault: Vault, question: str, answer: str, *, today: _dt.date | None = None) -> tuple[str, str]:
    """The path and text of a page holding ``answer`` to ``question``.

    The path is ``answers/<slug>.md`` in the wiki folder, numbered when taken.
    """
    today = today or _dt.date.today()
    slug = slugify(question)
    path = vault.join_wiki(f"answers/{slug}.md")
    n = 2
    while (vault.root / path).exists():
        path = vault.join_wiki(f"answers/{slug}-{n}.md")
        n += 1
    title = re.sub(r"\s+", " ", question).strip()
    sources = sorted(set(_RAW_PATH.findall(answer)))
    front = [
        "---",
        f"title: {json.dumps(title, ensure_ascii=False)}",
        "type: answer",
        f"summary: {json.dumps(first_sentence(answer) or title, ensure_ascii=False)}",
        "tags: [answer]",
        f"sources: [{', '.join(sources)}]",
        f"created: {today.isoformat()}",
        f"updated: {today.isoformat()}",
        "---",
    ]
    body = f"\n# {title}\n\n**Question:** {title}\n\n{answer.strip()}\n"
    return path, "\n".join(front) + "\n" + body


def backlinks_to_answer(vault: Vault, graph, answer: str, answer_path: str, title: str,
                        *, limit: int = 12) -> dict[str, str]:
    """The pages the answer cites, each with a line added linking the filed answer (DESIGN §11).

    So the answer is no orphan: every page it cites (the first ``limit``, index.md and
    log.md aside) links back to it, in the same changeset. wikitui adds the line itself
    rather than asking the model, so it is never forgotten.

    Returns:
        {page path: its new text}.
    """
    from wikitui.core.vault.files import decode_exact

    target = link_target(vault, answer_path)
    label = re.sub(r"[\[\]|\n\r]+", " ", title).strip() or target
    line = f"Filed answer: [[{target}|{label}]]\n"
    out: dict[str, str] = {}
    for path in cited_pages(vault, graph, answer):
        try:
            text = decode_exact((vault.root / path).read_bytes())  # other bytes kept exactly
        except OSError:
            continue
        out[path] = text.rstrip("\n") + "\n\n" + line
        if len(out) >= limit:
            break
    return out


def link_target(vault: Vault, path: str) -> str:
    """How a page links ``path``: wiki-relative, without ``.md`` (``answers/who-stole-the-tarts``)."""
    target = vault.wiki_relative(path)
    return target[:-3] if target.endswith(".md") else target


def cited_pages(vault: Vault, graph, answer: str, *, skip: tuple[str, ...] = ()) -> list[str]:
    """The wiki pages ``answer`` cites, in order, each once: index.md, log.md and ``skip`` left out."""
    from wikitui.core.agent.citations import check_citations

    out: list[str] = []
    left_out = {vault.index_path, vault.log_path, *skip}
    for cited in check_citations(answer, graph):
        path = cited.path
        if path is not None and path in graph.pages and path not in out and path not in left_out:
            out.append(path)
    return out
