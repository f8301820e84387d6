"""lh memory note: a note dropped in the pending inbox, outside the budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.config import load
from lean_harness.memory import handle, status
from support import lh, snapshot
from test_inbox import PENDING, aws_key_id, notes

MEMORY = ".agents/memory"


def test_a_note_is_one_file_in_the_inbox_outside_the_budget(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    capsys.readouterr()
    assert main(["memory", "note", "ruff and black disagree on docstrings", "--shard", "quirks", "--tag", "Lint"]) == 0
    (path,) = notes(project)
    assert capsys.readouterr().out == (
        f'noted in {PENDING}/{path.name}; "lh memory consolidate" merges pending notes into the shards\n'
    )
    assert path.read_text("utf-8") == (
        "---\ncreated: 2026-01-01T00:00:00Z\nshard: quirks\ntags: lint\n---\nruff and black disagree on docstrings\n"
    )
    assert status.status(handle.open_memory(load(project))).totals.tokens == 0
    assert main(["memory", "index"]) == 0
    assert "1 pending note(s) wait for `lh memory consolidate`." in (project / MEMORY / "INDEX.md").read_text("utf-8")


def test_a_note_with_a_credential_is_refused_and_nothing_is_written(project: Path) -> None:
    secret = aws_key_id()
    before = snapshot(project)
    result = lh("memory", "note", f"the deploy key is {secret}", cwd=project)
    assert result.returncode == 1
    assert result.stderr == (
        "refused: note: line 1 looks like an AWS access key ID (AKIA********, rule aws-access-key-id);"
        " nothing was written. If it is not a secret, pass --allow-secret aws-access-key-id\n"
    )
    assert secret[4:] not in result.stdout + result.stderr
    assert snapshot(project) == before
