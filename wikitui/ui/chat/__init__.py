"""The chat with the agent, apart from its widgets: running turns, slash commands, and what notes say.

- ``controller``: :class:`~wikitui.ui.chat.controller.ChatController` turns what the
  user sends into calls on an :class:`~wikitui.core.agent.session.AgentSession`,
  runs each turn in a worker, and turns the session's events into the chat's
  widgets; it knows the chat pane only as a :class:`~wikitui.ui.chat.view.ChatView`;
- ``slash``: the slash commands (``/ingest``, ``/ask``, ``/model``...), given the controller as a ``Chat``;
- ``view``: ``ChatView``, what the controller and the commands need of the chat pane;
- ``notes``: pure formatting of what the chat shows (errors with hints, notices,
  lint reports, applies, undos, conflicts), as Textual ``Content``.

What it may import: the core, Textual, and the chat's widgets
(``wikitui.ui.widgets.chat_*``). Never the screens or the app; the pane
(``widgets/chat_pane.py``) imports the controller, not the other way round.
"""
