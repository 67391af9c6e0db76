"""Grouping a diff's opcodes into hunks, one change optionally kept in a hunk of its own.

difflib's own grouping, over a list of opcodes we may have split first: the
``updated:`` date wikitui proposes with an edit is one line the user decides
apart from the agent's changes around it (:mod:`wikitui.core.changes.updated`).
"""

from __future__ import annotations

import difflib


def groups(codes: list[tuple[str, int, int, int, int]], n: int) -> list[list[tuple[str, int, int, int, int]]]:
    """Opcodes grouped into hunks with ``n`` lines of context, as difflib's ``get_grouped_opcodes`` does."""
    if not codes:
        return []
    codes = list(codes)
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    groups: list[list[tuple[str, int, int, int, int]]] = []
    group: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return [g for g in groups if any(op[0] != "equal" for op in g)]


def _part(i1: int, i2: int, j1: int, j2: int) -> list[tuple[str, int, int, int, int]]:
    if i1 == i2 and j1 == j2:
        return []
    tag = "insert" if i1 == i2 else "delete" if j1 == j2 else "replace"
    return [(tag, i1, i2, j1, j2)]


def _own_codes(a: list[str], b: list[str], own: tuple[int, int]) -> tuple[list, int] | None:
    """Opcodes of ``a`` → ``b`` in which new line ``own[1]`` replaces one old line on its own.

    ``b`` without that change is ``b`` with the old line ``own[0]`` back: diffing
    that aligns the line with itself, so splitting it out cannot fail on how
    difflib happens to pair equal lines. Returns (opcodes, index of the own
    replacement), or None when the line is not one the rest of the change left alone.
    """
    u, v = own
    if not (0 <= u < len(a) and 0 <= v < len(b)) or a[u] == b[v]:
        return None
    before = b[:v] + [a[u]] + b[v + 1:]
    codes = difflib.SequenceMatcher(None, a, before, autojunk=False).get_opcodes()
    for k, (tag, i1, i2, j1, j2) in enumerate(codes):
        if tag == "equal" and j1 <= v < j2:
            x = i1 + v - j1  # the old line it aligns with (an equal twin of own[0], or itself)
            split = [("equal", i1, x, j1, v)] if x > i1 else []
            at = k + len(split)
            split.append(("replace", x, x + 1, v, v + 1))
            if x + 1 < i2:
                split.append(("equal", x + 1, i2, v + 1, j2))
            return codes[:k] + split + codes[k + 1:], at
    return None


def groups_with_own(a: list[str], b: list[str], n: int, own: tuple[int, int]) -> list[list] | None:
    """Like :func:`_groups`, with new line ``own[1]`` (replacing old line ``own[0]``) a hunk of its own.

    Its context is the unchanged lines around it (up to ``n``); its neighbours'
    context stops where it starts, so no two hunks cover the same old line.
    """
    found = _own_codes(a, b, own)
    if found is None:
        return None
    codes, k = found
    _tag, u, _u1, v, _v1 = codes[k]
    before = codes[k - 1] if k and codes[k - 1][0] == "equal" else None
    after = codes[k + 1] if k + 1 < len(codes) and codes[k + 1][0] == "equal" else None
    lead = min(n, (before[2] - before[1]) // 2 if k >= 2 else before[2] - before[1]) if before else 0
    trail = min(n, (after[2] - after[1]) // 2 if k + 2 < len(codes) else after[2] - after[1]) if after else 0
    lo, hi = u - lead, u + 1 + trail
    own_group = [op for op in ([("equal", lo, u, v - lead, v)] if lead else [])]
    own_group.append(("replace", u, u + 1, v, v + 1))
    if trail:
        own_group.append(("equal", u + 1, hi, v + 1, v + 1 + trail))
    pre, post = codes[:k], codes[k + 1:]
    if lead:  # the equal lines just before it are its context now
        t, a1, _a2, b1, _b2 = pre[-1]
        pre = pre[:-1] + ([(t, a1, lo, b1, b1 + lo - a1)] if a1 < lo else [])
    if trail:
        t, _a1, a2, _b1, b2 = post[0]
        post = ([(t, hi, a2, b2 - (a2 - hi), b2)] if hi < a2 else []) + post[1:]
    return groups(pre, n) + [own_group] + groups(post, n)
