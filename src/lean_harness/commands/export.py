"""`lh memory export`: every entry with its metadata, as jsonl that `lh memory import` reads back."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lean_harness.commands import masked, open_memory


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", default="jsonl", choices=("jsonl",), help="the output format (default jsonl)")
    parser.add_argument("--personal", action="store_true", help="include the personal scope's entries")
    parser.add_argument("--output", "-o", metavar="FILE", help="write to FILE (default: standard output)")


def run(args: argparse.Namespace) -> int:
    from lean_harness.files import write_text
    from lean_harness.memory.intake.formats import jsonl
    from lean_harness.memory.leaks import mask_entry
    from lean_harness.memory.shard import Entry

    memory = open_memory()
    memory.check_dir()
    names = memory.config.shard_names if args.personal else memory.config.shared_names
    with memory.reading():
        found = [(name, entry, *mask_entry(entry)) for name in names for entry in memory.entries(name)]  # text masked
    warnings = [
        f"{memory.shown(memory.shard_path(name))}:{entry.line}: entry {entry.id} holds what looks like"
        f" {findings[0].description}; exported masked"
        for name, entry, _, findings in found
        if findings
    ]
    rows = [(name, Entry(entry.id, entry.created, text, entry.tags, entry.extra)) for name, entry, text, _ in found]
    # An export is a file shared with others: every field of every record goes through the mask,
    # the id, tags, refs and any attribute edited by hand as much as the text.
    text = jsonl.lines(masked([jsonl.record(name, entry) for name, entry in rows]))
    if args.output:
        write_text(Path(args.output), text)
        print(f"exported {len(rows)} entries to {Path(args.output).as_posix()}")
    else:
        sys.stdout.write(text)
    for line in warnings:
        print(f'warning: {line}; run "lh memory scan"', file=sys.stderr)
    return 1 if warnings else 0
