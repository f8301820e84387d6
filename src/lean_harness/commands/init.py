"""`lh init`: set up the config, the memory and the managed git blocks."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lean_harness.commands import emit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace the config with defaults (kept as .bak) or adopt an existing memory dir",
    )
    parser.add_argument(
        "--agents-md",
        action="store_true",
        help="also add a short pointer to the memory in AGENTS.md and CLAUDE.md (a marked block)",
    )


def run(args: argparse.Namespace) -> int:
    from lean_harness import init, pointer
    from lean_harness.files import display, refuse_symlink

    root = Path.cwd().resolve()
    if args.agents_md:
        for path in pointer.targets(root):
            refuse_symlink(path, root)  # refused before init writes anything
    result = init.run(root, force=args.force)
    pointed: list[pointer.PointerResult] = []
    if args.agents_md:
        from lean_harness.config import load

        memory_dir = display(load(root).memory_dir, root)
        pointed = [p for p in pointer.write(root, memory_dir) if p.action != "unchanged"]
    unlisted = [f"{line} (not in the config: status, INDEX.md and queries leave it out)" for line in result.unlisted]
    if args.json:
        emit(
            "init",
            {
                "root": result.root.as_posix(),
                "created": list(result.created),
                "updated": list(result.updated),
                "pointer": [{"path": p.path, "action": p.action} for p in pointed],
            },
            unlisted,
        )
        return 0
    for line in unlisted:
        print(f"warning: {line}", file=sys.stderr)
    if not result.created and not result.updated and not pointed:
        print("lean-harness is already set up here; nothing changed")
        return 0
    for shown in result.created:
        print(f"created {shown}")
    for shown in result.updated:
        print(f"updated {shown}")
    for p in pointed:
        print(f"{p.action} {p.path}")
    print('next: lh memory put SHARD "a note", then lh memory status')
    return 0
