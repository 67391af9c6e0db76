"""Per-page policy (DESIGN §11): frontmatter ``llm: locked`` or ``llm: append``.

A page whose frontmatter says ``llm: locked`` takes no change from the agent at
all; ``llm: append`` takes only hunks that add lines (nothing removed, nothing
changed, no rename, no deletion). The policy is read from the page as it is on
disk, and checked twice: by the proposal tools (:func:`check_proposal`, through
the turn's changeset builder, which every ``propose_*`` tool goes through) and
again at apply (:func:`refusal_at_apply`), for a page locked after the proposal
or a changeset made elsewhere (MCP, a pending file written by hand).
"""

from __future__ import annotations

import re

from wikitui.core.changes.diffs import Hunk, compute_hunks
from wikitui.core.changes.model import ProposalError
from wikitui.core.vault.page import load_frontmatter, split_frontmatter
from wikitui.core.base.words import noun, plural

#: The frontmatter key and its values.
KEY = "llm"
LOCKED = "locked"
APPEND = "append"


#: A top-level ``llm: locked`` line, read even when the rest of the block is not valid YAML: a lock the
#: person wrote must not fail open because of a typo elsewhere in the frontmatter.
_PLAIN_LINE = re.compile(r"^llm:[ \t]*[\"']?(locked|append)[\"']?[ \t]*(?:#.*)?$", re.MULTILINE | re.IGNORECASE)


class PolicyRefused(ProposalError):
    """A proposal a page's ``llm:`` policy refuses; the message names the policy."""


def page_policy(text: str | None) -> str | None:
    """The page's policy, ``"locked"`` or ``"append"`` (None: no policy, no page, or unreadable frontmatter).

    Args:
        text: The page's text (a byte-order mark is allowed).
    """
    if not text:
        return None
    fm, _body, _line = split_frontmatter(text.lstrip("\ufeff"))
    if fm is None or KEY not in fm:  # cheap: most pages have no policy
        return None
    try:
        value = load_frontmatter(fm).get(KEY)
    except Exception:  # noqa: BLE001 - a block that does not parse (lint reports it): its plain line still counts
        line = _PLAIN_LINE.search(fm)
        return line.group(1).lower() if line else None
    value = str(value).strip().lower() if isinstance(value, str) else None
    return value if value in (LOCKED, APPEND) else None


def _locked_message(path: str) -> str:
    return (f"refused by policy: {path} has `llm: locked` in its frontmatter; wikitui's agent may not change it. "
            "Leave this page alone (mention what should change in your answer instead)")


def _append_message(path: str, what: str) -> str:
    return (f"refused by policy: {path} has `llm: append` in its frontmatter: only added lines are accepted, "
            f"and this proposal {what}. Propose only new lines (append, never change or remove existing ones)")


def check_proposal(path: str, base_text: str | None, new_text: str | None, *, action: str = "edit") -> None:
    """Refuse a proposal the page's policy does not allow.

    Args:
        path: The page (vault-relative), for the message.
        base_text: The page as it is on disk (None: a new page, which has no policy yet).
        new_text: What the turn proposes for it (None: a deletion).
        action: ``edit``, ``delete`` or ``move``.

    Raises:
        PolicyRefused: The page is locked, or append-only and the proposal removes,
            changes, moves or deletes something.
    """
    policy = page_policy(base_text)
    if policy is None:
        return
    if policy == LOCKED:
        raise PolicyRefused(_locked_message(path))
    if action == "move":
        raise PolicyRefused(_append_message(path, "moves the page"))
    if new_text is None:
        raise PolicyRefused(_append_message(path, "deletes the page"))
    removed = sum(h.removed for h in compute_hunks(base_text or "", new_text, 0))
    if removed:
        raise PolicyRefused(_append_message(path, f"removes or changes {plural(removed, 'existing line')}"))


def proposal_allowed(path: str, base_text: str | None, new_text: str | None, *, action: str = "edit") -> bool:
    """Whether :func:`check_proposal` lets the proposal through."""
    try:
        check_proposal(path, base_text, new_text, action=action)
    except PolicyRefused:
        return False
    return True


def hunk_allowed(policy: str | None, hunk: Hunk, action: str) -> bool:
    """Whether one hunk may be applied to a page under ``policy``."""
    if policy is None:
        return True
    if policy == LOCKED:
        return False
    return action in ("edit", "move") and hunk.kind == "text" and hunk.removed == 0


def refusal_at_apply(path: str, disk_text: str | None, hunks: list[Hunk], action: str) -> str | None:
    """Why the accepted ``hunks`` of one file may not be applied (None: they may).

    Args:
        path: The page (vault-relative).
        disk_text: The page as it is on disk now (None: absent, no policy).
        hunks: The hunks about to be applied to it.
        action: The file's action (``edit``, ``create``, ``delete``, ``move``).
    """
    policy = page_policy(disk_text)
    bad = [h.id for h in hunks if not hunk_allowed(policy, h, action)]
    if not bad:
        return None
    if policy == LOCKED:
        return (f"{path}: refused by policy `llm: locked`; nothing of this file was applied "
                f"(its {plural(len(hunks), 'hunk')} {'stays' if len(hunks) == 1 else 'stay'} pending)")
    return (f"{path}: refused by policy `llm: append`: {noun(len(bad), 'hunk')} {', '.join(bad)} "
            f"{'removes or changes' if len(bad) == 1 else 'remove or change'} lines; "
            "nothing of this file was applied (its hunks stay pending)")
