"""``wikitui eval``: which model can keep this wiki? (DESIGN §12).

A fixed set of tasks (ingest, ask, lint, safety, economy) runs through the real
agent loop on a temporary copy of the built-in sample vault, with problems planted
in that copy, and another (world, evidence, long-source) on a copy of an invented
world whose facts only its sources hold; each task is scored by deterministic checks
on the changeset, the answer, the tool calls and the disk, never by a model. One
module per job:

* :mod:`.sample`: where the built-in vaults are (package data or a checkout);
* :mod:`.planted` and :mod:`.fixture`: the planted problems and sources, and the copies;
* :mod:`.world`: the invented world's planted facts and its generated long source;
* :mod:`.outcome`: what a task's run left behind (answer, tool calls, changeset, disk);
* :mod:`.checks`: the deterministic checks;
* :mod:`.tasks`: the task catalogue;
* :mod:`.runner`: running the tasks with a time limit each;
* :mod:`.report`: the table, the score and the JSON;
* :mod:`.command`: ``wikitui eval`` itself (exit status, progress on stderr).
"""
