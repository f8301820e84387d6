"""`lh memory verify`: check every note's references against the project files; exit 1 when any is stale."""

from __future__ import annotations

import argparse
from contextlib import suppress
from typing import Any

from lean_harness.commands import emit, open_memory
from lean_harness.errors import LhError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fix", action="store_true", help="re-anchor moved references (changed ones are left)")


def run(args: argparse.Namespace) -> int:
    from lean_harness.memory import status
    from lean_harness.memory.evidence import checked, stale

    memory = open_memory()
    memory.check_dir()
    fixed: tuple[Any, ...] = ()
    if args.fix:
        outcome = stale.fix(memory, status.write_index)
        result, fixed = outcome.before, outcome.moved
    else:
        with memory.reading():
            result = stale.report(memory)
        # INDEX.md's stale figure as found, without waiting for another lh; a read-only checkout is checked anyway
        with suppress(LhError, OSError), memory.writing(timeout=0):
            status.write_index(memory, checked=result.entries)
    findings = [(e, f) for e in result.entries for f in e.findings]
    counts = {status: sum(f.status == status for _, f in findings) for status in checked.STATUSES}
    if args.json:
        emit(
            "memory verify",
            {
                "entries": len(result.entries),
                "references": len(findings),
                "counts": counts,
                "stale": [f"{e.shard}/{e.id}" for e in result.stale],
                "findings": [
                    {"shard": e.shard, "id": e.id, **reference_json(f)} for e, f in findings if f.status != "fresh"
                ],
                "fixed": len(fixed),
            },
            [e.problem for e in result.entries if e.problem],
        )
    else:
        for entry, finding in findings:
            if finding.status != "fresh":
                print(describe(entry.shard, entry.id, finding, fixed=bool(fixed)))
        for entry in result.entries:
            if entry.problem:
                again = f"lh memory put {entry.shard} TEXT --id {entry.id} --ref ..."
                print(f'{entry.problem}; fix the attribute by hand, or run "{again}"')
        tally = ", ".join(f"{counts[status]} {status}" for status in counts)
        print(f"{plural(len(findings), 'reference')} in {plural(len(result.entries), 'entry', 'entries')}: {tally}")
        if fixed:
            print(f"re-anchored {plural(len(fixed), 'moved reference')}")
        elif counts["moved"]:
            print('run "lh memory verify --fix" to re-anchor the moved references')
        if result.stale:
            print(
                f"{plural(len(result.stale), 'stale entry', 'stale entries')}: read the cited code, then update each"
                ' note (lh memory put SHARD "text" --id KEY --ref PATH#Lstart-end) or delete it'
            )
    return 1 if result.stale else 0


def plural(count: int, one: str, many: str = "") -> str:
    """`1 reference`, `2 references`."""
    return f"{count} {one}" if count == 1 else f"{count} {many or one + 's'}"


def describe(shard: str, key: str, finding: Any, *, fixed: bool = False) -> str:
    """One line naming the entry, the reference and what happened to it."""
    anchor = finding.anchor
    head = f"{shard}/{key}: {anchor.spec} ({anchor.lines})"
    if finding.status == "moved":
        verb = "re-anchored at" if fixed else "moved to"
        return f"{head} {verb} {finding.now.spec}"
    if finding.status == "changed":
        return f"{head} changed" + (f" (the file is now {finding.renamed_to})" if finding.renamed_to else "")
    return f"{head} missing (the file is gone)"


def reference_json(finding: Any) -> dict[str, Any]:
    """One reference: what it cites, its status, where it is now."""
    anchor = finding.anchor
    return {
        "ref": anchor.spec,
        "path": anchor.path,
        "lines": [anchor.start, anchor.end] if anchor.start else None,
        "status": finding.status,
        "now": finding.now.spec if finding.now is not None else None,
        "renamed_to": finding.renamed_to or None,
    }
