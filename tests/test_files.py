"""files.py: temp files, stale ones swept, and symlinked managed paths refused."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.files import remove_stale_temps
from support import snapshot

MEMORY = ".agents/memory"


def test_stale_temp_files_are_ignored_and_old_ones_removed_by_the_next_write(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project / MEMORY
    old = folder / ".failures.md.k2j4h5g6.tmp"
    old.write_bytes(b'<!-- lh:entry id="half" created="2026-01-01T00:00:00Z" -->\nhalf-wri')
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    fresh = folder / ".INDEX.md.a1b2c3d4.tmp"
    fresh.write_bytes(b"\xff\xfe not even UTF-8")
    theirs = folder / ".notes.tmp"  # not a name write_atomic makes: never touched
    theirs.write_bytes(b"mine")
    os.utime(theirs, (time.time() - 3600, time.time() - 3600))
    assert main(["memory", "index", "--check"]) == 0
    assert main(["memory", "status"]) == 0
    assert main(["memory", "get", "failures"]) == 0
    assert main(["memory", "put", "failures", "a write cleans up"]) == 0
    assert not old.exists()
    assert fresh.exists()
    assert theirs.exists()
    assert remove_stale_temps(folder, older_than=0) == [fresh]


@pytest.mark.parametrize("linked", [".agents", MEMORY, f"{MEMORY}/INDEX.md"])
def test_symlinked_managed_paths_are_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], linked: str
) -> None:
    path = project / linked
    target = tmp_path / "elsewhere"
    path.rename(target)
    path.symlink_to(target, target_is_directory=target.is_dir())
    before = snapshot(target) if target.is_dir() else {"": target.read_bytes()}
    before_project = snapshot(project)
    capsys.readouterr()
    for args in (["memory", "put", "seed", "x"], ["memory", "index"]):
        assert main(args) == 2
        assert capsys.readouterr().err == (
            f"{linked} is a symbolic link; lean-harness only manages real files."
            " Replace the link with the file or folder itself\n"
        )
    assert (snapshot(target) if target.is_dir() else {"": target.read_bytes()}) == before
    assert snapshot(project) == before_project
