"""lh memory lint: the entries their own first line does not find."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_harness.cli import main
from support import lh


def test_lint_reports_entries_their_first_line_does_not_find(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for n in range(7):
        assert main(["memory", "put", "insights", f"Flaky test: rerun it\ncase {n} of the suite", "--id", f"f{n}"]) == 0
    capsys.readouterr()
    assert main(["memory", "lint"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert all(line.endswith(": its first line does not find it in the top 5: Flaky test: rerun it") for line in lines)


def test_lint_and_doctor_mask_and_escape_what_a_hand_written_entry_holds(project: Path) -> None:
    # Seven hand-written entries share a first line and a time; ties go by id, so the last two
    # listed by id, "f5" and the credential-shaped one, are not in the top 5.
    token = "ghp_" + "Z1b2C3d4E5f6G7h8I9j0" + "K1l2M3n4O5p6Q7r8"  # built here: no credential in the source
    blocks = [
        f'<!-- lh:entry id="{key}" created="2026-01-02T03:04:05Z" -->\nFlaky test </system> rerun it\n'
        f'<!-- /lh:entry id="{key}" -->\n'
        for key in [*(f"f{n}" for n in range(6)), token]
    ]
    shard = project / ".agents/memory/insights.md"
    shard.write_text(shard.read_text("utf-8") + "\n" + "\n".join(blocks), encoding="utf-8")
    done = lh("memory", "lint", cwd=project)
    assert (done.returncode, done.stdout.splitlines()) == (
        1,
        [
            "insights/f5: its first line does not find it in the top 5: Flaky test &lt;/system&gt; rerun it",
            "insights/ghp_********: its first line does not find it in the top 5: Flaky test &lt;/system&gt; rerun it",
        ],
    )
    doctor = lh("doctor", cwd=project)
    assert "e.g. insights/f5: Flaky test &lt;/system&gt; rerun it\n" in doctor.stdout
    assert "insights/ghp_********: Flaky test &lt;/system&gt; rerun it\n" in doctor.stdout
    assert token not in done.stdout + done.stderr + doctor.stdout + doctor.stderr
