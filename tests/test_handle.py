"""memory/handle.py: the open memory, and what it says when there is none."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_harness.cli import main

MEMORY = ".agents/memory"


def put(*args: str) -> int:
    return main(["memory", "put", *args])


def test_missing_memory_dir_says_to_run_init(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path in sorted((project / MEMORY).iterdir()):
        path.unlink()
    (project / MEMORY).rmdir()
    capsys.readouterr()
    assert put("seed", "x") == 2
    assert capsys.readouterr().err == 'no memory directory at .agents/memory; run "lh init"\n'
