"""`lh memory adopt`: make the loose prose of shards entries, in place, without changing its text."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict

from lean_harness.commands import emit, open_memory


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shards", metavar="SHARD", nargs="*", help="the shards to adopt prose in (default: all)")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory.intake.adopt import adopt

    memory = open_memory()
    result = adopt(memory, args.shards)
    if args.json:
        adopted = [asdict(a) for a in result.adopted]  # shard, line, id, title
        emit("memory adopt", {"adopted": adopted, "written": list(result.written)}, result.refused)
        return 1 if result.refused else 0
    for item in result.adopted:
        print(f"adopted {memory.shown(memory.shard_path(item.shard))}:{item.line} as {item.id}: {item.title}")
    for line in result.refused:
        print(f"refused: {line}", file=sys.stderr)
    if not result.adopted and not result.refused:
        print("no loose prose to adopt")
    return 1 if result.refused else 0
