"""`lh memory consolidate`: merge the pending notes into the shards, each exactly once."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from lean_harness.commands import emit, open_memory
from lean_harness.errors import LhError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true", help="say what would happen and write nothing")
    parser.add_argument(
        "--plan", action="store_true", help="print the pending notes and their snapshot id as JSON, for a receipt"
    )
    parser.add_argument("--review", action="store_true", help="with --plan: add the findings of lh memory review")
    parser.add_argument("--apply", metavar="RECEIPT", help="check a receipt (a JSON file, - for stdin), then write it")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory.intake import inbox

    memory = open_memory()
    if args.plan or args.apply:
        return _plan(args, memory) if args.plan else _apply(args, memory)
    result = inbox.consolidate(memory, dry_run=args.dry_run)
    kept = [f"{n.note}: {n.detail}; kept in the inbox" for n in result.notes if n.action == "kept"]
    if args.json:
        notes = [asdict(n) for n in result.notes]  # note, action, shard, id, detail
        emit("memory consolidate", {"dry_run": result.dry_run, "notes": notes}, kept)
        return 1 if kept else 0
    verb = "would add" if result.dry_run else "added"
    for n in result.notes:
        if n.action == "added":
            print(f"{verb} {n.shard}/{n.id} ({n.note})")
    for line in kept:
        print(line, file=sys.stderr)
    summary = (
        f"{len(result.notes)} pending note(s): {result.count('added')} {verb},"
        f" {result.count('unchanged')} already stored, {len(kept)} kept"
    )
    print(f"dry run: {summary}; nothing was written" if result.dry_run else summary)
    return 1 if kept else 0


def _plan(args: argparse.Namespace, memory: Any) -> int:
    from lean_harness.memory.intake import inbox
    from lean_harness.memory.intake.review import review

    snapshot, rows = inbox.plan(memory)
    notes = [{"id": n.path.name, "shard": shard, "text": text, "sha256": n.sha256} for n, shard, text in rows]
    findings = [asdict(f) for f in review(memory) if f.kind != "pending"] if args.review else []
    emit("memory consolidate", {"snapshot": snapshot, "notes": notes, "findings": findings})  # for an agent: JSON
    return 0


def _apply(args: argparse.Namespace, memory: Any) -> int:
    from lean_harness.memory.intake import inbox

    where = "standard input" if args.apply == "-" else args.apply
    try:
        text = sys.stdin.read() if args.apply == "-" else Path(args.apply).read_text(encoding="utf-8")
        receipt = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise LhError(f"{where}: not a receipt lh can read ({type(error).__name__}); nothing was written") from None
    if not isinstance(receipt, dict):
        raise LhError(f"{where}: a receipt is a JSON object; nothing was written")
    written = inbox.apply(memory, receipt, where)
    if args.json:
        emit("memory consolidate", {"snapshot": receipt["snapshot"], "entries": [f"{s}/{k}" for s, k in written]})
    else:
        names = ", ".join(f"{shard}/{key}" for shard, key in written) or "no entries"
        print(f"applied receipt for snapshot {receipt['snapshot']}: {names}")
    return 0
