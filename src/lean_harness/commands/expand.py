"""`lh memory expand`: put a digest's entries back from the archive."""

from __future__ import annotations

import argparse
import sys

from lean_harness.commands import emit, open_memory


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `lh memory expand`."""
    parser.add_argument("digest", metavar="DIGEST_ID", help="the id of a digest written by lh memory compact")
    parser.add_argument("--json", action="store_true", help="print versioned JSON")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory import archive

    result = archive.expand(open_memory(), args.digest)
    totals = result.totals
    if args.json:
        emit(
            "memory expand",
            {
                "digest": result.digest,
                "shard": result.shard,
                "restored": list(result.restored),
                "archive": result.archive,
                "shard_tokens_before": result.tokens_before,
                "shard_tokens_after": result.tokens_after,
                "total_tokens": totals.tokens,
                "token_budget": totals.budget,
                "compaction_due": totals.compaction_due,
                "written": list(result.written),
            },
        )
        return 0
    print(f"restored {len(result.restored)} entries of {result.shard} from digest {result.digest} ({result.archive})")
    print(
        f"{result.shard}: {result.tokens_before} -> {result.tokens_after} tokens;"
        f" memory: {totals.tokens} of {totals.budget} tokens ({totals.percent}%)"
    )
    if totals.compaction_due:
        print(
            f"warning: memory is over its compaction threshold ({totals.compact_at_percent}% of {totals.budget}"
            ' tokens); "lh memory compact" would merge old entries again',
            file=sys.stderr,
        )
    return 0
