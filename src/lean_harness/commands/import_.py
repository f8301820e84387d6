"""`lh memory import`: bring in memory from jsonl, memory-md, notes-tree or layered-jsonl."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lean_harness.commands import emit, open_memory


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `lh memory import`."""
    parser.add_argument("source", metavar="SOURCE", help="a file or folder to import ('-' reads jsonl from stdin)")
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
    parser.add_argument("--json", action="store_true", help="print versioned JSON")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory import importing

    memory = open_memory()
    stdin = sys.stdin.buffer.read() if args.source == "-" else None
    shown = "-" if stdin is not None else Path(args.source).as_posix()
    try:
        result = importing.import_source(
            memory, Path(args.source), shown, args.format, maps=args.map, dry_run=args.dry_run, stdin=stdin
        )
    except importing.ImportProblems as error:
        if not args.json:
            raise
        emit("memory import", {"source": shown, "dry_run": args.dry_run}, error.problems)
        return 2
    code = 1 if result.refused or result.count("conflict") else 0
    if args.json:
        emit(
            "memory import",
            {
                "source": result.source,
                "format": result.format,
                "dry_run": result.dry_run,
                "records": result.records,
                "outcomes": [
                    {"where": o.where, "shard": o.shard, "id": o.id, "action": o.action, "detail": o.detail}
                    for o in result.outcomes
                ],
                "refused": [
                    {
                        "where": r.where,
                        "line": r.line,
                        "rule": r.rule,
                        "description": r.description,
                        "preview": r.preview,
                    }
                    for r in result.refused
                ],
                "warnings": list(result.warnings),
                "marker": result.marker,
            },
            [str(r) for r in result.refused]
            + [
                f"conflict: {o.shard}/{o.id} ({o.where}): {o.detail}; left alone"
                for o in result.outcomes
                if o.action == "conflict"
            ],
        )
        return code
    for line in result.warnings:
        print(f"warning: {line}", file=sys.stderr)
    verb = "would add" if result.dry_run else "added"
    for o in result.outcomes:
        if o.action == "added":
            print(f"{verb} {o.shard}/{o.id} ({o.where})")
        elif o.action == "conflict":
            print(f"conflict: {o.shard}/{o.id} ({o.where}): {o.detail}; left alone", file=sys.stderr)
    for refusal in result.refused:
        print(str(refusal), file=sys.stderr)
    stored = result.count("unchanged") + result.count("imported before")
    summary = (
        f"{result.format} {result.source}: {result.records} record(s); {result.count('added')} {verb},"
        f" {stored} already imported, {result.count('conflict')} conflict(s), {len(result.refused)} refused"
    )
    if result.dry_run:
        print(f"dry run: {summary}; nothing was written")
    else:
        print(f"{summary}; recorded in {result.marker}")
    return code
