"""Settings read from the environment (LH_LOCK_TIMEOUT, SOURCE_DATE_EPOCH): a bad value is an error."""

from __future__ import annotations

import os
import time

from lean_harness.errors import LhError

DEFAULT_LOCK_TIMEOUT = 10.0
MAX_LOCK_TIMEOUT = 24 * 3600.0


def lock_timeout() -> float:
    """Seconds a writer waits for the lock: LH_LOCK_TIMEOUT, or the default."""
    value = os.environ.get("LH_LOCK_TIMEOUT")
    if value is None or value == "":
        return DEFAULT_LOCK_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= MAX_LOCK_TIMEOUT:  # also refuses nan
        raise LhError(
            f"LH_LOCK_TIMEOUT={value[:40]!r} is not a number of seconds from 0 to {MAX_LOCK_TIMEOUT:g};"
            " set it to one (for instance 30) or unset it"
        )
    return seconds


def now_utc() -> str:
    """The creation time for new entries; SOURCE_DATE_EPOCH pins it for reproducible runs."""
    value = os.environ.get("SOURCE_DATE_EPOCH")
    if value is None or value == "":
        seconds = int(time.time())
    elif value.isascii() and value.isdigit() and len(value) <= 11:
        seconds = int(value)
    else:
        raise LhError(
            f"SOURCE_DATE_EPOCH={value[:40]!r} is not a number of seconds since 1970;"
            " set it to one (for instance 1767225600) or unset it"
        )
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
