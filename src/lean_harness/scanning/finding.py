"""A finding: what a scanner of text reports, credential (secret_scan) or directive (injection)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    """A match in scanned text: its rule, 1-based line and column, `start`/`end` of the value, a safe preview."""

    rule: str
    description: str
    line: int
    column: int
    start: int
    end: int
    preview: str
