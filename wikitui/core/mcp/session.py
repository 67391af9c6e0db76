"""What ``wikitui mcp`` serves, without the MCP SDK: tools, resources and the session's changeset (DESIGN §10).

An :class:`McpSession` is one MCP client's session on a
:class:`~wikitui.core.workspace.Workspace`. Its tools are the agent's own
(:class:`~wikitui.core.agent.tools.ToolBox`: the same schemas, the same checks, the
same results, every error a text starting ``error:``), plus ``lint`` (the
deterministic checks, as the agent's lint pass reads them, optionally for one page).
The ``propose_*`` tools gather into ONE changeset per session, id ``mcp-...``, saved
as pending after each proposal: the human reviews it in the workspace or with
``wikitui pending``. Nothing here applies a changeset or writes a page.

The SDK glue is :mod:`wikitui.core.mcp.server` (the only module that imports ``mcp``); this
module is plain Python, tested without a server.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING
from urllib.parse import unquote

from wikitui.core.agent.argcheck import display
from wikitui.core.agent.tools import PROPOSE_TOOLS, ToolBox
from wikitui.core.agent.tools.read import MAX_READ_BYTES
from wikitui.core.agent.toolschema import function_schema
from wikitui.core.base.errors import WikituiError
from wikitui.core.vault.visible_text import visible

if TYPE_CHECKING:  # pragma: no cover
    from wikitui.core.changes.builder import ChangesetBuilder
    from wikitui.core.workspace import Workspace

#: The resources every session lists; pages are read through ``wiki://page/{path}``.
INDEX_URI = "wiki://index"
LOG_URI = "wiki://log"
PAGE_PREFIX = "wiki://page/"
PAGE_TEMPLATE = "wiki://page/{path}"


def lint(box, path: str = "") -> str:
    """Run the wiki's deterministic checks (broken links, orphans, missing frontmatter, stale pages...).

    Args:
        path: Only the problems of this page (a path, title or alias); "" for the whole wiki.
    """
    from wikitui.core.agent.prompts.lint import format_lint_report
    from wikitui.core.agent.reading import resolve_readable
    from wikitui.core.vault.lint import LintReport, run_lint

    report = run_lint(box.vault, box.graph)
    if path.strip():
        rel = box.graph.find_page(path)
        if rel is None:
            rel, _ = resolve_readable(box.vault, box.graph, path)
        problems = [p for p in report.problems if p.path == rel]
        counts = {check: sum(1 for p in problems if p.check == check) for check in report.counts}
        text = format_lint_report(LintReport(problems, counts))
        return f"{rel}: {text}"
    return format_lint_report(report)


class McpSession:
    """One MCP client's session: the agent's tools on a workspace, and one pending changeset.

    Tool calls and the watcher's updates may come from different threads: they take
    turns under one lock.

    Args:
        workspace: The open workspace (its graph is loaded on first use).
        client: The client's name (from its handshake), for the changeset's title.
    """

    def __init__(self, workspace: Workspace, client: str = "") -> None:
        self.workspace = workspace
        self.client = client
        self.lock = threading.RLock()
        self._box: ToolBox | None = None
        self._saved: str | None = None  # the id of the changeset last saved as pending
        self._schemas = [*ToolBox(None, None).schemas(), function_schema(lint)]

    # ---------------------------------------------------------------- keeping up
    def warm_up(self) -> None:
        """Load the link graph and bring the index up to date (before the first call needs them)."""
        try:
            with self.lock:
                self._toolbox()
        except Exception:  # the first tool call reports it
            pass

    def files_changed(self, paths: list[str]) -> None:
        """Files changed on disk (the watcher): the graph and the index follow."""
        with self.lock:
            if self.workspace.graph is not None and paths:
                self.workspace.files_changed(paths)

    # ------------------------------------------------------------------ tools
    def tools(self) -> list[dict]:
        """Each tool as ``{"name", "description", "input_schema"}`` (the agent's schemas, then ``lint``)."""
        return [{"name": s["function"]["name"], "description": s["function"]["description"],
                 "input_schema": s["function"]["parameters"]} for s in self._schemas]

    def call(self, name: str, arguments: object) -> tuple[bool, str]:
        """Run one tool call; never raises. Returns ``(ok, text)``; an error's text starts with ``error:``.

        A chart is drawn before the session's lock is taken (it may take a second), so
        the calls that come meanwhile are answered; the proposal then takes the picture.
        The text shows a page's control and invisible characters visibly (``␛``, ``⟨U+202E⟩``):
        a client may print it on a terminal (DESIGN §8).
        """
        ok, text = self._call(name, arguments)
        return ok, visible(text)

    def _call(self, name: str, arguments: object) -> tuple[bool, str]:
        if name == "propose_chart" and isinstance(arguments, dict):
            from wikitui.core.outputs.charts import prerender

            prerender(arguments.get("spec"))
        with self.lock:
            self._recover()
            try:
                box = self._toolbox()
            except Exception as exc:  # the vault could not be read: say so, keep serving
                return False, f"error: {display(str(exc) or type(exc).__name__, 2000)}"
            try:
                arguments_json = json.dumps({} if arguments is None else arguments, ensure_ascii=False)
            except (TypeError, ValueError, RecursionError) as exc:
                return False, f"error: {name}: the arguments are not JSON ({type(exc).__name__})"
            if name == "lint":
                return self._lint(box, arguments_json)
            if name in PROPOSE_TOOLS:
                self._start_over_if_reviewed()
            outcome = box.call(name, arguments_json)
            if outcome.ok and name in PROPOSE_TOOLS:
                note = self._save()
                return True, outcome.text + note
            return outcome.ok, outcome.text

    def _recover(self) -> None:
        """Finish or roll back an apply another process was killed in since this server started (one ``stat``)."""
        try:
            self.workspace.recover_if_interrupted()
        except Exception:  # never worth failing a call for: the next apply recovers too
            pass

    def _lint(self, box: ToolBox, arguments_json: str) -> tuple[bool, str]:
        from wikitui.core.agent.toolschema import ToolArgError, check_arguments, parse_arguments

        try:
            kwargs = check_arguments(self._schemas[-1], parse_arguments(arguments_json))
            return True, box.truncate(lint(box, **kwargs))
        except (ToolArgError, WikituiError) as exc:
            message = display(str(exc), 2000)
            return False, message if message.startswith("error") else f"error: lint: {message}"
        except Exception as exc:  # a bug must not end the session
            return False, f"error: lint failed unexpectedly ({type(exc).__name__}: {display(exc)})"

    # --------------------------------------------------------------- changeset
    @property
    def changeset_id(self) -> str | None:
        """The id of the session's pending changeset (None until something was proposed)."""
        return self._saved

    def _toolbox(self) -> ToolBox:
        if self._box is None:
            ws = self.workspace
            graph = ws.require_graph()
            if ws.search_index is None:
                ws.update_index()
            self._box = ToolBox(ws.vault, graph, ws.search_index, builder=self._new_builder())
        return self._box

    def _new_builder(self) -> ChangesetBuilder:
        from wikitui.core.changes.builder import ChangesetBuilder
        from wikitui.core.changes.model import new_changeset_id

        builder = ChangesetBuilder(self.workspace.vault, self.workspace.require_graph())
        builder.changeset_id = new_changeset_id(prefix="mcp")
        return builder

    def _start_over_if_reviewed(self) -> None:
        """The human applied or rejected the session's changeset: the next proposal starts a new one."""
        if self._saved is None or self._box is None:
            return
        store = self.workspace.pending
        if not (self.workspace.root / store.relpath(self._saved)).exists():
            self.workspace.refresh()  # what the apply wrote, if the watcher has not told us yet
            self._box.builder = self._new_builder()
            self._saved = None

    def _save(self) -> str:
        """Save everything proposed so far as the session's pending changeset; a note for the client."""
        assert self._box is not None and self._box.builder is not None
        who = f" by {display(self.client, 60)}" if self.client else ""
        changeset = self._box.builder.build("edit", f"Proposed over MCP{who}")
        if changeset is None:  # the proposals cancel out (a page proposed, then its deletion)
            if self._saved is not None:
                self.workspace.pending.discard(self._saved)
                self._saved = None
            return "\n(nothing is left to review: the proposals cancel out)"
        self.workspace.pending.save(changeset)
        self._saved = changeset.id
        n = len(changeset.files)
        return (f"\n(pending changeset {changeset.id}: {n} file{'s' if n != 1 else ''}; the person reviews it "
                "in wikitui or with `wikitui pending`; nothing is written until they accept it)")

    # -------------------------------------------------------------- resources
    def resources(self) -> list[dict]:
        """The fixed resources: ``{"uri", "name", "description"}`` each."""
        return [
            {"uri": INDEX_URI, "name": "index.md", "description": "The wiki's catalog of pages."},
            {"uri": LOG_URI, "name": "log.md", "description": "The wiki's history of changes."},
        ]

    @staticmethod
    def resource_templates() -> list[dict]:
        """The resource templates: ``{"uri_template", "name", "description"}`` each."""
        return [{"uri_template": PAGE_TEMPLATE, "name": "page",
                 "description": "A page of the wiki (or a raw source) by its path, e.g. "
                                "wiki://page/wiki/concepts/x.md; a title or alias works too."}]

    def read_resource(self, uri: str) -> str:
        """The text of a resource.

        Raises:
            WikituiError: an unknown resource, a page that is not there, a path outside the vault,
                or a file that is not text.
        """
        with self.lock:
            self._recover()
            ws = self.workspace
            if uri == INDEX_URI:
                rel = ws.vault.index_path
            elif uri == LOG_URI:
                rel = ws.vault.log_path
            elif uri.startswith(PAGE_PREFIX):
                from wikitui.core.agent.reading import resolve_readable

                rel, _ = resolve_readable(ws.vault, ws.require_graph(), unquote(uri[len(PAGE_PREFIX):]))
            else:
                raise WikituiError(f"error: no resource {display(uri, 200)!r}; the resources are {INDEX_URI}, "
                                   f"{LOG_URI} and {PAGE_TEMPLATE}")
            return visible(_read_text(ws, rel))  # shown visibly, as the tools' text is


def _read_text(ws: Workspace, rel: str) -> str:
    from wikitui.core.agent.reading import resolve_readable
    from wikitui.core.vault.files import decode_text, is_binary

    _, absolute = resolve_readable(ws.vault, ws.require_graph(), rel)
    if absolute.stat().st_size > MAX_READ_BYTES:
        raise WikituiError(f"error: {rel} is too large to read; search it instead")
    data = absolute.read_bytes()
    if is_binary(data):
        raise WikituiError(f"error: {rel} is not text")
    return decode_text(data)[0]
