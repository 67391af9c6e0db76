"""The ``wikitui`` command line (DESIGN §6).

``wikitui [PATH]`` opens the TUI; the subcommands (``init``, ``search``, ``links``,
``lint``, ``index``, ``ask``, ``ingest``, ``clip``, ``export``) work headless and print machine-readable
JSON on request. A user error is one line on stderr, ``wikitui: error: ...``, with
the exit status DESIGN §6 assigns (2 user error, 3 model, 4 conflict), never a
traceback.

Start-up time matters (``wikitui search`` is scripted by other tools), so this
module imports only the standard library at the top; each command imports the
core modules it needs, and the UI, Whoosh and litellm only load when used.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from wikitui import __version__

# Not typing.TYPE_CHECKING: importing typing costs every command ~3 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import NoReturn

    from wikitui.core.vault.graph import LinkGraph
    from wikitui.core.vault.layout import Vault

PROG = "wikitui"
COMMANDS = ("init", "search", "links", "lint", "index", "ask", "ingest", "clip", "export")
#: Options that take a value: their value is not a command name or a PATH.
_VALUE_OPTIONS = ("--vault", "--model")

EPILOG = """\
Run `wikitui [PATH]` to open the workspace on the vault at PATH (default: the current folder).
Exit status: 0 success, 1 problems found or nothing applied, 2 user error, 3 model or network failure,
4 conflict."""


class _UsageError(Exception):
    """An argument error; reported as one line and exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr, not usage plus message."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{message} (see `{self.prog} --help`)")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def _common(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    """Add ``--vault`` (every command) to ``parser``.

    Subparsers use SUPPRESS defaults so an option given before the subcommand is
    not reset by the subparser's own default.
    """
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--vault", metavar="PATH", default=default, help="the vault folder (default: the current folder)"
    )


def _model_option(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument("--model", metavar="MODEL", default=default, help="the litellm model name for the agent")


#: Each command's line in ``wikitui --help`` and the description its own ``--help`` opens with.
_COMMAND_HELP = {
    "init": ("create a vault layout", "Create raw/, wiki/, WIKI.md and .wikitui/ without overwriting anything."),
    "search": ("full-text search of pages and sources", None),
    "links": ("outgoing links, backlinks and unlinked mentions of a page", None),
    "lint": ("deterministic checks; exit status 1 when problems are found", None),
    "index": ("bring the search index up to date", None),
    "ask": ("ask the wiki a question (headless)", None),
    "ingest": ("ingest a raw source (headless); prints the diffs", None),
    "clip": ("a web page or a document into raw/", "Fetch a web page's article (or copy a document) into raw/; "
             "never overwrites: a taken name gets a number. Prints the new file's path."),
    "export": ("a Marp page as slides (html, pdf, pptx)", "Export a `marp: true` page with marp-cli when it is "
               "installed, else as a self-contained HTML deck. Prints the file's path."),
}


def _define_command(name: str, p: argparse.ArgumentParser) -> None:
    """Add command ``name``'s arguments to its parser."""
    if name == "init":
        p.add_argument("path", nargs="?", metavar="PATH", help="the folder (default: --vault or the current folder)")
    elif name == "search":
        p.add_argument("query", metavar="QUERY",
                       help='words, "phrases", prefix*, fuzzy~, tag:x, type:concept, kind:raw')
        p.add_argument("--json", action="store_true", help="print a JSON array of hits")
        p.add_argument("--limit", type=_positive_int, default=10, metavar="N", help="at most N hits (default 10)")
        p.add_argument("--scope", choices=("wiki", "raw", "all"), default="all", help="what to search (default all)")
    elif name in ("links", "lint"):
        if name == "links":
            p.add_argument("page", metavar="PAGE", help="a page's path, title or alias")
        p.add_argument("--json", action="store_true", help="print JSON")
    elif name == "index":
        p.add_argument("--rebuild", action="store_true", help="rebuild the index from scratch")
    elif name == "ask":
        p.add_argument("question", metavar="QUESTION")
        p.add_argument("--file", action="store_true", help="propose the answer as a page (the changeset stays pending)")
    elif name == "ingest":
        p.add_argument("source", metavar="SOURCE", help="a file under raw/")
        p.add_argument("--apply", action="store_true", help="accept every proposed change")
    elif name == "clip":
        p.add_argument("source", metavar="URL|FILE", help="an http(s) address or a local document")
        p.add_argument("--name", metavar="N", help="the new file's name (default: the title or the file's name)")
    elif name == "export":
        p.add_argument("page", metavar="PAGE", help="a Marp page's path, title or alias")
        p.add_argument("--format", choices=("html", "pdf", "pptx"), default="html", help="default html")
        p.add_argument("--out", metavar="FILE", help="default: <page-stem>.<format> in the current folder")
    _common(p, suppress=True)
    if name in ("ask", "ingest"):
        _model_option(p, suppress=True)


def _command_parser(name: str) -> argparse.ArgumentParser:
    """The parser of one command alone: what ``wikitui NAME ...`` needs, without building the other six.

    (Building every subcommand's parser costs ~8 ms, more than a tenth of a search.)
    """
    parser = _Parser(prog=f"{PROG} {name}", description=_COMMAND_HELP[name][1])
    _define_command(name, parser)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The parser of the subcommands (``wikitui [PATH]`` is parsed by :func:`_launch_parser`)."""
    parser = _Parser(
        prog=PROG,
        usage="wikitui [PATH] | wikitui COMMAND [options]",
        description="A terminal workspace for an LLM-maintained markdown wiki.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    _common(parser, suppress=False)
    _model_option(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        summary, description = _COMMAND_HELP[name]
        _define_command(name, sub.add_parser(name, prog=f"{PROG} {name}", help=summary, description=description))
    return parser


def _launch_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, usage="wikitui [PATH] [--vault PATH] [--model MODEL]", add_help=False)
    parser.add_argument("path", nargs="?", metavar="PATH")
    _common(parser, suppress=False)
    _model_option(parser, suppress=False)
    return parser


def _first_positional(argv: Sequence[str]) -> str | None:
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "--":
            return None
        if arg in _VALUE_OPTIONS:
            skip = True
            continue
        if not arg.startswith("-"):
            return arg
    return None


# ------------------------------------------------------------------ helpers
def _err(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr)


def _vault_arg(args: argparse.Namespace) -> Path:
    return Path(getattr(args, "vault", None) or os.getcwd())


def _open(args: argparse.Namespace) -> "Vault":
    from wikitui.core.vault.layout import Vault

    return Vault.open(_vault_arg(args))


def _graph(vault: "Vault") -> "LinkGraph":
    from wikitui.core.vault.graph import LinkGraph

    return LinkGraph.load(vault)


def _dump(data: object) -> None:
    import json

    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


# ----------------------------------------------------------------- commands
def cmd_init(args: argparse.Namespace) -> int:
    """``wikitui init [PATH]``."""
    from wikitui.core.vault.create import init_vault

    target = Path(args.path) if args.path else _vault_arg(args)
    if target.exists() and not target.is_dir():
        _err(f"{target} is a file, not a folder")
        return 2
    created = init_vault(target)
    root = target.resolve()
    if not created:
        print(f"{root} is already a wikitui vault; nothing to do.")
        return 0
    for path in created:
        rel = os.path.relpath(path, root)
        print(f"created {rel}{'/' if path.is_dir() else ''}" if rel != "." else f"created {root}/")
    print(f"Initialised a wikitui vault in {root}. Put sources in raw/ and run `wikitui` there.")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    """``wikitui search QUERY``: update the index incrementally, then search it."""
    import gc

    from wikitui.core.search.facade import SearchIndex

    # Importing Whoosh and reading its tables allocates enough to set off a dozen
    # collections that find nothing to free (~7 ms of a 120 ms run). Even a first
    # build of a 10,000-page index peaks no higher without them.
    paused = gc.isenabled()
    gc.disable()
    try:
        vault = _open(args)
        with SearchIndex(vault) as index:
            stats = index.update()
            hits = index.search(args.query, scope=args.scope, limit=args.limit)
    finally:
        if paused:
            gc.enable()
    notes = list(hits.notes)
    if stats.busy and not notes:
        notes.append("another wikitui process is updating the search index; results may miss its latest changes")
    for note in notes:  # on stderr, so --json output stays one JSON document
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        _dump([
            {"path": h.path, "kind": h.kind, "title": h.title, "score": float(h.score), "snippet": h.snippet}
            for h in hits
        ])
        return 0
    if not hits:
        print(f"No matches for {args.query!r}.", file=sys.stderr)
        return 0
    blocks = []
    for h in hits:
        where = f"{h.path}:{h.line}" if getattr(h, "line", None) else h.path
        block = f"{where}  ({h.kind}, score {h.score:.2f})\n  {h.title}"
        if h.snippet:
            block += "\n  " + " ".join(h.snippet.split())
        blocks.append(block)
    print("\n\n".join(blocks))
    return 0


def _find_page(graph: "LinkGraph", name: str) -> str:
    from wikitui.core.errors import UnknownPage

    path = graph.find_page(name)
    if path is None:
        raise UnknownPage(f"no page named {name!r} (give a path, a title or an alias)")
    return path


def cmd_links(args: argparse.Namespace) -> int:
    """``wikitui links PAGE``: outgoing links, backlinks and unlinked mentions."""
    vault = _open(args)
    graph = _graph(vault)
    path = _find_page(graph, args.page)
    # One row per link or mention and line: rows that would repeat the same line and
    # context (450,000 links on one 5 MB line) are listed once.
    outgoing = list(dict.fromkeys(
        (link.target + (f"#{link.anchor}" if link.anchor else ""), target, link.line)
        for link, target in graph.outgoing(path)
    ))
    backlinks = list(dict.fromkeys((b.source, b.link.line, b.link.context) for b in graph.backlinks(path)))
    unlinked = [(m.path, m.line, m.context) for m in graph.unlinked_mentions(path)]
    if args.json:
        from wikitui.core.jsonstream import write_json

        write_json(sys.stdout, {
            "path": path,
            "outgoing": ({"target": t, "path": p, "line": n} for t, p, n in outgoing),
            "backlinks": ({"path": p, "line": n, "context": c} for p, n, c in backlinks),
            "unlinked": ({"path": p, "line": n, "context": c} for p, n, c in unlinked),
        })
        return 0
    print(f"{path} — {graph.pages[path].title}")
    print(f"\nOutgoing ({len(outgoing)})")
    for target, resolved, line in outgoing:
        print(f"  {line:>4}  {target} → {resolved or 'unresolved'}")
    for label, rows in (("Backlinks", backlinks), ("Unlinked mentions", unlinked)):
        print(f"\n{label} ({len(rows)})")
        for source, line, context in rows:
            print(f"  {source}:{line}  {context}")
    return 0


def cmd_lint(args: argparse.Namespace) -> int:
    """``wikitui lint``: exit status 1 when any problem is found."""
    from wikitui.core.vault.lint import run_lint

    vault = _open(args)
    report = run_lint(vault, _graph(vault))
    if args.json:
        from wikitui.core.jsonstream import write_json

        write_json(sys.stdout, {"problems": (p.to_dict() for p in report.problems), "counts": report.counts})
    else:
        for p in report.problems:
            where = f"{p.path}:{p.line}" if p.line else p.path
            print(f"{where}: {p.check}: {p.message}")
        total = len(report.problems)
        summary = ", ".join(f"{n} {check}" for check, n in report.counts.items() if n)
        print(f"{total} problem{'s' if total != 1 else ''}" + (f" ({summary})" if summary else ""), file=sys.stderr)
    return 1 if report.problems else 0


def cmd_index(args: argparse.Namespace) -> int:
    """``wikitui index [--rebuild]``: bring the search index up to date."""
    from wikitui.core.search.facade import SearchIndex

    vault = _open(args)
    progress = _progress_printer() if sys.stderr.isatty() else None
    with SearchIndex(vault) as index:
        stats = index.rebuild(progress=progress) if args.rebuild else index.update(progress=progress)
    if progress is not None:
        sys.stderr.write("\r\033[K")
    if stats.busy:
        _err("another wikitui is writing the search index; try again when it has finished")
        return 1
    print(_describe_stats(stats, rebuilt=args.rebuild))
    return 0


def _progress_printer() -> Callable[[int, int], None]:
    def progress(done: int, total: int) -> None:
        sys.stderr.write(f"\rindexing {done}/{total}")
        sys.stderr.flush()

    return progress


def _describe_stats(stats: object, *, rebuilt: bool) -> str:
    """One line about an index update (fields of :class:`wikitui.core.search.facade.UpdateStats`)."""
    counts = ", ".join(f"{getattr(stats, name, 0)} {name}" for name in ("added", "updated", "removed"))
    if getattr(stats, "unchanged", 0):
        counts += f"; {stats.unchanged} touched but unchanged"
    head = "Search index rebuilt" if rebuilt or getattr(stats, "rebuilt", False) else "Search index up to date"
    return f"{head}: {getattr(stats, 'total', 0)} files ({counts}) in {getattr(stats, 'seconds', 0.0):.2f} s"


def _headless():
    """The agent's headless entry points (imported only by ``ask`` and ``ingest``)."""
    try:
        from wikitui.core.agent import headless
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("wikitui"):
            from wikitui.core.errors import WikituiError

            raise WikituiError("the agent is not available in this installation of wikitui") from None
        raise
    return headless


def cmd_ask(args: argparse.Namespace) -> int:
    """``wikitui ask QUESTION [--file]``: headless query through the agent."""
    root = _open(args).root  # a bad vault is reported here, before the agent loads
    return int(_headless().run_ask(root, args.question, file=args.file, model=getattr(args, "model", None)))


def cmd_ingest(args: argparse.Namespace) -> int:
    """``wikitui ingest raw/x [--apply]``: headless ingest; prints the diffs."""
    root = _open(args).root
    return int(_headless().run_ingest(root, args.source, apply=args.apply, model=getattr(args, "model", None)))


def cmd_clip(args: argparse.Namespace) -> int:
    """``wikitui clip URL|FILE [--name N]``: the one command that adds files to raw/."""
    from wikitui.core.vault.formats import clip

    vault = _open(args)
    if "://" in args.source:
        result = clip.clip_url(vault, args.source, name=args.name)
    else:
        result = clip.clip_file(vault, Path(args.source), name=args.name)
    print(result.path)
    if result.title:
        print(f"Clipped \"{result.title}\" from {result.source}", file=sys.stderr)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """``wikitui export PAGE [--format F] [--out FILE]``: a Marp deck as slides."""
    from wikitui.core.outputs.export import export_page

    vault = _open(args)
    result = export_page(vault, _find_page(_graph(vault), args.page), args.format, args.out)
    print(result.path)
    return 0


def cmd_launch(args: argparse.Namespace) -> int:
    """``wikitui [PATH]``: open the TUI, offering to initialise a folder that is not a vault."""
    from wikitui.core.vault.layout import Vault

    target = Path(args.path or args.vault or os.getcwd()).expanduser()
    if not target.is_dir():
        _err(f"no such folder: {target}")
        return 2
    if not Vault.is_vault(target):
        if not sys.stdin.isatty():
            _err(f"{target} is not a wikitui vault; run `wikitui init {target}` to create one")
            return 2
        try:
            answer = input(f"Initialise a wikitui vault in {target.resolve()}? [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing written.", file=sys.stderr)
            return 1
        from wikitui.core.vault.create import init_vault

        init_vault(target)
    if args.model:
        # The agent's model resolution reads --model through WIKITUI_MODEL (it comes first).
        os.environ["WIKITUI_MODEL"] = args.model
    from wikitui.ui.app import run_app

    result = run_app(target.resolve())
    return result if isinstance(result, int) else 0


HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "init": cmd_init,
    "search": cmd_search,
    "links": cmd_links,
    "lint": cmd_lint,
    "index": cmd_index,
    "ask": cmd_ask,
    "ingest": cmd_ingest,
    "clip": cmd_clip,
    "export": cmd_export,
}


def _run(argv: list[str]) -> int:
    first = _first_positional(argv)
    if first is not None and first not in COMMANDS and not Path(first).expanduser().exists() and "/" not in first:
        raise _UsageError(f"no such command or folder: {first!r} (commands: {', '.join(COMMANDS)})")
    if argv and argv[0] in COMMANDS:  # `wikitui search ...`: only that command's parser is needed
        args = _command_parser(argv[0]).parse_args(argv[1:])
        args.command = argv[0]
        return HANDLERS[args.command](args)
    if first in COMMANDS or first is None and any(a in ("-h", "--help", "--version") for a in argv):
        args = build_parser().parse_args(argv)
        return HANDLERS[args.command](args)
    return cmd_launch(_launch_parser().parse_args(argv))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (the console script exits with it)."""
    if argv is None:  # the console script: the process ends with this call
        try:
            return _main(sys.argv[1:])
        finally:
            # At exit Python collects every object of the process to find cycles,
            # ~20 ms after a search (the index's tables, the imported modules);
            # objects frozen are left to the OS, which frees the whole heap at once.
            # (Only for the console script: a caller's process lives on.)
            import gc

            gc.freeze()
    return _main(list(argv))


def _main(argv: list[str]) -> int:
    from wikitui.core.errors import WikituiError

    for stream in (sys.stdout, sys.stderr):
        try:  # a page title in a terminal that cannot show it must not end in a traceback
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass
    try:
        return _run(argv)
    except _UsageError as exc:
        _err(str(exc))
        return 2
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except WikituiError as exc:
        _err(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``wikitui search x | head``): not an error worth a word.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 0
    except OSError as exc:
        _err(f"{str(exc.filename) + ': ' if exc.filename else ''}{exc.strerror or exc}")
        return 2
