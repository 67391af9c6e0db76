"""The chat's slash commands: ``/ingest``, ``/ask``, ``/go``, ``/file``, ``/fold``, ``/lint``, ``/undo``, ``/review``, ``/model``...

:class:`SlashCommands` answers one typed command by calling its
:class:`~wikitui.ui.chat.controller.ChatController` (a turn, a note, a new session)
or the chat view (``/undo``, ``/review``). Plain text is not a command: the
controller sends it as a question.
"""

from __future__ import annotations

import asyncio
import shlex
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol

from textual.content import Content

from wikitui.core.agent.recent_models import recent_models
from wikitui.core.config.settings import load_settings

if TYPE_CHECKING:
    from wikitui.core.agent.session import AgentSession
    from wikitui.core.config.settings import Settings
    from wikitui.core.workspace import Workspace
    from wikitui.ui.chat.batch import ChatBatch
    from wikitui.ui.chat.view import ChatView
    from wikitui.ui.widgets.chat_log import ChatLog

#: The slash commands: name and a few words of help (also the completion menu's detail).
COMMANDS: list[tuple[str, str]] = [
    ("ingest", "PATH|DIR/|GLOB|--new|--resume · read a source, plan, then /go (many: a batch)"),
    ("ask", "QUESTION · answer from the wiki"),
    ("go", "[NOTE] · carry out the ingest plan"),
    ("file", "file the last answer as a page"),
    ("fold", "fold the last answer into the pages it cites"),
    ("lint", "check the wiki's health"),
    ("research", "TOPIC · web sources on a topic, to accept or reject"),
    ("undo", "revert the last applied changeset"),
    ("review", "[batch [ID]] · review the pending changeset (ctrl+r), or a batch's together"),
    ("model", "[NAME] · list the models, or use another in this session"),
    ("clear", "start a new conversation"),
    ("help", "list the commands"),
]


def unquote(arg: str) -> str:
    """A path argument, with shell-style quotes removed (for names with spaces)."""
    try:
        parts = shlex.split(arg)
    except ValueError:
        return arg
    return parts[0] if len(parts) == 1 else arg


class Chat(Protocol):
    """What the commands use of their chat (a :class:`~wikitui.ui.chat.controller.ChatController`)."""

    view: ChatView
    workspace: Workspace
    settings: Settings
    running: bool
    session: AgentSession | None
    client_factory: Callable[[Settings], Any] | None
    batch: ChatBatch

    @property
    def log(self) -> ChatLog:
        """The chat's log, where notes go."""

    async def clear(self) -> None:
        """Start a new conversation."""

    def model_turn(self, label: str, call: Callable[[AgentSession], Awaitable[Any]]) -> None:
        """Run a turn that needs the model."""

    def turn(self, label: str, call: Callable[[AgentSession], Awaitable[Any]], *, needs_model: bool) -> None:
        """Run ``call(session)`` as a turn."""

    def show_lint(self, report: Any) -> None:
        """A lint report as a note."""

    def new_session(self, *, resume: bool = False, session_id: str | None = None) -> AgentSession:
        """A new agent session for this chat."""

    def update_footer(self) -> None:
        """Redraw the line below the input."""


class SlashCommands:
    """Runs the slash commands for one chat.

    Args:
        chat: The controller whose session, log and turns the commands use.
    """

    def __init__(self, chat: Chat) -> None:
        self.chat = chat

    def run(self, name: str, arg: str) -> None:
        """Run ``/name arg`` (the name lower-cased); an unknown name gets a note listing the commands."""
        handler = getattr(self, f"cmd_{name}", None) if name.isidentifier() else None
        if handler is None:
            names = " ".join("/" + n for n, _ in COMMANDS)
            self.chat.log.add_note(f"Unknown command /{name}. The commands: {names}", "error")
            return
        handler(arg)

    def cmd_help(self, _arg: str) -> None:
        """``/help``: every command with its help."""
        lines = [Content.styled("Commands\n", "bold")]
        for name, help_text in COMMANDS:
            lines.append(Content.assemble((f"/{name:<7}", "$text-accent"), " ", help_text, "\n"))
        lines.append(Content.styled("Plain text asks a question (or steers a waiting ingest plan). "
                                    "[[ completes page titles; esc cancels a running turn.", "$text-muted"))
        self.chat.log.add_note(Content.assemble(*lines), "plan")

    def cmd_ask(self, arg: str) -> None:
        """``/ask QUESTION``."""
        if not arg:
            self.chat.log.add_note("/ask needs a question: /ask Why is the Hatter mad?", "error")
            return
        self.chat.model_turn("ask", lambda s: s.ask(arg))

    def cmd_ingest(self, arg: str) -> None:
        """``/ingest PATH``: the plan first; a folder, a glob, ``--new`` or ``--resume``: a batch (its pre-flight)."""
        if not arg:
            self.chat.log.add_note("/ingest needs a source: /ingest raw/chapter-01.md (tab completes)", "error")
            return
        from wikitui.ui.chat.batch import batch_request

        many = batch_request(arg)
        if many is not None:
            argument, new, resume = many
            self.chat.batch.prepare(argument if argument is None else unquote(argument), new=new, resume=resume)
            return
        path = unquote(arg)
        self.chat.model_turn("ingest", lambda s: s.ingest(path, typed=f"/ingest {arg}"))

    def cmd_go(self, arg: str) -> None:
        """``/go [NOTE]``: carry out the ingest plan, or start the batch whose pre-flight waits."""
        if self.chat.batch.waiting is not None:
            self.chat.batch.go()
            return
        self.chat.model_turn("go", lambda s: s.go(arg or None))

    def cmd_file(self, _arg: str) -> None:
        """``/file``: propose the last answer as a page."""
        self.chat.turn("file", lambda s: s.file_answer(), needs_model=False)

    def cmd_fold(self, _arg: str) -> None:
        """``/fold``: the agent proposes the edits that bring the last answer into the pages it cites."""
        self.chat.model_turn("fold", lambda s: s.fold_answer())

    def cmd_lint(self, _arg: str) -> None:
        """``/lint``: the deterministic checks, then (with a model) the agent's pass."""
        if not self.chat.settings.model:
            self.chat.turn("lint", self._lint_without_model, needs_model=False)
            return
        from wikitui.core.research.provider import NO_PROVIDER, provider_from

        if provider_from(self.chat.settings.research) is None:  # its "sources worth looking for" stay a list
            self.chat.log.add_note(f"To look for the sources the report names on the web: {NO_PROVIDER}.")
        self.chat.model_turn("lint", lambda s: s.lint())

    async def _lint_without_model(self, _session: AgentSession) -> None:
        from wikitui.core.vault.lint import run_lint

        workspace = self.chat.workspace
        assert workspace.graph is not None  # a turn starts once the graph is loaded (ChatController._run)
        report = await asyncio.to_thread(run_lint, workspace.vault, workspace.graph)
        self.chat.show_lint(report)
        self.chat.log.add_note("Configure a model for the agent's pass (contradictions, missing pages).")

    def cmd_research(self, arg: str) -> None:
        """``/research TOPIC``: the agent searches the web and proposes URLs; alone: review the pending ones."""
        from wikitui.core.research.provider import NO_PROVIDER, provider_from

        if not arg.strip():
            self.chat.view.review_sources()
            return
        if provider_from(self.chat.settings.research) is None:
            self.chat.log.add_note(NO_PROVIDER[:1].upper() + NO_PROVIDER[1:] + ".", "error")
            return
        self.chat.model_turn("research", lambda s: s.research(arg, typed=f"/research {arg}"))

    def cmd_undo(self, _arg: str) -> None:
        """``/undo``: revert the last applied changeset."""
        self.chat.view.run_undo()

    def cmd_review(self, arg: str) -> None:
        """``/review``: as ctrl+r; ``/review batch [ID]``: the batch review (the newest batch, or ID)."""
        words = arg.split()
        if words[:1] == ["batch"]:
            self.chat.view.review_batch(words[1] if len(words) > 1 else None)
            return
        self.chat.view.action_review()

    def cmd_model(self, arg: str) -> None:
        """``/model [NAME]``: list the model in use, the configured one and those used lately, or switch."""
        chat = self.chat
        if not arg:
            chat.log.add_note(self._model_listing())
            return
        if chat.running:
            chat.log.add_note("Wait for the turn to end (or esc) before switching models.", "error")
            return
        settings = chat.settings
        settings.sources["model"] = "/model"
        if chat.session is not None and chat.client_factory is None:
            chat.session.set_model(arg)  # same conversation and session totals, new client
        else:
            settings.model = arg
            old = chat.session
            chat.session = chat.new_session(session_id=old.id if old is not None else None)
        chat.log.add_note(f"Model for this session: {arg}", "success")
        chat.update_footer()

    def _model_listing(self) -> str:
        """The model in use, the configured one (config files and environment) and the vault's recent ones."""
        settings = self.chat.settings
        vault = self.chat.workspace.vault
        configured = load_settings(vault)

        def named(model: str | None, where: str) -> str:
            return f"{model} (from {where})" if model and where else (model or "none")

        lines = [f"Model: {named(settings.model, settings.sources.get('model', ''))}"]
        if configured.model != settings.model or settings.sources.get("model") == "/model":
            lines.append(f"Configured: {named(configured.model, configured.sources.get('model', ''))}")
        recent = recent_models(vault)
        if recent:
            lines.append("Used lately in this vault:")
            lines += [f"  {m}" for m in recent]
        lines.append("/model provider/name switches for this session.")
        return "\n".join(lines)

    def cmd_clear(self, _arg: str) -> None:
        """``/clear``: a new conversation (the wiki and the pending changesets stay)."""
        if self.chat.running:
            self.chat.log.add_note("Wait for the turn to end (or esc) before clearing.", "error")
            return
        self.chat.view.run_worker(self.chat.clear(), group="chat-clear", exclusive=True)
