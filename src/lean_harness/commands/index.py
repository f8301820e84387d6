"""`lh memory index`: regenerate INDEX.md, or check that it is fresh."""

from __future__ import annotations

import argparse
import sys

from lean_harness.commands import emit, open_memory


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", action="store_true", help="exit 1 when INDEX.md is stale; change nothing")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory import status
    from lean_harness.memory.compaction import archive

    result = status.reindex(open_memory(), check=args.check, settle=archive.settle)
    stale = [f'{result.path} is stale; run "lh memory index"'] if args.check and not result.fresh_before else []
    if args.json:
        emit(
            "memory index",
            {
                "path": result.path,
                "fresh": result.fresh_before,
                **{key: getattr(result, key) for key in ("written", "tokens", "budget", "titles")},
                "duplicates": list(result.duplicates),
                "clashes": list(result.clashes),
            },
            [*stale, *result.clashes],
        )
    elif args.check:
        for line in (*result.duplicates, *result.clashes):
            print(line, file=sys.stderr)
        if result.fresh_before:
            print(f"{result.path} is up to date ({result.tokens} of {result.budget} tokens)")
        else:
            print(stale[0], file=sys.stderr)
    else:
        for line in result.duplicates:
            print(f"removed a copy: {line}")
        for line in result.clashes:
            print(line, file=sys.stderr)
        state = "written" if result.written else "unchanged"
        print(f"{result.path} {state} ({result.tokens} of {result.budget} tokens, {result.titles} newest titles)")
    if result.tokens > result.budget:
        print(f"warning: {result.path} is over its token budget", file=sys.stderr)
    return 1 if stale or result.clashes else 0
