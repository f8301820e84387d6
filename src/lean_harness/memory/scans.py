"""Scans of memory files with a rule set: where findings are, and which contents were clean.

`by_entry` scans a shard entry by entry, so that an entry's allowance attribute
(`allow-secret`, `allow-directive`) silences those rules for that entry only; loose prose and
text that does not parse as a shard are scanned whole. Credentials (memory/leaks.py) and
directives (memory/directives.py) are both found this way.

`flagged` remembers verdicts: a record under `<cacheDir>/lh/` holds a stamp of the scanner (its
source and the Python running it), the user's signature of the rest (userkey.py: a repository
can hold a cache folder, never a record this user's lh signed; adr/0028), and then the SHA-256
of every content that scanner found clean: the same bytes under the same rules give the same
verdict (adr/0023). Only digests of clean contents are kept, never anything about a finding. A
record that is missing, damaged, unsigned or stamped by another scanner is read as empty, and
an unwritable cache only means scanning again next time.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from lean_harness import digests, userkey
from lean_harness.errors import LhError
from lean_harness.files import write_text
from lean_harness.memory.shard import Entry, ShardError, parse
from lean_harness.scanning.finding import Finding
from lean_harness.values import Value

TYPE_CHECKING = False  # importing typing costs a command's start-up (adr/0025)
if TYPE_CHECKING:
    from typing import Protocol

    class Scanner(Protocol):
        """A rule set's scan: scanning.credentials.scan or scanning.directives.scan."""

        def __call__(self, text: str, *, allow: Iterable[str] = ()) -> Sequence[Finding]: ...


class Found(Value):
    """A finding in a file: where (1-based line and column), which rule, a preview safe to print, and its entry."""

    path: str
    line: int
    column: int
    rule: str
    description: str
    preview: str
    entry: str | None = None  # the entry's id, redacted: an id may itself be a credential


def by_entry(text: str, shown: str, scan: Scanner, allowed: Callable[[Entry], Iterable[str]]) -> list[Found]:
    """Every finding in a file's text named `shown`, in order of place.

    An entry's text is scanned with the rules it is `allowed` to trip left out; its header values
    (id, tags, attributes) are scanned with every rule, as line 0, column 1 of the entry.
    """
    from lean_harness.scanning import mask  # remembered verdicts are read without the scanner

    try:
        shard = parse(text, shown)
    except ShardError:
        return [_found(shown, f, 0) for f in scan(text)]
    found: list[Found] = []
    offset_line = 0
    for block in shard.blocks:
        if isinstance(block, str):
            found += [_found(shown, f, offset_line) for f in scan(block)]
            offset_line += block.count("\n")
            continue
        key = mask(block.id)
        header = " ".join([block.id, *block.tags, *(value for _, value in block.extra)])
        found += [Found(shown, block.line, 1, f.rule, f.description, f.preview, key) for f in scan(header)]
        # The text starts on the line after the header: its line 1 is the header's line + 1.
        found += [_found(shown, f, block.line, key) for f in scan(block.text, allow=allowed(block))]
        offset_line += (block.raw or "").count("\n")
    return sorted(found, key=lambda f: (f.path, f.line, f.column, f.rule))


def _found(shown: str, finding: Finding, line_offset: int, entry: str | None = None) -> Found:
    return Found(
        shown, finding.line + line_offset, finding.column, finding.rule, finding.description, finding.preview, entry
    )


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
        digest = digests.sha256(data)
        if digest in known:
            clean.add(digest)
        elif finds(data):
            found.append(path)
        elif path != record:  # the record changes as it is written, so its own digest is never kept
            clean.add(digest)
    if record is not None and clean != known:
        listing = "".join(f"{digest}\n" for digest in sorted(clean))
        signature = userkey.sign(f"{stamp}\n{listing}")
        try:
            if signature is not None:
                write_text(record, f"{stamp}\n{signature}\n{listing}")
        except (OSError, LhError):
            pass  # scanned again next time
    return found


def vouch(digest: str, record_name: str, scanner: str) -> str:
    """The user's signature that the content of `digest` was found clean, as a record of
    `record_name` holding that one digest is signed; "" when nothing can be signed."""
    stamp = _stamp(scanner, record_name)
    return (userkey.sign(f"{stamp}\n{digest}\n") or "") if stamp else ""


def vouched(digest: str, signature: str, record_name: str, scanner: str) -> bool:
    """Whether `signature` is this user's `vouch` for `digest` under this scanner as it is now."""
    stamp = _stamp(scanner, record_name)
    return bool(stamp and signature) and userkey.signed(f"{stamp}\n{digest}\n", signature)


_STAMPS: dict[tuple[str, str], str] = {}

# The credential scanner's source (scanning/credentials.py), found beside the package's modules, so that a
# verdict on it is checked without importing its rules.
CREDENTIALS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scanning", "credentials.py")


# Modules beside a scanner whose code decides what it finds: which texts each rule runs on.
_SCANNER_PARTS = ("engine.py", "finding.py", "fold.py")


def _stamp(scanner: str, record_name: str) -> str:
    """What a clean verdict depends on besides the bytes: the rules' source, the source of the
    modules they run on (`_SCANNER_PARTS`, beside the scanner), and the Python running them."""
    found = _STAMPS.get((scanner, record_name))
    if found is None:
        try:
            folder = os.path.dirname(scanner)
            source = b"".join(_source(path) for path in [scanner, *(os.path.join(folder, p) for p in _SCANNER_PARTS)])
        except (OSError, TypeError):
            return ""  # no source to stamp: nothing is remembered
        found = _STAMPS[scanner, record_name] = f"lh-{record_name} " + digests.sha256(source + sys.version.encode())
    return found


def _source(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _read(record: Path, stamp: str) -> frozenset[str]:
    try:
        head, signature, listing = record.read_text("ascii").split("\n", 2)
    except (OSError, UnicodeDecodeError, ValueError):
        return frozenset()
    if head != stamp or not userkey.signed(f"{stamp}\n{listing}", signature):
        return frozenset()
    return frozenset(line for line in listing.split("\n") if len(line) == 64)
