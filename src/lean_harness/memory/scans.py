"""Scans of memory files with a rule set: where findings are.

`by_entry` scans a shard entry by entry, so that an entry's allowance attribute
(`allow-secret`, `allow-directive`) silences those rules for that entry only; loose prose and
text that does not parse as a shard are scanned whole. Credentials (memory/leaks.py) and
directives (memory/directives.py) are both found this way.

Nothing here remembers a verdict: what is printed or written is scanned as it is (adr/0030).
`vouch` and `vouched` remain for the search cache (memory/search_cache.py), which still signs a
shard's clean verdict with the user's key until it is rewritten to scan what it prints.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lean_harness import userkey
from lean_harness.memory.shard import Entry, ShardError, parse
from lean_harness.scanning.finding import Finding

if TYPE_CHECKING:
    from typing import Protocol

    class Scanner(Protocol):
        """A rule set's scan: scanning.credentials.scan or scanning.directives.scan."""

        def __call__(self, text: str, *, allow: Iterable[str] = ()) -> Sequence[Finding]: ...


@dataclass(frozen=True, slots=True)
class Found:
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
    from lean_harness.scanning.masking import mask

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
        found = _STAMPS[scanner, record_name] = (
            f"lh-{record_name} " + hashlib.sha256(source + sys.version.encode()).hexdigest()
        )
    return found


def _source(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()
