"""A finding: what a scanner of text reports, credential (secret_scan) or directive (injection)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    """A match in scanned text: its rule, where it is (1-based line and column, `start`/`end`
    offsets of the matched value) and a preview safe to print."""

    rule: str
    description: str
    line: int
    column: int
    start: int
    end: int
    preview: str
