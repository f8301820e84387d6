"""Remembered scan verdicts: a content a whole-file scan found clean is not scanned again.

A record under `<cacheDir>/lh/` holds a stamp of the scanner (its source and the Python running
it) and then the SHA-256 of every content that scanner found clean: the same bytes under the
same rules give the same verdict (adr/0023). Only digests of clean contents are kept, never
anything about a finding. A record that is missing, damaged or stamped by another scanner is
read as empty, and an unwritable cache only means scanning again next time.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from lean_harness.errors import LhError
from lean_harness.files import write_text


def flagged(
    paths: Sequence[Path], cache_dir: Path | None, record_name: str, scanner: str, finds: Callable[[bytes], bool]
) -> list[Path]:
    """The files whose whole content `finds` something in, remembering the clean ones under `record_name`.

    `scanner` is the path of the scanner's source, whose bytes stamp the record.
    """
    stamp = _stamp(scanner, record_name)
    record = cache_dir / "lh" / record_name if cache_dir is not None and stamp else None
    known = _read(record, stamp) if record is not None else frozenset()
    clean: set[str] = set()
    found: list[Path] = []
    for path in paths:
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest in known:
            clean.add(digest)
        elif finds(data):
            found.append(path)
        elif path != record:  # the record changes as it is written, so its own digest is never kept
            clean.add(digest)
    if record is not None and clean != known:
        try:
            write_text(record, f"{stamp}\n" + "".join(f"{digest}\n" for digest in sorted(clean)))
        except (OSError, LhError):
            pass  # scanned again next time
    return found


def _stamp(scanner: str, record_name: str) -> str:
    """What a clean verdict depends on besides the bytes: the rules' source and the Python running them."""
    try:
        with open(scanner, "rb") as handle:
            source = handle.read()
    except (OSError, TypeError):
        return ""  # no source to stamp: nothing is remembered
    return f"lh-{record_name} " + hashlib.sha256(source + sys.version.encode()).hexdigest()


def _read(record: Path, stamp: str) -> frozenset[str]:
    try:
        lines = record.read_text("ascii").splitlines()
    except (OSError, UnicodeDecodeError):
        return frozenset()
    if not lines or lines[0] != stamp:
        return frozenset()
    return frozenset(line for line in lines[1:] if len(line) == 64)
