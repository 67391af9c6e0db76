"""The one small error hierarchy of wikitui.

A :class:`WikituiError` is a *user* error: its message is one clear line that the
command line prints on stderr (never with a traceback) and the UI shows as a notice.
Each subclass carries the exit status DESIGN §6 assigns to it.
"""

from __future__ import annotations


class WikituiError(Exception):
    """Base of every error wikitui reports to a person."""

    exit_code: int = 2


class NotAVault(WikituiError):
    """The folder holds none of ``wiki/``, ``WIKI.md``, ``.wikitui/`` or ``.obsidian/``."""


class UnknownPage(WikituiError):
    """A path, title or alias named no page of the vault."""


class BadQuery(WikituiError):
    """A search query that could not be parsed."""


class ReadOnlyVault(WikituiError):
    """The vault (or its ``.wikitui/``) cannot be written: it is read, searched and shown, never changed."""


class UnsafePath(WikituiError):
    """A write outside the vault's writable area (raw/, ``..``, absolute, symlink escape)."""


class ModelError(WikituiError):
    """The model or the network failed (auth, rate limit, timeout, bad answer)."""

    exit_code = 3


class ConfigError(WikituiError):
    """A configuration problem, such as no model configured."""

    exit_code = 2


class Conflict(WikituiError):
    """A changeset cannot be applied because a file changed in a way that does not merge."""

    exit_code = 4
