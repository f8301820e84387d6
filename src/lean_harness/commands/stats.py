"""`lh memory stats`: which entries reached the agent, per entry and shard, from the usage record."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lean_harness.commands import emit, open_memory

BAR = 10  # characters of a shard's bar
MOST = 5  # most used entries named in the text view


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `lh memory stats`."""
    parser.add_argument("--json", action="store_true", help="print versioned JSON")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory.stats import stats
    from lean_harness.usage import PATH

    found = stats(open_memory())
    entries = found.entries
    shards: dict[str, list[Any]] = {}
    for entry in entries:
        shards.setdefault(entry.shard, []).append(entry)
    rows = [
        {
            "name": name,
            "entries": len(items),
            "used": sum(1 for e in items if e.uses),
            "used_share": round(sum(1 for e in items if e.uses) / len(items), 3),
            "tokens": sum(e.tokens for e in items),
            "unused_tokens": sum(e.tokens for e in items if not e.uses),
        }
        for name, items in shards.items()
    ]
    uses = sum(e.uses for e in entries)
    pulled = sum(e.uses * e.tokens for e in entries)
    totals = {
        "memory_tokens": sum(e.tokens for e in entries),
        "sessions": found.sessions,
        "uses": uses,
        "tokens_pulled": pulled,
        "tokens_per_session": pulled // found.sessions if found.sessions else None,
        "tokens_per_use": pulled // uses if uses else None,
    }
    problems = [found.problem] if found.problem else []
    if args.json:
        keys = ("id", "shard", "uses", "listed", "last_used", "tokens")
        listed = [{key: getattr(e, key) for key in keys} for e in entries]
        emit(
            "memory stats", {"recorded": found.recorded, "entries": listed, "shards": rows, "totals": totals}, problems
        )
        return 0
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    if not found.recorded:
        print(f"no usage recorded yet in {PATH} (memory.recordUsage; this machine only): every entry counts as unused")
    width = max([len(row["name"]) for row in rows] + [5])
    print(f"{'shard':<{width}}  {'used':<{BAR + 2}} {'entries':>9}  unused tokens")
    for row in rows:
        filled = round(BAR * row["used_share"])
        bar = "[" + "#" * filled + "." * (BAR - filled) + "]"
        print(f"{row['name']:<{width}}  {bar} {row['used']:>4}/{row['entries']:<4}  {row['unused_tokens']}")
    per_session = totals["tokens_per_session"]
    per_use = totals["tokens_per_use"]
    print(
        f"memory: {totals['memory_tokens']} tokens; {found.sessions} sessions started; {uses} uses;"
        f" pulled per session: {'-' if per_session is None else per_session} tokens;"
        f" per use: {'-' if per_use is None else per_use} tokens"
    )
    for entry in sorted((e for e in entries if e.uses), key=lambda e: (-e.uses, e.shard, e.id))[:MOST]:
        print(
            f"  {entry.shard}/{entry.id}: {entry.uses} uses, last {(entry.last_used or '')[:10]}, {entry.tokens} tokens"
        )
    return 0
