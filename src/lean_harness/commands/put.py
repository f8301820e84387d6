"""`lh memory put`: store a note, update one in place, or find it already stored."""

from __future__ import annotations

import argparse
import functools
import sys
from typing import TYPE_CHECKING

from lean_harness.commands import add_allowances, emit, open_memory
from lean_harness.errors import LhError

if TYPE_CHECKING:
    from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shard", metavar="SHARD")
    parser.add_argument("text", metavar="TEXT")
    parser.add_argument(
        "--tag",
        action="append",
        default=[],
        metavar="T",
        help="a word someone will have in hand when they need the note (repeatable); with --id, replaces the tags",
    )
    parser.add_argument("--no-tags", action="store_true", help="with --id: drop the entry's tags")
    parser.add_argument("--id", dest="key", metavar="KEY", help="update the entry KEY in place, or create it")
    parser.add_argument("--pin", action="store_true", help="tag the entry pinned: compaction never merges it")
    parser.add_argument(
        "--ref",
        dest="refs",
        action="append",
        metavar="PATH[#Lstart[-Lend]]",
        help="a project file (and lines) the note is about; with --id, replaces the entry's references (repeatable)",
    )
    parser.add_argument("--no-refs", action="store_true", help="with --id: drop the entry's references")
    add_allowances(parser)
    parser.add_argument(
        "--supersedes",
        action="append",
        default=[],
        metavar="ID",
        help="move entry ID (any shard) to the archive, pointing to this one (repeatable)",
    )


def read_text_arg(value: str) -> str:
    if value != "-":
        return value
    try:
        return sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError:
        raise LhError("standard input is not valid UTF-8; nothing was written") from None


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory import writes

    memory = open_memory()
    tags = [*args.tag, "pinned"] if args.pin else args.tag
    if args.no_tags and tags:
        raise LhError("--no-tags drops the tags and --tag or --pin sets them; give one of them")
    if args.no_refs and args.refs:
        raise LhError("--no-refs drops the references and --ref sets them; give one of them")
    store, args.supersedes = writes.put, list(dict.fromkeys(args.supersedes))
    if args.supersedes:
        from lean_harness.memory.compaction import archive

        store = functools.partial(archive.put, supersedes=args.supersedes)
    result = store(
        memory,
        args.shard,
        read_text_arg(args.text),
        tags=[] if args.no_tags else tags or None,  # None: an updated entry keeps its tags
        key=args.key,
        allow=args.allow_secret,
        allow_directives=args.allow_directive,
        refs=[] if args.no_refs else args.refs,
    )
    next_merge = _next_merge(memory, result)
    if args.json:
        totals = result.totals
        emit(
            "memory put",
            {
                **{key: getattr(result, key) for key in ("id", "shard", "action", "entry_tokens", "shard_tokens")},
                "total_tokens": totals.tokens,
                "token_budget": totals.budget,
                "compact_threshold": totals.threshold,
                "compaction_due": totals.compaction_due,
                "next_compaction_merges": next_merge,
                "encoding": result.label,
                "superseded": args.supersedes,
            },
        )
    else:
        print_put(result)
        if args.supersedes:
            print(f"superseded {', '.join(args.supersedes)}: moved to the archive (lh memory expand ID --print)")
        if next_merge:
            shown = ", ".join(next_merge[:5]) + (f" and {len(next_merge) - 5} more" if len(next_merge) > 5 else "")
            print(f"next compaction would merge {len(next_merge)} entries: {shown}", file=sys.stderr)
    return 0


def _next_merge(memory: Any, result: Any) -> list[str]:
    """SHARD/ID of each entry the next compaction would merge, when this put crossed the threshold."""
    totals = result.totals
    crossed = result.action != "unchanged" and totals.tokens - result.entry_tokens <= totals.threshold
    if not totals.compaction_due or not crossed:
        return []  # not due, or due before this put (its warning says so)
    from lean_harness.memory.compaction import archive

    return [f"{d.shard}/{e.id}" for d in archive.compact(memory, dry_run=True).plan.digests for e in d.sources]


def print_put(result: Any) -> None:
    verb = {"added": "added", "updated": "updated", "unchanged": "already stored as"}[result.action]
    print(f"{verb} {result.id} in {result.shard} ({result.entry_tokens} tokens)")
    print_totals(f"{result.shard}: {result.shard_tokens}", result.totals, 'run "lh memory compact"')


def print_totals(shard: str, totals: Any, then: str) -> None:
    """A shard's tokens after a write, the memory's against its budget, and what to run when compaction is due."""
    print(f"{shard} tokens; memory: {totals.tokens} of {totals.budget} tokens ({totals.percent}%)")
    if totals.compaction_due:
        print(
            f"warning: memory is over its compaction threshold ({totals.compact_at_percent}% of {totals.budget}"
            f" tokens); {then}",
            file=sys.stderr,
        )
