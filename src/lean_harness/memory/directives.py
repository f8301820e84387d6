"""Directives in memory files: text that speaks as the system or the user, or overrides the agent.

Every write refuses such text (memory/rules.py, with the rules of scanning/directives.py); this finds what
reached a memory file another way: a hand edit, a merge, a pull. Shards are scanned entry by
entry, so that an entry's `allow-directive` attribute (`lh memory put --allow-directive RULE`)
silences that rule for that entry only; loose prose and files that do not parse as shards are
scanned whole. A scan of each whole file comes first, and the contents it finds clean are
remembered (memory/scans.py), so an unchanged memory is not scanned again.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lean_harness.memory import scans
from lean_harness.memory.shard import Entry
from lean_harness.scanning import directives as directive_rules

CLEAN_NAME = "directive-clean"  # under <cacheDir>/lh/: digests of contents the whole-file scan found clean


Directive = scans.Found  # a directive's place in a file


def allowed(entry: Entry) -> tuple[str, ...]:
    """The injection rules an entry is allowed to trip."""
    return tuple(rule for rule in (entry.attr("allow-directive") or "").split(",") if rule)


def scan_text(text: str, shown: str) -> list[Directive]:
    """Every directive in a file's text; shards are scanned entry by entry."""
    return scans.by_entry(text, shown, directive_rules.scan, allowed)


def in_files(paths: Sequence[Path], shown: dict[Path, str], cache_dir: Path | None) -> list[Directive]:
    """Every directive in `paths` (named as in `shown`), scanning only contents not found clean before."""
    found = scans.flagged(paths, cache_dir, CLEAN_NAME, directive_rules.__file__, _finds)
    return [d for path in found for d in scan_text(path.read_bytes().decode("utf-8", "replace"), shown[path])]


def _finds(data: bytes) -> bool:
    return bool(directive_rules.scan(data.decode("utf-8", "replace")))
