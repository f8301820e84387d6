"""`lh init`: set up the config, the memory and the managed git blocks."""

from __future__ import annotations

import argparse
from pathlib import Path

from lean_harness.commands import emit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `lh init`."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the config with defaults (kept as .bak) or adopt an existing memory dir",
    )
    parser.add_argument("--json", action="store_true", help="print versioned JSON")


def run(args: argparse.Namespace) -> int:
    from lean_harness import init

    result = init.run(Path.cwd(), force=args.force)
    if args.json:
        emit("init", {"root": result.root.as_posix(), "created": list(result.created), "updated": list(result.updated)})
        return 0
    if not result.created and not result.updated:
        print("lean-harness is already set up here; nothing changed")
        return 0
    for path in result.created:
        print(f"created {path}")
    for path in result.updated:
        print(f"updated {path}")
    print('next: lh memory put SHARD "a note", then lh memory status')
    return 0
