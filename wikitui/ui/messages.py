"""App-wide messages: requests that cross from one pane to another.

Messages a single widget emits are nested on that widget (``PageTree.PageSelected``);
these are the ones any part of the workspace may post and the app or the agent pane
handles.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class OpenRequested(Message):
    """Open a page or raw source in the page pane (and focus it).

    Attributes:
        path: Vault-relative path.
        anchor: Heading or ``^block`` to scroll to ("" for the top).
        line: 1-based line to bring into view (a search hit, a backlink).
    """

    path: str
    anchor: str = ""
    line: int | None = None


@dataclass
class IngestRequested(Message):
    """The reader asked the agent to ingest a raw source.

    Attributes:
        path: Vault-relative path of the source (under raw/).
    """

    path: str


@dataclass
class AskAgentRequested(Message):
    """The reader asked the agent to do something, such as write a missing page.

    Attributes:
        prompt: What to ask, as the reader would type it in the chat.
    """

    prompt: str


@dataclass
class IndexProgress(Message):
    """Progress of the background search indexing.

    Attributes:
        done: Files indexed so far.
        total: Files to index (0 while counting).
        finished: True once the index is up to date (or gave up).
        error: One line when indexing failed.
    """

    done: int
    total: int
    finished: bool = False
    error: str = ""


@dataclass
class VaultChanged(Message):
    """Files changed on disk and the graph and index have caught up.

    Attributes:
        paths: Vault-relative paths that changed (created, modified or deleted).
    """

    paths: set[str]
