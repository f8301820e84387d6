"""`lh memory note`: drop a note in the pending inbox without waiting for other writers."""

from __future__ import annotations

import argparse
import contextlib

from lean_harness.commands import add_allowances, emit, open_memory
from lean_harness.commands.put import read_text_arg


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", metavar="TEXT", help="the note (- reads stdin)")
    parser.add_argument("--shard", metavar="S", help="the shard it belongs in (default: decided at consolidation)")
    parser.add_argument("--tag", action="append", default=[], metavar="T", help="a tag (repeatable)")
    add_allowances(parser)


def run(args: argparse.Namespace) -> int:
    from lean_harness.errors import LhError
    from lean_harness.memory.intake import inbox
    from lean_harness.memory.status import write_index

    memory = open_memory()
    path = inbox.write_note(
        memory,
        read_text_arg(args.text),
        shard=args.shard,
        tags=args.tag,
        allow=args.allow_secret,
        allow_directives=args.allow_directive,
    )
    # INDEX.md counts pending notes. A note never waits for another writer: when one holds the
    # lock, INDEX.md is left to it or to the next write (`lh memory index` says if it is stale).
    with contextlib.suppress(LhError), memory.writing(timeout=0):
        write_index(memory)
    if args.json:
        emit("memory note", {"path": memory.shown(path)})
    else:
        print(f'noted in {memory.shown(path)}; "lh memory consolidate" merges pending notes into the shards')
    return 0
