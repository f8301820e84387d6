"""`lh memory import`: bring in memory from jsonl, memory-md, notes-tree or layered-jsonl."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from lean_harness.commands import emit, open_memory
from lean_harness.errors import LhError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source", metavar="SOURCE", nargs="?", help="a file or folder to import ('-' reads jsonl from stdin)"
    )
    parser.add_argument(
        "--from",
        dest="origin",
        choices=("claude-code",),
        help="import this project's memory kept by another tool (claude-code: its auto memory folder)",
    )
    parser.add_argument(
        "--format",
        default="auto",
        choices=("auto", "jsonl", "memory-md", "notes-tree", "layered-jsonl"),
        help="the source's format (default: detect it)",
    )
    parser.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="KIND=SHARD",
        help="send a memory-md type, layered-jsonl category or notes-tree topic to SHARD (repeatable)",
    )
    parser.add_argument("--dry-run", action="store_true", help="say what would happen and write nothing")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory.intake import importing

    memory = open_memory()
    if (args.source is None) == (args.origin is None):
        raise LhError("give a SOURCE to import or --from claude-code, not both or neither")
    fmt, source = args.format, Path(args.source or ".")
    shown = source.as_posix()  # '-' for standard input
    if args.origin:
        from lean_harness.memory.intake.formats import claude_code

        if fmt not in ("auto", "memory-md"):
            raise LhError(f"--from claude-code reads the memory-md format, not {fmt}")
        fmt, source = "memory-md", claude_code.memory_folder(memory.root)
        home = Path.home()  # a folder found for --from is shown under the home folder as ~
        shown = f"~/{source.relative_to(home).as_posix()}" if source.is_relative_to(home) else source.as_posix()
    stdin = sys.stdin.buffer.read() if args.source == "-" else None
    result = importing.import_source(memory, source, shown, fmt, maps=args.map, dry_run=args.dry_run, stdin=stdin)
    code = 1 if result.refused or result.problems or result.count("conflict") else 0
    conflicts = [
        f"conflict: {o.shard}/{o.id} ({o.where}): {o.detail}; left alone"
        for o in result.outcomes
        if o.action == "conflict"
    ]
    if args.json:
        emit(
            "memory import",
            {
                "source": result.source,
                "format": result.format,
                "dry_run": result.dry_run,
                "records": result.records,
                "outcomes": [asdict(o) for o in result.outcomes],  # where, shard, id, action, detail
                "refused": [
                    {key: getattr(r, key) for key in ("where", "line", "rule", "description", "preview")}
                    for r in result.refused
                ],
                "warnings": list(result.warnings),
                "marker": result.marker,
            },
            [*result.problems, *map(str, result.refused), *conflicts],
        )
        return code
    for line in result.warnings:
        print(f"warning: {line}", file=sys.stderr)
    verb = "would add" if result.dry_run else "added"
    for o in result.outcomes:
        if o.action == "added":
            print(f"{verb} {o.shard}/{o.id} ({o.where})")
    for line in [*conflicts, *map(str, result.refused), *(f"not imported: {p}" for p in result.problems)]:
        print(line, file=sys.stderr)
    stored = result.count("unchanged") + result.count("imported before")
    summary = (
        f"{result.format} {result.source}: {result.records} record(s); {result.count('added')} {verb},"
        f" {stored} already imported, {result.count('conflict')} conflict(s), {len(result.refused)} refused"
    )
    if result.problems:
        summary += f", {len(result.problems)} problem(s) (fix them and import again)"
    print(f"dry run: {summary}; nothing was written" if result.dry_run else f"{summary}; recorded in {result.marker}")
    return code
