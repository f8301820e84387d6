"""Directives in memory files: text that speaks as the system or the user, or overrides the agent.

Every write refuses such text (memory/rules.py, with the rules of injection.py); this finds what
reached a memory file another way: a hand edit, a merge, a pull. Shards are scanned entry by
entry, so that an entry's `allow-directive` attribute (`lh memory put --allow-directive RULE`)
silences that rule for that entry only; loose prose and files that do not parse as shards are
scanned whole. A scan of each whole file comes first, and the contents it finds clean are
remembered (memory/scans.py), so an unchanged memory is not scanned again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lean_harness import injection
from lean_harness.memory import scans
from lean_harness.memory.shard import Entry
from lean_harness.secret_scan import redact

CLEAN_NAME = "directive-clean"  # under <cacheDir>/lh/: digests of contents the whole-file scan found clean


@dataclass(frozen=True)
class Directive:
    """A directive in a file: where, which rule, and an escaped preview."""

    path: str
    line: int
    column: int
    rule: str
    description: str
    preview: str
    entry: str | None = None


def allowed(entry: Entry) -> tuple[str, ...]:
    """The injection rules an entry is allowed to trip."""
    return tuple(rule for rule in (entry.attr("allow-directive") or "").split(",") if rule)


def scan_text(text: str, shown: str) -> list[Directive]:
    """Every directive in a file's text; shards are scanned entry by entry."""
    found = [
        _directive(shown, f, lines, None if key is None else redact(key))  # an id may itself be a credential
        for f, lines, key in scans.by_entry(text, shown, injection.scan, allowed)
    ]
    return sorted(found, key=lambda d: (d.path, d.line, d.column, d.rule))


def in_files(paths: Sequence[Path], shown: dict[Path, str], cache_dir: Path | None) -> list[Directive]:
    """Every directive in `paths` (named as in `shown`), scanning only contents not found clean before."""
    found = scans.flagged(paths, cache_dir, CLEAN_NAME, injection.__file__, _finds)
    return [d for path in found for d in scan_text(path.read_bytes().decode("utf-8", "replace"), shown[path])]


def _finds(data: bytes) -> bool:
    return bool(injection.scan(data.decode("utf-8", "replace")))


def _directive(shown: str, finding: injection.Finding, line_offset: int, entry: str | None = None) -> Directive:
    return Directive(
        shown, finding.line + line_offset, finding.column, finding.rule, finding.description, finding.preview, entry
    )
