"""The tool box of one agent turn: the tools' schemas, and calling one safely.

The tools themselves are registered functions (:mod:`~wikitui.core.agent.tools.registry`,
:mod:`~wikitui.core.agent.tools.read`, :mod:`~wikitui.core.agent.tools.propose`).
:meth:`ToolBox.call` never raises: an unknown tool, malformed JSON, wrong or missing
arguments, a hostile path or a refused proposal all come back as an ``error: ...``
result for the model to act on, and nothing is written (proposals only accumulate in
the turn's ChangesetBuilder).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from wikitui.core.agent.argcheck import display
from wikitui.core.agent.tools import propose, read  # noqa: F401 - importing them registers their tools
from wikitui.core.agent.tools import chart  # noqa: F401,I001 - propose_chart, registered after the others
from wikitui.core.agent.tools import merge  # noqa: F401,I001 - propose_merge, last: the tools' order is the model's
from wikitui.core.agent.tools import history  # noqa: F401,I001 - history, a read tool (listed after links)
from wikitui.core.agent.tools import research as _research  # noqa: F401,I001 - web_search, propose_sources (with a finder)
from wikitui.core.agent.tools.compact import COMPACT_TOOLS, compact_schema
from wikitui.core.agent.tools.registry import REGISTRY, describe_call, names
from wikitui.core.agent.toolschema import ToolArgError, check_arguments, function_schema, parse_arguments
from wikitui.core.base.errors import WikituiError

#: Tools that look things up.
READ_TOOLS = names("read")
#: Tools that propose changes (refused during an ingest's plan phase).
PROPOSE_TOOLS = names("propose")
#: Tools that search the web and propose sources (offered only to a box given a SourceFinder).
RESEARCH_TOOLS = names("research")


@dataclass(slots=True)
class ToolOutcome:
    """The result of one tool call.

    Attributes:
        ok: False when ``text`` is an error for the model.
        text: What the model receives.
        summary: One line for the chat.
        description: One quiet line saying what was done (``read wiki/x.md``).
        pictures: ``(label, mime type, bytes)`` for a vision model (``read`` of an image or a scanned PDF).
    """

    ok: bool
    text: str
    summary: str
    description: str
    pictures: list = field(default_factory=list)


class ToolBox:
    """The tools of one agent turn, bound to a vault.

    Args:
        vault: The vault.
        graph: Its link graph.
        search_index: A ``SearchIndex`` (None: one is opened and updated on first search).
        builder: The turn's ``ChangesetBuilder`` (None: proposals are refused).
        phase: ``"write"`` (default) or ``"plan"`` (an ingest's plan phase: proposals refused).
        max_result_chars: Results longer than this are cut with a note.
        vision: The model sees pictures: ``read`` sends an image itself rather than a description.
        compact: Offer only the compact set (read, search, propose_edit, propose_page), with
            short schemas, for a small context window (:mod:`~wikitui.core.agent.tools.compact`).
        overlay: A batch's earlier pending proposals (:class:`~wikitui.core.changes.overlay.Overlay`),
            which ``read`` and ``search`` consult before the disk (``graph`` is then its graph).
        research: The turn's :class:`~wikitui.core.research.proposals.SourceFinder`: ``web_search``
            and ``propose_sources`` are offered (None: they are not).
    """

    def __init__(self, vault, graph, search_index=None, builder=None, phase: str = "write",
                 max_result_chars: int = 24_000, vision: bool = False, compact: bool = False,
                 overlay=None, research=None) -> None:
        self.vault = vault
        self.research = research
        self.overlay = overlay
        #: Paths whose propose_page was answered with a same-subject suggestion (a second call goes through).
        self.warned: set[str] = set()
        self.vision = vision
        self.graph = graph
        self.search_index = search_index
        self.builder = builder
        self.phase = phase
        self.max_result_chars = max_result_chars
        self.compact = compact
        self._schemas = _schemas_of(type(self), compact, research is not None)

    # ---------------------------------------------------------------- schemas
    @classmethod
    def tool_schemas(cls, compact: bool = False, research: bool = False) -> list[dict]:
        """The OpenAI ``tools`` list of the full set or the compact one, before any box is made (to count it)."""
        return list(_schemas_of(cls, compact, research).values())

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
            text = REGISTRY[name].function(self, **kwargs)
            pictures: list[tuple[str, str, bytes]] = []
            if not isinstance(text, str):  # a WithPictures (the read tool's image for a vision model)
                pictures, text = text.pictures, text.text
        except (WikituiError, ToolArgError) as exc:  # ProposalError, UnsafePath, BadQuery...
            return self._error(description, display(str(exc), 2000))
        except Exception as exc:  # a bug must not end the turn: the model hears about it and moves on
            return self._error(description, f"{name} failed unexpectedly ({type(exc).__name__}: {display(exc)})")
        text = self._truncate(text)
        return ToolOutcome(True, text, text.split("\n", 1)[0][:160], description, pictures)

    def refuse(self, name: str, message: str) -> ToolOutcome:
        """The error result of a call refused before it was read (its arguments too long to keep)."""
        return self._error(describe_call(name, {}), f"{display(name, 80)}: {message}")

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

    # ---------------------------------------------------------------- helpers
    def index(self):
        """The search index (opened and brought up to date on the first search when none was given)."""
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


_SCHEMAS: dict[tuple[type, bool, bool], dict[str, dict]] = {}


def _schemas_of(cls: type, compact: bool = False, research: bool = False) -> dict[str, dict]:
    """The tools' schemas (the full set, or the compact one; with the research tools or without), built once."""
    key = (cls, compact, research)
    if key not in _SCHEMAS:
        if compact:
            schemas = {name: compact_schema(REGISTRY[name].function) for name in COMPACT_TOOLS}
        else:  # read tools first, then propose tools, each kind in the order its module declares them
            schemas = {name: function_schema(REGISTRY[name].function) for name in READ_TOOLS + PROPOSE_TOOLS}
        if research:
            schemas.update({name: function_schema(REGISTRY[name].function) for name in RESEARCH_TOOLS})
        _SCHEMAS[key] = schemas
    return _SCHEMAS[key]
