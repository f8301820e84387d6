"""The `lh` command line: find the command, build only its parser, run it, pick the exit code.

Each command module (`run(args) -> int`, and `add_arguments(parser)` when it takes options) is
listed once in COMMANDS and imported only when chosen; --json is declared here for every one not
in PLAIN. Exit codes: 0 ok; 1 found a problem; 2 could not do what was asked; 130 interrupted; 70
a bug (the traceback is shown).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from collections.abc import Sequence
from contextlib import suppress
from typing import Any, NoReturn, TextIO

from lean_harness import __version__
from lean_harness.errors import LhError, readable

# Command path -> (summary, module under lean_harness.commands); groups have no module.
COMMANDS: dict[tuple[str, ...], tuple[str, str | None]] = {
    ("init",): ("set up the config, memory, and .gitignore and .gitattributes blocks here", "init"),
    ("deinit",): ("remove lh's blocks from .gitignore, .gitattributes, AGENTS.md, CLAUDE.md", "deinit"),
    ("demo",): ("show lh at work in a throwaway project", "demo"),
    ("doctor",): ("check the project's harness (or a plugin) and fix what is safe", "doctor"),
    ("config",): ("show, change or describe the config", None),
    ("config", "show"): ("print the effective config, defaults included", "config_show"),
    ("config", "set"): ("set one key (validated before anything is written)", "config_set"),
    ("config", "schema"): ("print the config's JSON Schema", "config_schema"),
    ("memory",): ("write, read, search and index project memory", None),
    ("memory", "put"): ("store a note in a shard (TEXT - reads stdin)", "put"),
    ("memory", "get"): ("print a shard's entries, or with --query the entries that best match", "get"),
    ("memory", "index"): ("regenerate INDEX.md", "index"),
    ("memory", "verify"): ("check the code lines notes cite; exit 1 when any changed or is gone", "verify"),
    ("memory", "status"): ("entries and tokens per shard against the budget", "status"),
    ("memory", "stats"): ("how often each entry reached the agent, per shard, from the usage record", "stats"),
    ("memory", "compact"): ("merge old entries into digests until memory is under its target", "compact"),
    ("memory", "expand"): ("put the entries of a digest back from the archive", "expand"),
    ("memory", "scan"): ("find credentials in memory files (or the given files); exit 1 on findings", "scan"),
    ("memory", "lint"): ("list entries their own first line does not find (top 5)", "lint"),
    ("memory", "import"): ("import entries from jsonl, memory-md, notes-tree or layered-jsonl", "import_"),
    ("memory", "export"): ("write every entry with its metadata as jsonl", "export"),
    ("memory", "note"): ("drop a note in the pending inbox, without waiting for other writers", "note"),
    ("memory", "consolidate"): ("merge the pending notes into the shards", "consolidate"),
    ("memory", "review"): ("list likely contradictions, duplicates, superseded, stale and pending notes", "review"),
    ("memory", "adopt"): ("make the prose written outside entries entries, text unchanged", "adopt"),
}
PLAIN = ("demo", "config_set", "config_schema", "export")  # modules whose output is not the JSON envelope


def main(argv: Sequence[str] | None = None) -> int:
    """Run `lh` with `argv` (default: the process arguments) and return the exit code."""
    # Every value lh prints, whatever field it came from, goes through scanning.mask on its way out.
    shown, sys.stderr = sys.stderr, _MaskedStream(sys.stderr)
    printed, sys.stdout = sys.stdout, _MaskedStream(sys.stdout)
    try:
        return _main(argv)
    finally:
        sys.stderr, sys.stdout = shown, printed


class _MaskedStream:
    """Standard output or error through `scanning.mask`: any value printed may hold a credential (adr/0019)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from lean_harness.scanning.masking import mask

        return self._stream.write(mask(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _main(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    chosen = _chosen(words)
    parser, leaf = _parser(chosen)
    # A failure is reported as JSON when the chosen command accepts --json and was given it.
    options = words[: words.index("--")] if "--" in words else words
    as_json = "--json" in leaf._option_string_actions and "--json" in options
    command = " ".join(chosen)
    for number, word in enumerate(words, 1):
        if not word.isascii() and any("\ud800" <= c <= "\udfff" for c in word):  # undecodable bytes
            shown = word.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            message = f"lh: argument {number} ({shown}) is not valid UTF-8; nothing was done. Pass it as UTF-8 text"
            return report_error(message, 2, command, as_json)
    try:
        args = parser.parse_args(words)
    except UsageError as error:
        if not as_json:
            error.parser.print_usage(sys.stderr)
        return report_error(f"{error.parser.prog}: error: {error}", 2, command, as_json)
    if not hasattr(args, "run"):  # a group named without one of its commands
        getattr(args, "group_parser", parser).print_help()
        return 2
    try:
        if args.directory is not None:
            os.chdir(args.directory)
        code: int = args.run(args)
        return code
    except LhError as error:
        return report_error(error.message, error.exit_code, command, as_json)
    except KeyboardInterrupt:
        return report_error("interrupted", 130, command, as_json)
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except OSError as error:
        if error.errno in _FULL:
            return report_error(full_message(error), 2, command, as_json)
        if error.filename is None:
            return _bug(command, as_json)
        return report_error(filesystem_message(error), 2, command, as_json)
    except Exception:
        return _bug(command, as_json)


def _bug(command: str, as_json: bool) -> int:
    import traceback

    traceback.print_exc()
    return report_error(
        "lh: this is a bug in lean-harness; please report it with the traceback above", 70, command, as_json
    )


def report_error(message: str, code: int, command: str, as_json: bool) -> int:
    """Report any failure, made readable: the message on stderr, under --json the envelope too; the exit code."""
    message = readable(message)
    print(message, file=sys.stderr)
    if as_json:
        from lean_harness.commands import emit

        emit(command, {}, [message])
    return code


class UsageError(Exception):
    """Bad command-line arguments, raised by the parser instead of exiting."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(self, message)


_OS_PROBLEMS = (
    (FileNotFoundError, "no such file or folder"),
    (IsADirectoryError, "is a folder where a file was expected; move it away"),
    (PermissionError, "permission denied; check the file's owner and mode"),
    (FileExistsError, "already exists"),
)


def filesystem_message(error: OSError) -> str:
    """One line for a filesystem surprise a user can cause: the path, relative when it can be, and what."""
    name = os.fsdecode(error.filename)
    with suppress(ValueError):  # another drive than the current folder's
        name = os.path.relpath(name)
    if isinstance(error, NotADirectoryError):
        name = _file_on_the_way(name)
    if isinstance(error, (FileExistsError, NotADirectoryError)) and not os.path.isdir(name):
        return f"{name}: is a file where a folder was expected; move it away"
    for kind, what in _OS_PROBLEMS:
        if isinstance(error, kind):
            return f"{name}: {what}"
    return f"{name}: {error.strerror or error}; nothing more was done"


def _file_on_the_way(path: str) -> str:
    """The first part of `path` that is a file, where the rest of the path needs a folder."""
    parts = path.replace(os.sep, "/").split("/")
    for end in range(1, len(parts)):
        head = "/".join(parts[:end])
        if head and os.path.exists(head) and not os.path.isdir(head):
            return head
    return path


_FULL = {errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}


def full_message(error: OSError) -> str:
    """One line for a write the disk had no room for (or a file size limit stopped)."""
    where = f" to {os.path.relpath(os.fsdecode(error.filename))}" if error.filename is not None else ""
    return (
        f"lh: could not write{where}: {error.strerror or error}; no file was left half written."
        " Free some disk space, then run the command again"
    )


def _chosen(words: Sequence[str]) -> tuple[str, ...]:
    """The command path named in `words`, skipping global options ("-C DIR")."""
    path: list[str] = []
    rest = iter(words)
    for word in rest:
        if word == "-C":
            next(rest, None)
        if word.startswith("-"):
            continue
        if (*path, word) not in COMMANDS:
            break
        path.append(word)
        if COMMANDS[tuple(path)][1] is not None:
            break
    return tuple(path)


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, sized without importing shutil (argparse would, for every argument)."""

    def __init__(self, prog: str) -> None:  # argparse passes only the program's name
        super().__init__(prog, width=_columns() - 2)


def _columns() -> int:
    """The terminal's width as shutil.get_terminal_size finds it: $COLUMNS, standard output, else 80."""
    value = os.environ.get("COLUMNS", "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):  # no standard output, or not a terminal
        return 80


def _parser(chosen: tuple[str, ...]) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The parser, and the parser of the chosen command (the top one when none is chosen)."""
    parser = _Parser(
        prog="lh",
        description="lean-harness: a lean, file-only project memory for coding agents.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"lh {__version__}")
    parser.add_argument("-C", dest="directory", metavar="DIR", help="run as if started in DIR")
    return parser, _add_level(parser, (), chosen)


def _add_level(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...], chosen: tuple[str, ...]
) -> argparse.ArgumentParser:
    leaf = parser
    title = f"{' '.join(prefix)} commands" if prefix else "commands"
    # An explicit prog keeps argparse from measuring the terminal (and importing shutil) here.
    prog = " ".join(("lh", *prefix))
    children = parser.add_subparsers(title=title, metavar="ACTION" if prefix else "COMMAND", prog=prog)
    depth = len(prefix)
    # With a whole command chosen, no list of the others will be shown: declare only its path.
    complete = bool(chosen) and COMMANDS[chosen][1] is not None
    for path, (summary, module_name) in COMMANDS.items():
        if len(path) != depth + 1 or path[:depth] != prefix or (complete and path != chosen[: depth + 1]):
            continue
        child = children.add_parser(path[-1], help=summary, description=summary, formatter_class=_Formatter)
        if path != chosen[: depth + 1]:
            continue  # listed by name only: its arguments are declared when it is the one chosen
        if module_name is None:
            child.set_defaults(group_parser=child)
            leaf = _add_level(child, path, chosen)
        else:
            module = importlib.import_module(f"lean_harness.commands.{module_name}")
            getattr(module, "add_arguments", lambda parser: None)(child)
            if module_name not in PLAIN:
                child.add_argument("--json", action="store_true", help="print versioned JSON")
            child.set_defaults(run=module.run)
            leaf = child
    return leaf
