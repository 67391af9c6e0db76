"""The agent's tools (DESIGN §4): read-only lookups and ``propose_*`` changes.

Names and arguments are a stable contract. Each tool is a documented method of
:class:`ToolBox`; its signature and docstring ARE the JSON schema the model sees
(:mod:`~wikitui.core.agent.toolschema`). :meth:`ToolBox.call` never raises: an unknown
tool, malformed JSON, wrong or missing arguments, a hostile path or a refused
proposal all come back as an ``error: ...`` result for the model to act on, and
nothing is written (proposals only accumulate in the turn's ChangesetBuilder).
Results are compact text that cites vault-relative paths.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from wikitui.core.agent.argcheck import display
from wikitui.core.agent.reading import describe_binary, resolve_readable
from wikitui.core.agent.toolschema import ToolArgError, check_arguments, function_schema, parse_arguments
from wikitui.core.errors import WikituiError
from wikitui.core.vault.files import decode_text, is_binary

#: Tools that propose changes (refused during an ingest's plan phase).
PROPOSE_TOOLS = ("propose_edit", "propose_page", "propose_delete", "propose_move")
READ_TOOLS = ("search", "read", "list_pages", "links")
#: Longest line ``read`` shows whole.
MAX_LINE = 2000
#: Most lines one ``read`` returns.
MAX_READ_LINES = 400
#: Files larger than this are not read at all.
MAX_READ_BYTES = 32 * 1024 * 1024


class Edit(TypedDict):
    """One exact search/replace edit."""

    old: str
    new: str


@dataclass(slots=True)
class ToolOutcome:
    """The result of one tool call.

    Attributes:
        ok: False when ``text`` is an error for the model.
        text: What the model receives.
        summary: One line for the chat.
        description: One quiet line saying what was done (``read wiki/x.md``).
    """

    ok: bool
    text: str
    summary: str
    description: str


class ToolBox:
    """The tools of one agent turn, bound to a vault.

    Args:
        vault: The vault.
        graph: Its link graph.
        search_index: A ``SearchIndex`` (None: one is opened and updated on first search).
        builder: The turn's ``ChangesetBuilder`` (None: proposals are refused).
        phase: ``"write"`` (default) or ``"plan"`` (an ingest's plan phase: proposals refused).
        max_result_chars: Results longer than this are cut with a note.
    """

    def __init__(self, vault, graph, search_index=None, builder=None, phase: str = "write",
                 max_result_chars: int = 24_000) -> None:
        self.vault = vault
        self.graph = graph
        self.search_index = search_index
        self.builder = builder
        self.phase = phase
        self.max_result_chars = max_result_chars
        self._schemas = _schemas_of(type(self))

    # ---------------------------------------------------------------- schemas
    def schemas(self) -> list[dict]:
        """The OpenAI ``tools`` list, in a stable order."""
        return list(self._schemas.values())

    # --------------------------------------------------------------- dispatch
    def call(self, name: str, arguments_json: str) -> ToolOutcome:
        """Run one tool call; never raises, never writes."""
        try:
            raw_args = parse_arguments(arguments_json)
        except ToolArgError as exc:
            raw_args = None
            error = str(exc)
        description = describe_call(name, raw_args or {})
        if name not in self._schemas:
            return self._error(description, f"there is no tool {display(name, 80)!r}; the tools are "
                                            f"{', '.join(self._schemas)}")
        if raw_args is None:
            return self._error(description, f"{name}: {error}")
        try:
            kwargs = check_arguments(self._schemas[name], raw_args)
        except ToolArgError as exc:
            return self._error(description, f"{name}: {exc}")
        if name in PROPOSE_TOOLS:
            refusal = self._refuse_proposal()
            if refusal:
                return self._error(description, refusal)
        try:
            text = getattr(self, name)(**kwargs)
        except (WikituiError, ToolArgError) as exc:  # ProposalError, UnsafePath, BadQuery...
            return self._error(description, display(str(exc), 2000))
        except Exception as exc:  # a bug must not end the turn: the model hears about it and moves on
            return self._error(description, f"{name} failed unexpectedly ({type(exc).__name__}: {display(exc)})")
        text = self._truncate(text)
        return ToolOutcome(True, text, text.split("\n", 1)[0][:160], description)

    def _refuse_proposal(self) -> str | None:
        if self.phase == "plan":
            return ("this is the PLAN phase of the ingest: nothing can be proposed yet. State the plan first "
                    "(key takeaways, pages to create, pages to update), then wait for the user to approve it")
        if self.builder is None:
            return "changes cannot be proposed in this session"
        return None

    @staticmethod
    def _error(description: str, message: str) -> ToolOutcome:
        message = message if message.startswith("error") else f"error: {message}"
        return ToolOutcome(False, message, message[:160], description)

    def _truncate(self, text: str) -> str:
        if len(text) <= self.max_result_chars:
            return text
        cut = text.rfind("\n", 0, self.max_result_chars)
        cut = cut if cut > 0 else self.max_result_chars
        return (text[:cut] + f"\n[result cut: {len(text) - cut:,} more characters; narrow the query, "
                "lower the limit or page with offset]")

    # ------------------------------------------------------------------ tools
    def search(self, query: str, scope: Literal["all", "wiki", "raw"] = "all", limit: int = 10) -> str:
        """Full-text search over the wiki's pages and the raw sources. Use a few keywords, not a sentence.

        Supports "exact phrases", prefix*, fuzzy~, tag:x, type:concept.

        Args:
            query: Keywords to look for.
            scope: "wiki" (pages), "raw" (sources) or "all".
            limit: Most hits to return (1-50).
        """
        index = self._index()
        limit = max(1, min(limit, 50))
        hits = index.search(query, scope=scope, limit=limit)
        notes = [f"Note: {note}" for note in getattr(hits, "notes", ())]  # e.g. a fuzzy distance capped at 2
        if not hits:
            return "\n".join([f'0 hits for "{query}" (scope {scope}). Try fewer or other words, a prefix*, '
                              "a fuzzy~ match, or list_pages.", *notes])
        lines = [f'{len(hits)} hit{"s" if len(hits) != 1 else ""} for "{query}" (scope {scope}):', *notes]
        for i, hit in enumerate(hits, 1):
            where = f", line {hit.line}" if hit.line else ""
            lines.append(f"{i}. {hit.path} — {hit.title} ({hit.kind}{where}, score {hit.score:.1f})")
            snippet = " ".join(hit.snippet.split())
            if snippet:
                lines.append(f"   {snippet[:300]}")
        return "\n".join(lines)

    def read(self, path: str, offset: int = 0, limit: int = 400) -> str:
        """Read a page or a raw source with numbered lines. Long files come in parts.

        Args:
            path: A vault-relative path (wiki/..., raw/...), a path inside the wiki folder, or a page's title or alias.
            offset: Lines to skip (0 starts at the top; use the offset a previous read suggested).
            limit: Lines to return (at most 400).
        """
        rel, absolute = resolve_readable(self.vault, self.graph, path)
        size = absolute.stat().st_size
        if size > MAX_READ_BYTES:
            return f"{rel}: {size:,} bytes, too large to read; search it instead (search with scope raw)"
        data = absolute.read_bytes()
        if is_binary(data):
            return describe_binary(self.vault, self.graph, rel, data)
        text, ok = decode_text(data)
        lines = text.splitlines()
        total = len(lines)
        offset = max(0, offset)
        limit = max(1, min(limit, MAX_READ_LINES))
        head = rel
        info = self.graph.pages.get(rel)
        if info is not None:
            kind = f", {info.type}" if info.type else ""
            head += f' (page "{info.title}"{kind})'
        elif self.vault.is_raw(rel):
            head += " (raw source, read-only)"
        if total == 0:
            return f"{head}: empty file"
        if offset >= total:
            return f"{head}: only {total} lines; offset {offset} is past the end"
        budget = self.max_result_chars - 400
        out: list[str] = []
        used = 0
        end = offset
        for n in range(offset, min(total, offset + limit)):
            line = lines[n]
            if len(line) > MAX_LINE:
                line = line[:MAX_LINE] + f" …[line cut: {len(line) - MAX_LINE} more characters]"
            row = f"{n + 1:>5}\t{line}"
            if used + len(row) > budget and out:
                break
            out.append(row)
            used += len(row) + 1
            end = n + 1
        status = f"lines {offset + 1}-{end} of {total}"
        notes = []
        if not ok:
            notes.append("[not valid UTF-8: undecodable bytes shown as \ufffd]")
        if info is not None and info.warnings:
            notes.append("[page warnings: " + "; ".join(info.warnings) + "]")
        if end < total:
            notes.append(f"[{status}; call read with offset={end} for more]")
        return "\n".join([f"{head} {status}", *out, *notes])

    def list_pages(self, folder: str = "", type: str = "") -> str:  # noqa: A002 - the contract's name
        """List pages with their titles and summaries, optionally in one folder and/or of one type.

        Args:
            folder: A folder, e.g. "wiki/concepts" or "concepts" ("" for all).
            type: A frontmatter type such as "entity", "concept", "source" ("" for all).
        """
        prefix = folder.strip().strip("/").replace("\\", "/")
        if prefix and self.vault.wiki_prefix and not prefix.startswith(self.vault.wiki_prefix + "/") \
                and prefix != self.vault.wiki_prefix:
            prefix = self.vault.join_wiki(prefix)
        want = type.strip().lower()
        rows = []
        for path in sorted(self.graph.pages):
            if prefix and not (path.startswith(prefix + "/") or path == prefix):
                continue
            info = self.graph.pages[path]
            if want and info.type.lower() != want:
                continue
            kind = f" [{info.type}]" if info.type else ""
            summary = f": {info.summary[:140]}" if info.summary else ""
            rows.append(f"{path} — {info.title}{kind}{summary}")
        where = f" in {prefix}/" if prefix else ""
        of_type = f" of type {want}" if want else ""
        if not rows:
            types = sorted({i.type for i in self.graph.pages.values() if i.type})
            return f"0 pages{where}{of_type}. Types in this wiki: {', '.join(types) or 'none'}."
        shown = rows[:300]
        more = [f"[{len(rows) - len(shown)} more; narrow with folder= or type=]"] if len(rows) > len(shown) else []
        return "\n".join([f"{len(rows)} pages{where}{of_type}:", *shown, *more])

    def links(self, path: str) -> str:
        """A page's outgoing links, backlinks (with the line of context) and unresolved links.

        Args:
            path: The page's path, title or alias.
        """
        rel = self.graph.find_page(path)
        if rel is None:
            rel, _ = resolve_readable(self.vault, self.graph, path)
        info = self.graph.pages.get(rel)
        lines = [f'{rel} ("{info.title}")' if info else rel]
        if info is not None:
            out = self.graph.outgoing(rel)
            graph_links = [(lk, t) for lk, t in out if lk.kind != "url"]
            lines.append(f"Outgoing ({len(graph_links)}):")
            for link, target in graph_links[:150]:
                lines.append(f"- line {link.line}: [[{link.target}{'#' + link.anchor if link.anchor else ''}]] → "
                             f"{target or 'UNRESOLVED'}")
        back = self.graph.backlinks(rel)
        lines.append(f"Backlinks ({len(back)}):")
        for b in back[:150]:
            lines.append(f"- {b.source}:{b.link.line}: {b.link.context[:160]}")
        if info is not None:
            unresolved = [lk for lk, t in self.graph.outgoing(rel) if t is None and lk.kind != "url"]
            lines.append(f"Unresolved ({len(unresolved)}): " + (", ".join(sorted({f"[[{lk.target}]]" for lk in unresolved})) or "none"))
        return "\n".join(lines)

    def propose_edit(self, path: str, edits: list[Edit], reason: str) -> str:
        """Propose exact search/replace edits to an existing page. Each `old` must occur exactly once.

        A missing or ambiguous `old` rejects the whole call (never a partial edit): read the page
        again and copy the text exactly.

        Args:
            path: The page to edit.
            edits: Edits applied in order, each {"old": exact current text, "new": replacement}.
            reason: One line saying why, shown to the user.
        """
        return self.builder.edit(path, [dict(e) for e in edits], reason)

    def propose_page(self, path: str, content: str, reason: str) -> str:
        """Propose a new page (or a complete rewrite of one), with its YAML frontmatter.

        Args:
            path: Where the page goes, e.g. wiki/concepts/transformer.md.
            content: The whole page, frontmatter included.
            reason: One line saying why, shown to the user.
        """
        return self.builder.new_page(path, content, reason)

    def propose_delete(self, path: str, reason: str) -> str:
        """Propose deleting a page.

        Args:
            path: The page to delete.
            reason: One line saying why, shown to the user.
        """
        return self.builder.delete(path, reason)

    def propose_move(self, path: str, new_path: str, reason: str) -> str:
        """Propose moving or renaming a page; links pointing at it are rewritten in the same changeset.

        Args:
            path: The page to move.
            new_path: Its new path.
            reason: One line saying why, shown to the user.
        """
        return self.builder.move(path, new_path, reason)

    # ---------------------------------------------------------------- helpers
    def _index(self):
        if self.search_index is None:
            from wikitui.core.search.facade import SearchIndex  # deferred: whoosh is heavy

            self.search_index = SearchIndex(self.vault)
            self.search_index.update(self.graph)
        return self.search_index

    def suggest(self, name: str) -> list[str]:
        """Page paths whose path or title resembles ``name`` (for "did you mean")."""
        titles = {info.title.lower(): path for path, info in self.graph.pages.items()}
        close = difflib.get_close_matches(name.lower(), list(titles), n=3, cutoff=0.6)
        return [titles[c] for c in close]


_SCHEMAS: dict[type, dict[str, dict]] = {}


def _schemas_of(cls: type) -> dict[str, dict]:
    """The tools' schemas, built once per class (a ToolBox is made for every turn phase)."""
    if cls not in _SCHEMAS:
        _SCHEMAS[cls] = {name: function_schema(getattr(cls, name)) for name in READ_TOOLS + PROPOSE_TOOLS}
    return _SCHEMAS[cls]


def describe_call(name: str, args: dict[str, Any]) -> str:
    """One quiet line for the chat saying what a tool call does."""
    def arg(key: str) -> str:
        value = args.get(key)
        if value is None or value == "" or isinstance(value, (list, dict)):
            return ""
        return display(value, 160)

    if name == "search":
        scope = f" in {arg('scope')}" if arg("scope") and arg("scope") != "all" else ""
        return f'searched "{arg("query")}"{scope}'
    if name == "read":
        offset = args.get("offset")
        more = f" from line {int(offset) + 1}" if isinstance(offset, int) and offset > 0 else ""
        return f"read {arg('path')}{more}"
    if name == "list_pages":
        bits = [b for b in (arg("folder"), f"type {arg('type')}" if arg("type") else "") if b]
        return "listed pages" + (" in " + ", ".join(bits) if bits else "")
    if name == "links":
        return f"looked at the links of {arg('path')}"
    if name == "propose_edit":
        return f"proposed an edit to {arg('path')}"
    if name == "propose_page":
        return f"proposed the page {arg('path')}"
    if name == "propose_delete":
        return f"proposed deleting {arg('path')}"
    if name == "propose_move":
        return f"proposed moving {arg('path')} to {arg('new_path')}"
    return f"called {display(name, 80)}"
