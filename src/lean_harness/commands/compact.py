"""`lh memory compact`: merge old entries into digests until memory is at its target."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import Any

from lean_harness.commands import emit, open_memory

SHOWN_SOURCES = 20  # per digest in the text output; --json lists them all


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true", help="print the plan and write nothing")
    parser.add_argument("--force", action="store_true", help="compact down to the target even below the threshold")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory.compaction import archive

    result = archive.compact(open_memory(), force=args.force, dry_run=args.dry_run)
    plan = result.plan
    problems = _problems(plan)
    if args.json:
        emit("memory compact", _payload(result, args.dry_run), problems)
    else:
        print_plan(plan)
        if not plan.digests:
            print(_nothing(plan))
        elif args.dry_run:
            print('dry run: nothing was written; "lh memory compact" does it')
        else:
            print(f"wrote {', '.join(result.written)}")
            print('"lh memory expand DIGEST_ID" puts a digest\'s entries back')
        for problem in problems:
            print(f"warning: {problem}", file=sys.stderr)
    return 1 if plan.total_after > plan.threshold and (plan.due or plan.forced) else 0


def _percent(tokens: int, budget: int) -> int:
    return tokens * 100 // budget if budget else 0


def print_plan(plan: Any) -> None:
    """The plan as text: the memory against its limits, each digest with its sources, each shard."""
    print(
        f"memory: {plan.total_before} of {plan.budget} tokens ({_percent(plan.total_before, plan.budget)}%);"
        f" compaction threshold {plan.threshold}, target {plan.target} tokens"
    )
    for digest in plan.digests:
        count = len(digest.sources)
        dropped = f", {digest.dropped} repeated lines left out" if digest.dropped else ""
        print(
            f"digest {digest.entry.id} in {digest.shard}: {count} entries from {digest.entry.attr('from')[:10]}"
            f" to {digest.entry.created[:10]}, {digest.tokens_before} -> {digest.tokens} tokens{dropped}"
        )
        for source, why in list(zip(digest.sources, digest.reasons, strict=True))[:SHOWN_SOURCES]:
            print(f"  {source.id} {source.created[:10]} {source.title} ({why})")
        if count > SHOWN_SOURCES:
            print(f"  ... and {count - SHOWN_SOURCES} more (--json lists them all)")
    if not plan.digests:
        return
    width = max([len(s.name) for s in plan.shards] + [5])
    print(f"{'shard':<{width}}  {'entries':>14}  {'tokens':>18}")
    for shard in plan.shards:
        if shard.entries_after == shard.entries_before:
            continue  # untouched shards are in the total only
        entries = f"{shard.entries_before} -> {shard.entries_after}"
        tokens = f"{shard.tokens_before} -> {shard.tokens_after}"
        print(f"{shard.name:<{width}}  {entries:>14}  {tokens:>18}")
    total = f"{plan.total_before} -> {plan.total_after}"
    print(f"{'total':<{width}}  {'':>14}  {total:>18}  ({_percent(plan.total_after, plan.budget)}% of the budget)")


def _nothing(plan: Any) -> str:
    if not plan.due and not plan.forced:
        return "not above the compaction threshold: nothing to do (--force compacts down to the target)"
    if plan.total_before <= plan.target:
        return "already at or below the target: nothing to do"
    protected = sum(s.protected for s in plan.shards)
    free = sum(s.entries_before for s in plan.shards) - protected
    if not free:
        return f"nothing can be merged: all {protected} entries are the newest of their shards or pinned"
    return (
        f"nothing can be merged to save tokens: {protected} entries are the newest of their shards or pinned,"
        f" and a digest of the {free} others would hardly be smaller than they are (it keeps each one's first line)"
    )


def _problems(plan: Any) -> list[str]:
    """Why the target is out of reach, with the tokens each kind of entry holds and the largest entries."""
    if plan.reached or not (plan.due or plan.forced):
        return []
    protected = sum(s.protected for s in plan.shards)
    digests = sum(d.tokens for d in plan.digests)
    parts = [f"{protected} newest or pinned entries hold {plan.protected_tokens} tokens (memory.keepNewest, --pin)"]
    if plan.digests:
        parts.append(f"digests {digests} (they keep the first line of each merged note)")
    if plan.whole:
        parts.append(
            f"{plan.whole} single-line entries {plan.whole_tokens} (a digest line would cost over 3/4 of each)"
        )
    if plan.loose_tokens:
        parts.append(f"text outside entries {plan.loose_tokens} (`lh memory adopt` makes entries of it)")
    largest = ", ".join(f"{h.shard}/{h.id} {h.tokens} ({h.why})" for h in plan.holders)
    return [
        f"memory stays at {plan.total_after} tokens, above the target of {plan.target}: {'; '.join(parts)};"
        f" largest entries: {largest}. Lower memory.keepNewest, unpin or shorten entries, or raise"
        " memory.tokenBudget"
    ]


def _payload(result: Any, dry_run: bool) -> dict[str, Any]:
    plan = result.plan
    return {
        "dry_run": dry_run,
        **{key: getattr(plan, key) for key in ("forced", "due", "reached")},
        "written": list(result.written),
        **{key: getattr(plan, key) for key in ("total_before", "total_after")},
        "token_budget": plan.budget,
        "compact_threshold": plan.threshold,
        "compact_target": plan.target,
        "encoding": result.label,
        "protected_tokens": plan.protected_tokens,
        "whole_entries": plan.whole,
        "whole_tokens": plan.whole_tokens,
        "loose_tokens": plan.loose_tokens,
        "largest": [asdict(h) for h in plan.holders],  # shard, id, tokens, why
        "shards": [asdict(s) for s in plan.shards],  # name, entries and tokens before and after, protected
        "digests": [
            {
                "id": d.entry.id,
                "shard": d.shard,
                "from": d.entry.attr("from"),
                "to": d.entry.created,
                "tokens_before": d.tokens_before,
                "tokens_after": d.tokens,
                "repeated_lines_left_out": d.dropped,
                "text": d.entry.text,
                "sources": [
                    {"id": e.id, "created": e.created, "title": e.title, "why": why}
                    for e, why in zip(d.sources, d.reasons, strict=True)
                ],
            }
            for d in plan.digests
        ],
    }
