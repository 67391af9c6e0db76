"""The Textual user interface of wikitui (the only package that imports Textual).

What it owns: ``app.py`` (the app: one :class:`~wikitui.core.workspace.Workspace`
and the workers that keep it current), ``screens/``, ``widgets/``, ``chat/`` (the
agent's chat apart from its widgets), the page renderer, themes and the command
palette. What it may import: the core (through the workspace and the modules it
hands out), Textual and Rich. Layers inside: the app → screens → widgets; widgets
never import screens or the app (a contract), and get what they show explicitly.
"""
