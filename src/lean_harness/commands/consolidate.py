"""`lh memory consolidate`: merge the pending notes into the shards, each exactly once."""

from __future__ import annotations

import argparse
import sys

from lean_harness.commands import emit, open_memory


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `lh memory consolidate`."""
    parser.add_argument("--dry-run", action="store_true", help="say what would happen and write nothing")
    parser.add_argument("--json", action="store_true", help="print versioned JSON")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory.intake import inbox

    memory = open_memory()
    result = inbox.consolidate(memory, dry_run=args.dry_run)
    kept = [n for n in result.notes if n.action == "kept"]
    if args.json:
        rows = [
            {"note": n.note, "action": n.action, "shard": n.shard, "id": n.id, "detail": n.detail} for n in result.notes
        ]
        emit(
            "memory consolidate",
            {"dry_run": result.dry_run, "notes": rows},
            [f"{n.note}: {n.detail}; kept in the inbox" for n in kept],
        )
        return 1 if kept else 0
    verb = "would add" if result.dry_run else "added"
    for n in result.notes:
        if n.action == "added":
            print(f"{verb} {n.shard}/{n.id} ({n.note})")
    for n in kept:
        print(f"{n.note}: {n.detail}; kept in the inbox", file=sys.stderr)
    summary = (
        f"{len(result.notes)} pending note(s): {result.count('added')} {verb},"
        f" {result.count('unchanged')} already stored, {len(kept)} kept"
    )
    print(f"dry run: {summary}; nothing was written" if result.dry_run else summary)
    return 1 if kept else 0
