"""`lh memory expand`: put a digest's entries back from the archive, or with --print only show them."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lean_harness.commands import emit, open_memory
from lean_harness.commands.put import print_totals


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "digest",
        metavar="DIGEST_ID",
        help="the id of a digest written by lh memory compact (with --print, or of a superseded entry)",
    )
    parser.add_argument("--print", action="store_true", help="print the entries it stands for and write nothing")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory.compaction import archive

    if args.print:
        return _print(args)
    result = archive.expand(open_memory(), args.digest)
    totals = result.totals
    if args.json:
        emit(
            "memory expand",
            {
                **{key: getattr(result, key) for key in ("digest", "shard", "restored", "archive")},
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
    then = '"lh memory compact" would merge old entries again'
    print_totals(f"{result.shard}: {result.tokens_before} -> {result.tokens_after}", totals, then)
    return 0


def _print(args: argparse.Namespace) -> int:
    """The digest's entries as `lh memory get` prints a shard's, credentials masked; nothing is written."""
    from lean_harness.memory.compaction import archive
    from lean_harness.memory.leaks import mask_entry

    memory = open_memory()
    chain = archive.history(memory, args.digest)
    if chain:
        return _print_chain(args, chain)
    shown = archive.show(memory, args.digest)
    rows = [(entry, *mask_entry(entry)) for entry in shown.entries]
    warnings = [
        f"{shown.archive}:{entry.line + f.line}: entry {entry.id} holds what looks like {f.description} (masked here)"
        for entry, _, findings in rows
        for f in findings
    ]
    if args.json:
        entries = [{"id": e.id, "created": e.created, "tags": list(e.tags), "text": text} for e, text, _ in rows]
        emit(
            "memory expand",
            {"digest": shown.digest, "shard": shown.shard, "archive": shown.archive, "entries": entries, "written": []},
            warnings,
        )
        return 0
    for line in warnings:
        print(f"warning: {line}", file=sys.stderr)
    print(f"digest {shown.digest} of {shown.shard} stands for {len(rows)} entries, kept in {shown.archive}:")
    for entry, text, _ in rows:
        tags = "".join(f" #{t}" for t in entry.tags)
        print(f"\n[{entry.id}] {entry.created}{tags}")
        print(text)
    return 0


def _print_chain(args: argparse.Namespace, chain: Any) -> int:
    """The supersession chain of an entry, oldest first, credentials masked; nothing is written."""
    from lean_harness.memory.leaks import mask_entry

    rows = [(link, mask_entry(link.entry)[0]) for link in chain]
    if args.json:
        entries = [
            {"id": k.entry.id, "shard": k.shard, "created": k.entry.created, "text": text, "superseded_by": k.successor}
            for k, text in rows
        ]
        emit("memory expand", {"chain": entries, "written": []})
        return 0
    print(f"entry {args.digest} is one of {len(rows)} in a chain of supersessions, oldest first:")
    for link, text in rows:
        state = f"superseded by {link.successor} ({link.where})" if link.successor else f"live in {link.shard}"
        print(f"\n[{link.entry.id}] {link.entry.created} {state}")
        print(text)
    return 0
