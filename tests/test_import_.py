"""lh memory import (commands/import_.py): what it says it did or would do, and the arguments it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import lh, snapshot
from test_importing import run_import


def test_dry_run_says_what_would_happen_and_writes_nothing(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(project)
    capsys.readouterr()
    assert run_import("../sources/memory-md", "--dry-run") == 0
    assert capsys.readouterr().out == (
        "would add corrections/prefer-uv (../sources/memory-md/feedback_uv.md)\n"
        "would add seed/dashboards (../sources/memory-md/reference_dashboards.md)\n"
        "would add personal/user_role (../sources/memory-md/user_role.md)\n"
        "dry run: memory-md ../sources/memory-md: 3 record(s); 3 would add, 0 already imported, 0 conflict(s),"
        " 0 refused; nothing was written\n"
    )
    assert snapshot(project) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param((), "give a SOURCE to import or --from claude-code, not both or neither", id="neither"),
        pytest.param(
            ("notes", "--from", "claude-code"),
            "give a SOURCE to import or --from claude-code, not both or neither",
            id="both",
        ),
        pytest.param(
            ("--from", "claude-code", "--format", "jsonl"),
            "--from claude-code reads the memory-md format, not jsonl",
            id="another-format",
        ),
    ],
)
def test_a_source_and_a_format_that_cannot_go_together_are_refused_in_one_line(
    project: Path, args: tuple[str, ...], message: str
) -> None:
    before = snapshot(project)
    done = lh("memory", "import", *args, cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message + "\n")
    envelope = lh("memory", "import", *args, "--json", cwd=project)
    assert (envelope.returncode, json.loads(envelope.stdout)["problems"]) == (2, [message])
    assert snapshot(project) == before
