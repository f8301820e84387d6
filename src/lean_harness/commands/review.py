"""`lh memory review`: a worklist of likely contradictions, duplicates, superseded, stale and pending notes."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from lean_harness.commands import emit, open_memory


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory.intake.review import review

    findings = review(open_memory())
    if args.json:
        emit("memory review", {"findings": [asdict(f) for f in findings]})
        return 0
    for finding in findings:
        names = " | ".join(f"{e.shard or 'pending'}/{e.id} {e.title}" for e in finding.entries)
        print(f"{finding.kind}: {names}\n  {finding.why}")
    print(f"{len(findings)} findings" if findings else "nothing to review")
    return 0
