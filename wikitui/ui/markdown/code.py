"""Code highlighting for the page pane: pygments tokens turned into theme roles.

Pygments gives each piece of code a token type; the page widget colours code through
theme roles ("code-keyword", "code-string", ...) so every theme colours code too. Lexers
are looked up once per name and cached (a lookup costs milliseconds, a page may hold
hundreds of fences).
"""

from __future__ import annotations

import re
from functools import lru_cache

from pygments.lexer import Lexer
from pygments.token import Comment, Generic, Keyword, Name, Number, Operator, String, Token, _TokenType

from wikitui.ui.markdown.line import Seg

#: Token types (and their subtypes) and the role each is painted with; first match wins.
_ROLES: tuple[tuple[_TokenType, str], ...] = (
    (Comment, "code-comment"),
    (Keyword, "code-keyword"),
    (Name.Builtin, "code-builtin"),
    (Name.Function, "code-function"),
    (Name.Class, "code-function"),
    (Name.Decorator, "code-function"),
    (Name.Tag, "code-tag"),
    (Name.Attribute, "code-attribute"),
    (Name.Constant, "code-number"),
    (String, "code-string"),
    (Number, "code-number"),
    (Operator.Word, "code-keyword"),
    (Operator, "code-operator"),
    (Generic.Inserted, "code-inserted"),
    (Generic.Deleted, "code-deleted"),
    (Generic.Heading, "code-heading"),
    (Generic.Subheading, "code-heading"),
    (Token.Literal, "code-string"),
)
_INFO_WORD = re.compile(r"[{.]?([\w+#.-]+)")


@lru_cache(maxsize=512)
def token_role(ttype: _TokenType) -> str:
    """The theme role of a pygments token type ("" for plain text)."""
    for base, role in _ROLES:
        if ttype in base:
            return role
    return ""


@lru_cache(maxsize=256)
def get_lexer(name: str) -> Lexer | None:
    """A cached pygments lexer for a fence info string or lexer name; None when unknown."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    m = _INFO_WORD.match(name.strip())
    if not m:
        return None
    try:
        return get_lexer_by_name(m.group(1).lower(), stripnl=False, ensurenl=True)
    except ClassNotFound:
        return None


def highlight(code: str, language: str | None) -> list[list[Seg]]:
    """Split ``code`` into rows of ``(text, role, None)`` pieces, highlighted when the language is known.

    Args:
        code: The code (tabs are expanded to 4 columns).
        language: A fence info string or pygments lexer name; plain text when None or unknown.
    """
    code = code.expandtabs(4)
    lines = code.split("\n")
    if code.endswith("\n"):
        lines.pop()
    lexer = get_lexer(language) if language else None
    if lexer is None:
        return [[(line, "", None)] if line else [] for line in lines]
    rows: list[list[Seg]] = [[]]
    for ttype, value in lexer.get_tokens(code):
        role = token_role(ttype)
        if "\n" not in value:
            if value:
                rows[-1].append((value, role, None))
            continue
        for i, part in enumerate(value.split("\n")):
            if i:
                rows.append([])
            if part:
                rows[-1].append((part, role, None))
    del rows[len(lines) :]
    while len(rows) < len(lines):
        rows.append([])
    return rows
