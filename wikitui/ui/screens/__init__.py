"""The screens of the wikitui workspace, each with a sibling .tcss."""
