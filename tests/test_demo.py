"""lh demo: lh at work in a throwaway project."""

from __future__ import annotations

from pathlib import Path

from support import lh


def test_demo_runs_in_a_throwaway_project(tmp_path: Path) -> None:
    result = lh("demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "$ lh memory status" in result.stdout
    assert "# Project memory index" in result.stdout
    assert list(tmp_path.iterdir()) == []
