"""`lh memory stats`: how often each entry reached the agent, per entry and shard (usage.py).

A title a session start listed counts as `listed`, not as a use; tokens are what `get` prints now.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lean_harness import usage
from lean_harness.commands import emit, open_memory

BAR = 10  # characters of a shard's bar
KEYS = ("id", "shard", "uses", "listed", "last_used", "tokens")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory import view

    memory = open_memory()
    memory.check_dir()
    used, sessions, unreadable = usage.counted(memory.root)
    problems = [f"{unreadable}; uses are not counted"] if unreadable else []
    entries: list[dict[str, Any]] = []
    shards: list[dict[str, Any]] = []
    with memory.reading():
        for name in memory.config.shard_names:
            found = memory.entries(name)
            costs = view.costs([view.entry_block(e) for e in found], memory.counter.counts)
            rows: list[dict[str, Any]] = []
            for entry, tokens in zip(found, costs, strict=True):
                uses, listed, last = used.get((name, entry.id), (0, 0, ""))
                rows.append(dict(zip(KEYS, (entry.id, name, uses, listed, last or None, tokens), strict=True)))
            entries += rows
            count = sum(1 for row in rows if row["uses"])
            unused = sum(row["tokens"] for row in rows if not row["uses"])
            if rows:
                share = round(count / len(rows), 3)
                shards.append(
                    {"name": name, "entries": len(rows), "used": count, "used_share": share, "unused_tokens": unused}
                )
    uses = sum(row["uses"] for row in entries)
    pulled = sum(row["uses"] * row["tokens"] for row in entries)
    per_session, per_use = pulled // max(sessions, 1), pulled // max(uses, 1)
    totals = {"memory_tokens": sum(row["tokens"] for row in entries), "sessions": sessions, "uses": uses}
    totals |= {"tokens_per_session": per_session, "tokens_per_use": per_use}
    if args.json:
        emit(
            "memory stats",
            {"recorded": bool(used or sessions), "entries": entries, "shards": shards, "totals": totals},
            problems,
        )
        return 0
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    if not used and not sessions:
        print(f"no usage recorded yet in {usage.PATH} (memory.recordUsage; this machine only)")
    width = max([len(row["name"]) for row in shards] + [5])
    print(f"{'shard':<{width}}  {'used':<{BAR + 2}} {'entries':>9}  unused tokens")
    for row in shards:
        bar = "[" + ("#" * round(BAR * row["used_share"])).ljust(BAR, ".") + "]"
        print(f"{row['name']:<{width}}  {bar} {row['used']:>4}/{row['entries']:<4}  {row['unused_tokens']}")
    print(f"memory: {totals['memory_tokens']} tokens; {sessions} sessions started, {uses} uses;", end="")
    print(f" tokens pulled per session {per_session}, per use {per_use}")
    return 0
