"""The command line's arguments: one parser per command, built only for the command run (DESIGN §6).

Building every subcommand's parser costs ~8 ms, more than a tenth of a search, so
``wikitui search ...`` builds the search parser alone (:func:`command_parser`);
``wikitui --help`` builds them all (:func:`build_parser`), and ``wikitui [PATH]``
has a parser of its own (:func:`launch_parser`). A test checks the parsers alone
read arguments as the whole one does.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from wikitui import __version__
from wikitui.cli.common import PROG

if TYPE_CHECKING:  # pragma: no cover
    from typing import NoReturn

COMMANDS = ("init", "sample", "search", "links", "lint", "index", "ask", "ingest", "clip", "export", "eval", "pending",
            "undo", "mcp", "serve", "completion", "history", "show", "changes", "sync", "inbox", "research")
#: Options that take a value: their value is not a command name or a PATH.
_VALUE_OPTIONS = ("--vault", "--model")

EPILOG = """\
Run `wikitui [PATH]` to open the workspace on the vault at PATH (default: the current folder).
Exit status: 0 success, 1 problems found or nothing applied, 2 user error, 3 model or network failure,
4 conflict."""


class UsageError(Exception):
    """An argument error; reported as one line and exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr, not usage plus message."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"a port is 1-65535: {text}")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0: {text}")
    return value


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an amount of US dollars: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be an amount of US dollars, 0 or more: {text}")
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
    parser.add_argument(
        "--as-is", action="store_true", default=default,
        help="open a folder that is not a vault as it is: its markdown files read as a wiki, wikitui's state "
             "kept in your cache, nothing written to the folder until you apply a change",
    )


def _model_option(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument("--model", metavar="MODEL", default=default, help="the litellm model name for the agent")


#: Each command's line in ``wikitui --help`` and the description its own ``--help`` opens with.
_COMMAND_HELP = {
    "init": ("create a vault layout", "Create raw/, wiki/, WIKI.md and .wikitui/ without overwriting anything."),
    "sample": ("copy the sample vault (an Alice wiki) to a new folder and open it",
               "Copy the built-in sample vault to DEST (a new folder; default ./wikitui-sample, numbered when "
               "taken) and open the workspace there. The installed copy is never edited."),
    "search": ("full-text search of pages and sources", None),
    "links": ("outgoing links, backlinks and unlinked mentions of a page", None),
    "lint": ("deterministic checks; exit status 1 when problems are found", None),
    "index": ("bring the search index up to date", None),
    "ask": ("ask the wiki a question (headless)", None),
    "ingest": ("ingest a raw source, or a batch of them (headless); prints the diffs", "Ingest one source (plan, "
               "then write; the changeset stays pending unless --apply), or a batch: a folder, a glob or --new. A "
               "batch first says how many sources, how many are skipped (ingested and unchanged) and what it may "
               "cost, asks (or --yes), then ingests each source into its own pending changeset through a queue "
               "in .wikitui/batches/ that --resume continues."),
    "clip": ("a web page or a document into raw/", "Fetch a web page's article (or copy a document) into raw/; "
             "never overwrites: a taken name gets a number, and an address already clipped is refused "
             "unless --refresh. Prints the new file's path."),
    "inbox": ("new feed items, or an export's, into raw/inbox/", "Bring the new items of the feeds in "
              "[inbox] feeds (or, with `import FILE|DIR`, of an export: browser bookmarks, Pocket, Instapaper, "
              "Readwise, Raindrop, mbox/eml, Slack or Discord JSON, .vtt/.srt transcripts) into raw/inbox/ as "
              "clipped sources, never the same item twice. Prints the new files' paths; exit status 3 when a "
              "feed could not be read (the others came in)."),
    "export": ("a Marp page as slides (html, pdf, pptx)", "Export a `marp: true` page with marp-cli when it is "
               "installed, else as a self-contained HTML deck. Prints the file's path."),
    "pending": ("the pending changesets: list, show, apply or reject one", "List the changesets waiting for "
                "review, print one as a patch (`git apply` accepts it), apply all its hunks, or reject it. ID is a "
                "changeset id, a unique prefix of one (or of its last part), or `latest`."),
    "undo": ("revert the last applied changeset", "Revert the most recently applied changeset (merged with edits "
             "made since; exit status 4 when they overlap, 1 when nothing is left to undo)."),
    "eval": ("which model can keep this wiki? scores it on fixed tasks", "Run fixed ingest, ask, lint, safety and "
             "economy tasks through the agent on a temporary copy of the built-in sample vault, and score each with "
             "deterministic checks. Your vault and config are only read. Progress goes to stderr."),
    "mcp": ("an MCP server on stdio for other agents (Claude Code, Codex...)", "Serve the vault over MCP on "
            "stdin/stdout: search, read, list_pages, links, history, lint and the propose_* tools. Proposals "
            "gather into one pending changeset per session, for you to review; nothing is ever applied by MCP."),
    "serve": ("the workspace in a browser, on 127.0.0.1", "Run the workspace through textual-serve and print "
              "its address, with a random token: only a browser that opens that URL gets in. Only this machine "
              "can reach it unless --host says otherwise."),
    "research": ("web sources on a topic, proposed as URLs to accept or reject", "Let the agent search the web "
                 "(a search provider in [research] of the config) for sources on TOPIC; it proposes URLs with one "
                 "line why each, which stay pending: nothing is fetched until you accept them. `research accept ID "
                 "[URL...]` clips the URLs named (every undecided one when none is) into raw/, `research reject ID "
                 "[URL...]` drops them, `research list` shows what is pending. ID may be `latest`."),
    "completion": ("a shell completion script (bash, zsh or fish)", "Print a completion script for SHELL; e.g. "
                   "`wikitui completion bash > ~/.local/share/bash-completion/completions/wikitui`."),
    "history": ("a page's versions, newest first (git, or wikitui's records)", "List a page's versions, newest "
                "first: date, author or model, the log.md entry and the changeset id that made each."),
    "show": ("a page's text, now or as it was on a day (--at)", "Print a page's text; with --at DATE, as it was "
             "at the end of that day (exit status 2 when it did not exist then)."),
    "changes": ("what changed since a day: pages, sources, by whom", "The digest of log.md and git since a day "
                "(default 7d): each change with its pages, model and author."),
    "sync": ("bring the upstream's commits in and push yours (git)", "Fetch the vault's git upstream, merge its "
             "pages with wikitui's own three-way merge (log.md keeps both sides' entries, index.md is regenerated), "
             "then push. A conflict is never written as markers: nothing is written or pushed, and the sync waits "
             "for you to choose (--take). Exit status 4 on a conflict, 3 when the remote cannot be reached."),
}


def _define_command(name: str, p: argparse.ArgumentParser) -> None:
    """Add command ``name``'s arguments to its parser."""
    if name == "init":
        p.add_argument("path", nargs="?", metavar="PATH", help="the folder (default: --vault or the current folder)")
    elif name == "sample":
        p.add_argument("dest", nargs="?", metavar="DEST", help="a new folder (default: ./wikitui-sample)")
        p.add_argument("--no-open", action="store_true", help="only copy it; print its path")
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
        if name == "lint":
            p.add_argument("--semantic", action="store_true",
                           help="then the model's pass; its proposals stay pending (exit 3 on a model failure)")
            p.add_argument("--challenge", metavar="PATH",
                           help="compare a note or a folder (raw/inbox/) with the wiki: contradiction callouts and "
                                "updates are proposed, pending (exit codes as --semantic)")
    elif name == "index":
        p.add_argument("--rebuild", action="store_true", help="rebuild the index from scratch")
    elif name == "ask":
        p.add_argument("question", metavar="QUESTION")
        p.add_argument("--file", action="store_true", help="propose the answer as a page (the changeset stays pending)")
        p.add_argument("--fold", action="store_true",
                       help="then fold the answer into the pages it cites: the agent proposes the edits "
                            "(a changeset of its own, pending)")
        p.add_argument("--json", action="store_true",
                       help='print {"answer", "citations", "unresolved", "changeset", "tokens", "cost"}')
    elif name == "ingest":
        p.add_argument("source", metavar="SOURCE", nargs="?",
                       help="a file under raw/, or a batch: a folder (raw/papers/) or a glob ('raw/**/*.pdf')")
        p.add_argument("--apply", action="store_true", help="accept every proposed change (a batch: every hunk the "
                       "second reviewer, review_model, found ok; each source its own changeset)")
        p.add_argument("--json", action="store_true", help='print {"plan", "changeset", "applied", ...} '
                       '(a batch: {"batch", "counts", "sources", ...})')
        p.add_argument("--new", action="store_true", help="a batch of every source no page lists in its sources")
        p.add_argument("--resume", action="store_true", help="continue the last unfinished batch")
        p.add_argument("--yes", "-y", action="store_true", help="start a batch without asking")
        p.add_argument("--max-cost", type=_non_negative_float, metavar="USD",
                       help="stop a batch once this run spent USD (default: batch_max_cost in the config)")
    elif name in ("pending", "undo"):
        _define_change_command(name, p)
    elif name == "clip":
        p.add_argument("source", metavar="URL|FILE", help="an http(s) address or a local document")
        p.add_argument("--name", metavar="N", help="the new file's name (default: the title or the file's name)")
        p.add_argument("--refresh", action="store_true",
                       help="an address already in raw/: add a fresh copy beside it (slug-YYYY-MM-DD.md)")
    elif name == "inbox":
        p.add_argument("action", nargs="?", choices=("import",), metavar="import",
                       help="read an export instead of the feeds")
        p.add_argument("path", nargs="?", metavar="FILE|DIR", help="the export (a file or a folder)")
        p.add_argument("--json", action="store_true", help='print {"added", "skipped", "problems", "left", "kinds"}')
        p.add_argument("--no-fetch", action="store_true",
                       help="do not fetch the pages of links and feed summaries (keep what the feed or export says)")
    elif name == "export":
        p.add_argument("page", metavar="PAGE", help="a Marp page's path, title or alias")
        p.add_argument("--format", choices=("html", "pdf", "pptx"), default="html", help="default html")
        p.add_argument("--out", metavar="FILE", help="default: <page-stem>.<format> in the current folder")
    elif name == "eval":
        from wikitui.core.eval.tasks import GROUPS

        p.add_argument("--only", choices=GROUPS, help="run one group of tasks")
        p.add_argument("--json", action="store_true", help='print {"model", "score", "tasks": [...]}')
        p.add_argument("--task-timeout", type=_positive_seconds, metavar="SECONDS",
                       help="time limit per task (default: eval_task_timeout in the config, else 300)")
        p.add_argument("--keep", metavar="DIR", help="leave the eval's vaults in DIR (a new folder) to inspect")
    elif name == "serve":
        p.add_argument("--port", type=_port, default=8000, metavar="N", help="the port (default 8000)")
        p.add_argument("--host", default="127.0.0.1", metavar="H",
                       help="the address to listen on (default 127.0.0.1: this machine only)")
    elif name in ("history", "show", "changes"):
        _define_history_command(name, p)
    elif name == "sync":
        p.add_argument("--take", nargs=2, metavar=("CHOICE", "PATH"),
                       help="resolve a conflict: ours, theirs, or file (the page as you edited it), then sync again")
        p.add_argument("--no-push", action="store_true", help="only bring the upstream's commits in")
        p.add_argument("--json", action="store_true",
                       help='print {"upstream", "incoming", "outgoing", "written", "conflicts", "pushed", ...}')
    elif name == "research":
        p.add_argument("words", nargs="+", metavar="TOPIC | accept ID [URL...] | reject ID [URL...] | list",
                       help="a topic to research, or what to do with a proposal")
        p.add_argument("--ingest", action="store_true", help="accept: queue the clipped sources for a batch ingest")
        p.add_argument("--json", action="store_true", help="print JSON")
    elif name == "completion":
        p.add_argument("shell", choices=("bash", "zsh", "fish"), metavar="SHELL", help="bash, zsh or fish")
    _common(p, suppress=True)
    if name in ("ask", "ingest", "eval", "lint", "sample", "research"):
        _model_option(p, suppress=True)


def _define_change_command(name: str, p: argparse.ArgumentParser) -> None:
    """``pending [ACTION] [ID]`` and ``undo``: both print JSON on request."""
    if name == "pending":
        p.add_argument("action", nargs="?", choices=("list", "show", "apply", "reject"), default="list",
                       help="what to do (default list)")
        p.add_argument("id", nargs="?", metavar="ID", help="a changeset id, a unique prefix of one, or `latest`")
    p.add_argument("--json", action="store_true", help="print JSON")


def _define_history_command(name: str, p: argparse.ArgumentParser) -> None:
    """``history PAGE``, ``show PAGE [--at DATE]`` and ``changes [--since DATE]`` (DESIGN §15)."""
    if name in ("history", "show"):
        p.add_argument("page", metavar="PAGE", help="a page's path, title or alias (or the path of a deleted page)")
    if name == "show":
        p.add_argument("--at", metavar="DATE", help="the day: YYYY-MM-DD, or a span back from today (7d, 2w)")
    if name == "changes":
        p.add_argument("--since", metavar="DATE", default="7d", help="YYYY-MM-DD or a span such as 7d (default 7d)")
    p.add_argument("--json", action="store_true", help="print JSON")


def command_parser(name: str) -> argparse.ArgumentParser:
    """The parser of one command alone: what ``wikitui NAME ...`` needs, without building the other six.

    (Building every subcommand's parser costs ~8 ms, more than a tenth of a search.)
    """
    parser = _Parser(prog=f"{PROG} {name}", description=_COMMAND_HELP[name][1])
    _define_command(name, parser)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The parser of the subcommands (``wikitui [PATH]`` is parsed by :func:`launch_parser`)."""
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


def launch_parser() -> argparse.ArgumentParser:
    """The parser of ``wikitui [PATH] [--vault PATH] [--model MODEL]`` (the workspace)."""
    parser = _Parser(prog=PROG, usage="wikitui [PATH] [--vault PATH] [--model MODEL] [--as-is]", add_help=False)
    parser.add_argument("path", nargs="?", metavar="PATH")
    _common(parser, suppress=False)
    _model_option(parser, suppress=False)
    return parser


def first_positional(argv: Sequence[str]) -> str | None:
    """The first argument that is not an option or an option's value (a command name or a PATH)."""
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
