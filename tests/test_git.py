"""doctor/git.py: what git ignores and how it merges the memory, skipped outside git."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_doctor import (
    MEMORY,
    _append,
    _lines,
    _remove,
    doctor,
    each_check_says,
)


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


test_each_git_check_names_the_file_and_the_fix = each_check_says(GIT_CASES)
