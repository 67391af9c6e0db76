"""The agent's tools (DESIGN §4): read-only lookups and ``propose_*`` changes, behind one tool box.

- ``registry``: how a tool is declared (a documented function under ``@tool``) and
  described in the chat; adding a tool is writing one function;
- ``read``: ``search``, ``read``, ``list_pages``, ``links``;
- ``propose``: ``propose_edit``, ``propose_page``, ``propose_delete``, ``propose_move``;
- ``chart``: ``propose_chart`` (a spec drawn into a picture and its sidecar, DESIGN §9);
- ``merge``: ``propose_merge`` (two pages about one thing become one, links rewritten);
- ``history``: ``history`` (a page's versions and the log entries naming it; read-only);
- ``compact``: the four tools of a small window (read, search, propose_edit, propose_page)
  with one-line schemas;
- ``toolbox``: :class:`~wikitui.core.agent.tools.toolbox.ToolBox`, the tools of one
  turn bound to the vault, which turns any call (hostile ones included) into a
  result and never raises or writes.

What it may import: the vault, the changes (a turn's changeset builder), the search
facade, the outputs (charts), the agent's argument checks; never litellm or the UI.
"""

from wikitui.core.agent.tools.registry import describe_call
from wikitui.core.agent.tools.toolbox import PROPOSE_TOOLS, READ_TOOLS, ToolBox, ToolOutcome

__all__ = ["PROPOSE_TOOLS", "READ_TOOLS", "ToolBox", "ToolOutcome", "describe_call"]
