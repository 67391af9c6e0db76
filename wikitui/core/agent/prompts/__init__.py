"""The agent's prompts: the system prompt of a turn (``system``) and one module per operation's instructions.

- ``system``: role and rules, the vault's facts, WIKI.md and index.md cut to a budget;
- ``ask``: answering a question; ``ingest``: the plan and write phases; ``lint``: the
  semantic pass over the deterministic report; ``fold``: an answer folded into the pages it cites.
- ``compact``: the same in a few lines each, for a window too small for the full set
  (:class:`~wikitui.core.agent.prompts.compact.Task` carries an operation's instructions in both sizes).

An operation added later (a merge, an eval task) brings its own module here.
What it may import: the vault (files, layout); nothing that talks to a model.
"""
