"""The screens of the wikitui workspace, each with a sibling .tcss.

The workspace screen (``main.py``) owns its :class:`~wikitui.ui.screens.panes.Panes`
and :class:`~wikitui.ui.screens.navigation.Navigator`; the other screens (search,
review, help, outline, dialogs) are pushed over it. Screens may import widgets,
never the app.
"""
