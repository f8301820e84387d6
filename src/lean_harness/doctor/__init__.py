"""`lh doctor`: checks that say whether a project's harness, or a plugin, is healthy; no printing.

A check is a function from what it inspects (a Project, a plugin folder) to a Verdict; the registries
are the tuples `project.CHECKS` and `plugin.CHECKS`, and a check's id is its name with hyphens. Every
check runs, even after a failure, so one run shows everything that is wrong (adr/0013-doctor.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

from lean_harness.errors import LhError

Status = Literal["ok", "warn", "fail", "skip"]
STATUSES: tuple[Status, ...] = ("ok", "warn", "fail", "skip")
Subject_contra = TypeVar("Subject_contra", contravariant=True)
Subject = TypeVar("Subject")


@dataclass(frozen=True)
class Verdict:
    """What one check found: status, one line, a fix hint, and more lines when there are several."""

    status: Status
    message: str
    fix: str = ""
    details: tuple[str, ...] = ()


NO_CONFIG = Verdict("skip", "skipped: the config did not load (see the config check)")


@dataclass(frozen=True)
class Result:
    """A verdict with the id of the check that gave it."""

    id: str
    status: Status
    message: str
    fix: str = ""
    details: tuple[str, ...] = ()


class Check(Protocol[Subject_contra]):
    """A doctor check: inspect the subject, return a verdict; never write, never print."""

    __name__: str

    def __call__(self, subject: Subject_contra, /) -> Verdict: ...


def apply(checks: Sequence[Check[Subject]], subject: Subject) -> list[Result]:
    """Run every check on the subject; a check stopped by a user-facing error fails with its message."""
    results: list[Result] = []
    for check in checks:
        try:
            verdict = check(subject)
        except LhError as error:
            verdict = listed(error.message.splitlines() or [""], "fix what the line says, then run lh doctor again")
        results.append(
            Result(check.__name__.replace("_", "-"), verdict.status, verdict.message, verdict.fix, verdict.details)
        )
    return results


def listed(lines: Sequence[str], fix: str, ok: str = "", status: Status = "fail") -> Verdict:
    """`ok` when there are no lines, else `status` with the first line and the others as details."""
    if not lines:
        return Verdict("ok", ok)
    return Verdict(status, lines[0], fix, tuple(lines[1:]))


def failed(results: Sequence[Result]) -> bool:
    """True when any check failed."""
    return any(r.status == "fail" for r in results)
