"""`lh demo`: init, two puts and status in a throwaway project."""

from __future__ import annotations

import argparse
from pathlib import Path

from lean_harness.commands.put import print_put
from lean_harness.commands.status import print_status


def run(args: argparse.Namespace) -> int:
    import tempfile

    from lean_harness import init
    from lean_harness.config import load
    from lean_harness.memory import handle, status, writes

    with tempfile.TemporaryDirectory(prefix="lh-demo-") as folder:
        root = Path(folder)
        print(f"$ lh init   (in a throwaway project, {root.as_posix()})")
        for path in init.run(root).created:
            print(f"created {path}")
        memory = handle.open_memory(load(root))
        notes = [
            (
                "failures",
                "test_lock hangs on Windows: the lock file was opened in text mode; open it binary.",
                ["windows"],
            ),
            ("conventions", "Run nox before pushing; CI runs the same sessions.", []),
        ]
        for shard, text, tags in notes:
            print(f'\n$ lh memory put {shard} "{text}"')
            print_put(writes.put(memory, shard, text, tags=tags))
        print("\n$ lh memory status")
        print_status(status.status(memory))
        print(f"\n$ cat {memory.shown(memory.index_path)}")
        print(memory.index_path.read_text("utf-8"), end="")
    return 0
