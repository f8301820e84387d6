"""`lh doctor`: checks that say whether a project's harness, or a plugin, is healthy; no printing.

A check is a function from what it inspects (a Project, a plugin folder) to a Verdict; the registries
are the tuples `project.CHECKS` and `plugin.CHECKS`, and a check's id is its name with hyphens. Every
check runs, even after a failure, so one run shows everything that is wrong (adr/0013-doctor.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar

from lean_harness.errors import LhError
from lean_harness.files import display

if TYPE_CHECKING:
    from lean_harness import config as config_mod
    from lean_harness.memory.handle import Memory

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
class Result(Verdict):
    """A verdict with the id of the check that gave it."""

    id: str = ""


@dataclass
class Project:
    """What the checks inspect: the root, the config if it loaded, and state found on the way."""

    root: Path
    config: config_mod.Config | None
    config_problems: tuple[str, ...] = ()
    git_top: str | None = None  # the work tree's top folder, or None
    git_missing: str = ""  # why git checks cannot run

    @cached_property
    def memory(self) -> Memory | None:
        from lean_harness.memory.handle import open_memory

        return open_memory(self.config) if self.config is not None else None

    @cached_property
    def shard_state(self) -> tuple[list[str], list[str]]:
        """Configured shards that do not exist, and a message for each that does not parse."""
        missing: list[str] = []
        broken: list[str] = []
        memory = self.memory
        if memory is None or not memory.config.memory_dir.is_dir():
            return missing, broken
        for name in memory.config.shard_names:
            path = memory.shard_path(name)
            if not path.exists() and not path.is_symlink():
                missing.append(memory.shown(path))
                continue
            try:
                memory.summary(name)
            except LhError as error:
                broken.append(error.message)
        return missing, broken

    @cached_property
    def memory_files(self) -> dict[Path, bytes]:
        """Each file in the memory folder (lh's caches aside) and its bytes, read once for every scan."""
        assert self.config is not None
        folder = self.config.memory_dir
        return {
            path: path.read_bytes()
            for path in sorted(folder.rglob("*"))
            if ".cache" not in path.relative_to(folder).parts and path.is_file() and not path.is_symlink()
        }

    def shown(self, path: Path) -> str:
        return display(path, self.root)


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
        results.append(Result(**vars(verdict), id=check.__name__.replace("_", "-")))
    return results


def listed(lines: Sequence[str], fix: str, ok: str = "", status: Status = "fail") -> Verdict:
    """`ok` when there are no lines, else `status` with the first line and the others as details."""
    if not lines:
        return Verdict("ok", ok)
    return Verdict(status, lines[0], fix, tuple(lines[1:]))
