"""environment.py: LH_* settings are checked like config."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support import lh, snapshot


def one_line_error(result: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The error a failed command printed: one line, no traceback."""
    assert result.returncode == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    return result.stderr.rstrip("\n")


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        pytest.param(
            "LH_LOCK_TIMEOUT",
            "abc",
            "LH_LOCK_TIMEOUT='abc' is not a number of seconds from 0 to 86400; set it to one (for instance 30)"
            " or unset it",
            id="timeout-text",
        ),
        pytest.param(
            "LH_LOCK_TIMEOUT",
            "-1",
            "LH_LOCK_TIMEOUT='-1' is not a number of seconds from 0 to 86400; set it to one (for instance 30)"
            " or unset it",
            id="timeout-negative",
        ),
        pytest.param(
            "SOURCE_DATE_EPOCH",
            "yesterday",
            "SOURCE_DATE_EPOCH='yesterday' is not a number of seconds since 1970; set it to one"
            " (for instance 1767225600) or unset it",
            id="epoch-text",
        ),
    ],
)
def test_environment_settings_are_checked_like_config(project: Path, name: str, value: str, message: str) -> None:
    before = snapshot(project)
    assert one_line_error(lh("memory", "put", "seed", "a note", cwd=project, env={name: value})) == message
    assert snapshot(project) == before
