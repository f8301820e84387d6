"""`lh memory lint`: entries that their own first line does not find."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict

from lean_harness.commands import emit, open_memory


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory.search import query

    found = query.unreachable(open_memory())
    if args.json:
        emit("memory lint", {"unreachable": [asdict(u) for u in found]})  # id, shard, title
        return 1 if found else 0
    for u in found:
        print(f"{u.shard}/{u.id}: its first line does not find it in the top 5: {u.title}")
    if found:
        print(
            f"{len(found)} entr{'y' if len(found) == 1 else 'ies'} no query is likely to find;"
            " give each a first line that names its subject",
            file=sys.stderr,
        )
        return 1
    print("every entry is found by its own first line")
    return 0
