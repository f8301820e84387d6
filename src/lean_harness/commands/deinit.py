"""`lh deinit`: remove lh's blocks from .gitignore, .gitattributes, AGENTS.md and CLAUDE.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lean_harness.commands import emit
from lean_harness.errors import LhError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--purge",
        action="store_true",
        help="also delete .agents/ (config, memory, caches); asks first unless --yes",
    )
    parser.add_argument("--yes", action="store_true", help="confirm --purge without asking")


def run(args: argparse.Namespace) -> int:
    from lean_harness import deinit
    from lean_harness.files import display

    root = deinit.project_root(Path.cwd())
    if args.purge and not args.yes:
        shown = ", ".join(display(f, root) + "/" for f in deinit.folders(root)) or ".agents/"
        if args.json or not sys.stdin.isatty():
            raise LhError(f"--purge deletes {shown} and every memory entry in it; add --yes to confirm")
        answer = input(f"delete {shown} with every memory entry in it? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            raise LhError("nothing was changed")
    result = deinit.run(root, purge=args.purge)
    if args.json:
        lists = {name: list(getattr(result, name)) for name in ("cleaned", "deleted", "emptied", "kept")}
        emit("deinit", {"root": result.root.as_posix()} | lists)
        return 0
    for shown in result.cleaned:
        print(f"removed the lean-harness block from {shown}")
    for shown in result.deleted:
        print(f"deleted {shown}")
    for shown in result.emptied:
        print(f"deleted lean-harness's files from {shown}; kept the folder for the other files in it")
    if not result.cleaned and not result.deleted and not result.emptied:
        print("no lean-harness block here; nothing changed")
    for shown in result.kept:
        print(f'kept {shown} (config and memory); "lh deinit --purge" deletes it')
    return 0
