"""The agent's prompts: the system prompt of a turn (``system``) and one module per operation's instructions.

- ``system``: role and rules, the vault's facts, WIKI.md and index.md cut to a budget;
- ``ask``: answering a question; ``ingest``: the plan and write phases; ``lint``: the
  semantic pass over the deterministic report.

An operation added later (a merge, an eval task) brings its own module here.
What it may import: the vault (files, layout); nothing that talks to a model.
"""
