"""doctor/git.py: what git ignores and how it merges the memory, skipped outside git."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lean_harness.cli import main
from test_doctor import (
    MEMORY,
    _append,
    _lines,
    _remove,
    check_says,
    doctor,
    git,
)


@pytest.fixture
def repo(project: Path) -> Path:
    """An initialised project in a real git repository, with one entry."""
    git(project, "init", "-q")
    assert main(["memory", "put", "failures", "test_lock hangs on Windows: open the lock file in binary mode"]) == 0
    return project


def test_outside_git_the_git_checks_are_skipped(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, checks = doctor(capsys)
    assert code == 0
    for key in ("git-ignore", "git-merge"):
        assert (checks[key]["status"], checks[key]["message"]) == ("skip", "skipped: not in a git repository")


GIT_CASES = [
    pytest.param(
        _remove(".gitignore"),
        "git-ignore",
        "fail",
        ".cache/ is not ignored by git (tried .cache/lh-doctor-probe)",
        "lh doctor --fix adds the managed .gitignore block; remove or negate the ignore rule that git names",
        id="ignored-not-ignored",
    ),
    pytest.param(
        _append(".gitignore", "adr/\n"),
        "git-ignore",
        "fail",
        lambda root: (
            f"adr/lh-doctor-probe.md is ignored by git (.gitignore:{_lines(root / '.gitignore')}: adr/)"
            " but belongs in git (adr/)"
        ),
        "lh doctor --fix adds the managed .gitignore block; remove or negate the ignore rule that git names",
        id="committed-ignored",
    ),
    pytest.param(
        _remove(".gitattributes"),
        "git-merge",
        "fail",
        f"git merges {MEMORY}/seed.md with merge=unspecified, not union, so branches that add entries conflict",
        "lh doctor --fix (adds the managed .gitattributes block)",
        id="merge-attribute-missing",
    ),
]


@pytest.mark.parametrize(("breaker", "check", "status", "message", "fix"), GIT_CASES)
def test_each_git_check_names_the_file_and_the_fix(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    breaker: Callable[[Path], None],
    check: str,
    status: str,
    message: str | Callable[[Path], str],
    fix: str,
) -> None:
    check_says(repo, capsys, breaker, check, status, message, fix)
