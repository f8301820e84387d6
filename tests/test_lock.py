"""lock.py: a held lock times out with a clear error, a dead holder's lock does not block."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from support import lh, snapshot
from test_integrity import POSIX_ONLY, texts

MEMORY = ".agents/memory"


LOCK = ".agents/.cache/lh/write.lock"


HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(60)
"""


def hold_lock(root: Path) -> subprocess.Popen[str]:
    (root / LOCK).parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(root / LOCK)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    assert holder.stdout.readline() == "held\n"
    return holder


@POSIX_ONLY
def test_a_held_lock_times_out_with_a_clear_error_and_nothing_changes(project: Path) -> None:
    holder = hold_lock(project)
    try:
        before = snapshot(project)
        started = time.monotonic()
        result = lh("memory", "put", "seed", "waits for the lock", cwd=project, env={"LH_LOCK_TIMEOUT": "0.2"})
        assert time.monotonic() - started < 30
        assert result.returncode == 2
        assert result.stderr == (
            ".agents/.cache/lh/write.lock is held by another lh process; waited 0.2 s."
            " Try again when it finishes (LH_LOCK_TIMEOUT sets the wait)\n"
        )
        assert snapshot(project) == before
    finally:
        holder.kill()
        holder.communicate(timeout=30)


@POSIX_ONLY
def test_a_lock_held_by_a_killed_process_does_not_block(project: Path) -> None:
    holder = hold_lock(project)
    holder.send_signal(signal.SIGKILL)
    holder.communicate(timeout=30)
    result = lh("memory", "put", "seed", "after the holder died", cwd=project, env={"LH_LOCK_TIMEOUT": "5"})
    assert result.returncode == 0, result.stderr
    assert texts(project, "seed") == ["after the holder died"]
