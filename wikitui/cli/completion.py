"""``wikitui completion bash|zsh|fish``: a shell completion script, from the argument parsers (shtab).

Subcommands and options come from the parsers themselves. A PAGE (``links``) is
completed with the vault's page paths, titles and aliases, and ``export``'s PAGE
with the slide decks only (pages with ``marp: true``); the script asks for them
with the hidden ``wikitui __complete pages|decks [PREFIX]`` (one name a line, from
a walk of the folder and each page's first few kilobytes: no index, no graph, so
it answers fast on a big vault). A name with spaces (``Cheshire Cat``) reaches
bash escaped (``Cheshire\\ Cat``), zsh through ``compadd`` and fish as one line.
"""

from __future__ import annotations

import argparse
import sys

from wikitui.cli.common import PROG

#: What the script runs to list page names (in the current folder's vault).
PAGES_COMMAND = f"{PROG} __complete pages"
#: What it runs to list the slide decks (``export``).
DECKS_COMMAND = f"{PROG} __complete decks"
#: The commands whose PAGE argument names a page, and what lists their names.
PAGE_COMMANDS = {"links": "pages", "export": "decks", "history": "pages", "show": "pages"}
#: A page's frontmatter is looked for in its first this many bytes.
HEAD_BYTES = 16 * 1024
#: Characters bash would read as syntax in a completed word: each gets a backslash.
_BASH_SPECIAL = set(" \t'\"\\()&;<>|$`!*?[]{}#~=,")

_BASH_PREAMBLE = """
# wikitui: page names may hold spaces; one candidate a line, escaped for bash.
_wikitui_complete_pages() { %(prog)s __complete pages --shell bash -- "$1" 2>/dev/null; }
_wikitui_complete_decks() { %(prog)s __complete decks --shell bash -- "$1" 2>/dev/null; }
""" % {"prog": PROG}
_ZSH_PREAMBLE = """
# wikitui: page names may hold spaces; compadd quotes them.
_wikitui_complete_pages() { local -a names; names=("${(@f)$(%(prog)s __complete pages 2>/dev/null)}"); compadd -a names; }
_wikitui_complete_decks() { local -a names; names=("${(@f)$(%(prog)s __complete decks 2>/dev/null)}"); compadd -a names; }
""" % {"prog": PROG}


def completion_script(shell: str) -> str:
    """The completion script for ``shell`` (bash, zsh or fish)."""
    import shtab

    from wikitui.cli.argparse_internals import arguments, subcommands
    from wikitui.cli.parser import build_parser

    parser = build_parser()
    commands = subcommands(parser)
    assert commands  # the parser has subcommands
    for name, sub in commands.items():
        for arg in arguments(sub):
            if name in PAGE_COMMANDS and arg.dest == "page":
                kind = PAGE_COMMANDS[name]
                hint = {"bash": f"_wikitui_complete_{kind}", "zsh": f"{{_wikitui_complete_{kind}}}",
                        "fish": f"({PROG} __complete {kind})"}
                setattr(arg, "complete", hint)  # shtab's documented hint: an attribute set on the action
            elif arg.dest in ("vault", "out", "keep", "dest"):
                setattr(arg, "complete", shtab.DIRECTORY if arg.dest != "out" else shtab.FILE)
    # shtab hints preamble as str, but complete() takes a {shell: preamble} dict too (it picks the shell's).
    preamble = {"bash": _BASH_PREAMBLE, "zsh": _ZSH_PREAMBLE}
    return shtab.complete(parser, shell=shell, preamble=preamble)  # type: ignore[arg-type]


def cmd_completion(args: argparse.Namespace) -> int:
    """Print the script for ``args.shell``."""
    sys.stdout.write(completion_script(args.shell))
    return 0


def _bash_word(name: str) -> str:
    return "".join("\\" + c if c in _BASH_SPECIAL else c for c in name)


def _typed(prefix: str) -> str:
    """What a bash word means, its quotes and backslashes taken off (``Cheshire\\ C`` is ``Cheshire C``)."""
    if prefix[:1] in ("'", '"'):
        return prefix[1:].rstrip(prefix[0])
    out, escaped = [], False
    for c in prefix:
        if escaped or c != "\\":
            out.append(c)
            escaped = False
        else:
            escaped = True
    return "".join(out)


def page_names(vault, decks_only: bool = False) -> list[str]:
    """Every page's path, title and aliases (each once, in the pages' order); only Marp decks if ``decks_only``."""
    from wikitui.core.vault.page import parse_page

    pages, _raws, _others = vault.scan()
    seen: set[str] = set()
    out: list[str] = []
    for fs in pages:
        try:
            with open(vault.root / fs.path, "rb") as fh:
                head = fh.read(HEAD_BYTES).decode("utf-8", "replace").lstrip("\ufeff")
        except OSError:
            continue
        info = parse_page(fs.path, head, heading_titles=bool(vault.wiki_prefix))
        if decks_only and info.meta.get("marp") is not True:
            continue
        for name in (fs.path, info.title, *info.aliases):
            if name and name not in seen and "\n" not in name:
                seen.add(name)
                out.append(name)
    return out


def cmd_complete(argv: list[str]) -> int:
    """``wikitui __complete pages|decks [--vault PATH] [--shell bash] [--] [PREFIX]``: names, one a line.

    Prints nothing (and exits 0) outside a vault: a completion must never print an error into a prompt.
    """
    if not argv or argv[0] not in ("pages", "decks"):
        return 2
    rest = argv[1:]
    options = {"--vault": ".", "--shell": ""}
    words: list[str] = []
    i = 0
    while i < len(rest):
        if rest[i] == "--":
            words.extend(rest[i + 1:])
            break
        if rest[i] in options:
            options[rest[i]] = rest[i + 1] if i + 1 < len(rest) else options[rest[i]]
            i += 2
            continue
        words.append(rest[i])
        i += 1
    bash = options["--shell"] == "bash"
    prefix = _typed(words[0]) if words and bash else (words[0] if words else "")
    from wikitui.core.vault.layout import Vault

    try:
        vault = Vault.open(options["--vault"])
        names = page_names(vault, decks_only=argv[0] == "decks")
    except Exception:
        return 0
    folded = prefix.casefold()
    out = [n for n in names if n.startswith(prefix)] or [n for n in names if n.casefold().startswith(folded)]
    if out:
        sys.stdout.write("\n".join(_bash_word(n) if bash else n for n in out) + "\n")
    return 0
