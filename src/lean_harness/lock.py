"""An exclusive, bounded-wait lock on a file, released by the OS when its holder dies.

flock(2) on POSIX, msvcrt.locking on Windows. Readers take the lock shared (on POSIX; Windows has
exclusive locks only), so they wait for a writer but not for each other.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lean_harness.environment import lock_timeout
from lean_harness.errors import LhError


@contextmanager
def locked(path: Path, shown: str, timeout: float | None = None, *, shared: bool = False) -> Iterator[None]:
    """Hold the lock file at `path` for the duration of the block, waiting at most `timeout` seconds."""
    limit = lock_timeout() if timeout is None else timeout
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        if not shared:
            raise
        fd = -1
    if fd < 0:
        # A reader in a read-only checkout cannot write the caches the lock protects either.
        yield
        return
    try:
        deadline = time.monotonic() + limit
        delay = 0.001
        while not _try_lock(fd, shared):
            if time.monotonic() >= deadline:
                raise LhError(
                    f"{shown} is held by another lh process; waited {limit:g} s."
                    " Try again when it finishes (LH_LOCK_TIMEOUT sets the wait)"
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int, shared: bool) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int, shared: bool) -> bool:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
