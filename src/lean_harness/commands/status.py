"""`lh memory status`: entries and tokens per shard against the budget."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from lean_harness.commands import emit, open_memory


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory import status

    result = status.status(open_memory())
    if args.json:
        totals = result.totals
        emit(
            "memory status",
            {
                "encoding": result.label,
                "exact": result.exact,
                # name, description, path, entries, tokens, prose_tokens, prose_lines
                "shards": [{k: v for k, v in asdict(s).items() if k != "exists"} for s in result.shards],
                "total_tokens": totals.tokens,
                "token_budget": totals.budget,
                "compact_at_percent": totals.compact_at_percent,
                "compact_threshold": totals.threshold,
                "compaction_due": totals.compaction_due,
                "index": {
                    "path": result.index_path,
                    "tokens": result.index_tokens,
                    "budget": result.index_budget,
                    "fresh": result.index_fresh,
                },
            },
        )
    else:
        print_status(result)
    return 0


def print_status(result: Any) -> None:
    width = max([len(s.name) for s in result.shards] + [5])
    print(f"{'shard':<{width}}  {'entries':>7}  {'tokens':>7}  {'prose':>7}")
    for shard in result.shards:
        print(f"{shard.name:<{width}}  {shard.entries:>7}  {shard.tokens:>7}  {shard.prose_tokens:>7}")
    totals = result.totals
    prose = sum(s.prose_tokens for s in result.shards)
    print(
        f"{'total':<{width}}  {sum(s.entries for s in result.shards):>7}  {totals.tokens:>7}  {prose:>7}"
        f"  of {totals.budget} ({totals.percent}%; compaction above {totals.compact_at_percent}%)"
    )
    if prose:
        print('prose: tokens of text outside entries (counted in tokens); "lh memory adopt" makes it entries')
    fresh = "fresh" if result.index_fresh else 'stale: run "lh memory index"'
    print(f"index: {result.index_path}, {result.index_tokens} of {result.index_budget} tokens, {fresh}")
    print(f"token counts: {result.label}, of what lh memory get prints; an estimate of the model's own count")
    if totals.compaction_due:
        print('compaction is due: run "lh memory compact"')
