"""`lh memory scan`: find credentials in memory files, the config and lh's caches, or the given files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lean_harness.commands import emit, open_memory
from lean_harness.errors import LhError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: the memory dir)")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory.leaks import project_files, scan_paths

    derived: list[Path] = []
    if args.paths:
        if not all(args.paths):
            raise LhError("lh memory scan: PATH is empty; give a file or folder, or no PATH to scan the memory")
        root = Path.cwd()
        paths = [Path(p) for p in args.paths]
    else:
        memory = open_memory()
        memory.check_dir()
        root, (paths, derived) = memory.root, project_files(memory.config)
    leaks, skipped = scan_paths(paths, root, derived)
    if args.json:
        from dataclasses import asdict

        emit("memory scan", {"findings": [asdict(leak) for leak in leaks], "skipped": skipped})
        return 1 if leaks else 0
    for leak in leaks:
        where = f" (entry {leak.entry})" if leak.entry else ""
        print(f"{leak.path}:{leak.line}:{leak.column}: {leak.description}{where}: {leak.preview} [rule {leak.rule}]")
    for line in skipped:
        print(line, file=sys.stderr)
    if leaks:
        print(
            f"{len(leaks)} possible credential(s); remove them from the files (and rotate them if they are real),"
            " or mark a false positive with --allow-secret RULE on lh memory put",
            file=sys.stderr,
        )
        return 1
    print("no credentials found")
    return 0
