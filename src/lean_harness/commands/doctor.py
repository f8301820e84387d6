"""`lh doctor`: check the project's harness (or, with --plugin, a plugin) and fix what is safe."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict, replace
from pathlib import Path

from lean_harness.commands import emit, project_root
from lean_harness.errors import LhError

MARKS = {"ok": "ok", "warn": "warn", "fail": "FAIL", "skip": "skip"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fix", action="store_true", help="repair what is safe (INDEX.md, managed blocks, shards)")
    parser.add_argument(
        "--plugin",
        nargs="?",
        const=".",
        metavar="DIR",
        help="check the plugin in DIR (default: here) instead of the project",
    )


def run(args: argparse.Namespace) -> int:
    from lean_harness import doctor

    fixed: list[str] = []
    unfixed: list[str] = []
    if args.plugin is not None:
        if args.fix:
            raise LhError("lh doctor: --fix repairs a project, not a plugin; run it without --plugin")
        from lean_harness.doctor import plugin

        command, results = "doctor --plugin", plugin.run_plugin(Path(args.plugin))
    else:
        from lean_harness.doctor.project import CHECKS, open_project

        project = open_project(project_root())
        if args.fix:
            from lean_harness.doctor.fix import fix

            fixed, unfixed = fix(project)
            project = replace(project)  # what the fixes changed is read afresh
        command, results = "doctor", doctor.apply(CHECKS, project)
    counts = {status: sum(r.status == status for r in results) for status in doctor.STATUSES}
    if args.json:
        emit(
            command,
            {
                "ok": not counts["fail"],
                "counts": counts,
                "checks": [{"id": r.id, **asdict(r)} for r in results],
                "fixed": fixed,
                "not_fixed": unfixed,
            },
            [f"{r.id}: {r.message}" for r in results if r.status == "fail"],
        )
    else:
        for line in fixed:
            print(f"fixed: {line}")
        for line in unfixed:
            print(f"not fixed: {line}", file=sys.stderr)
        width = max(len(r.id) for r in results)
        for r in results:
            print(f"{MARKS[r.status]:<4}  {r.id:<{width}}  {r.message}")
            for line in r.details:
                print(f"{'':<4}  {'':<{width}}  {line}")
            if r.fix and r.status in ("warn", "fail"):
                print(f"{'':<4}  {'':<{width}}  fix: {r.fix}")
        summary = ", ".join(f"{counts[s]} {s}" for s in doctor.STATUSES if counts[s])
        print(f"lh doctor: {summary}", file=sys.stderr if counts["fail"] else sys.stdout)
    return 1 if counts["fail"] else 0
