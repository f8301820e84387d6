"""Directives in memory files: text that speaks as the system or the user, or overrides the agent.

Every write refuses such text (memory/rules.py, with the rules of scanning/directives.py); this finds what
reached a memory file another way: a hand edit, a merge, a pull. Shards are scanned entry by
entry, so that an entry's `allow-directive` attribute (`lh memory put --allow-directive RULE`)
silences that rule for that entry only; loose prose and files that do not parse as shards are
scanned whole. A scan of each whole file comes first; only a file it flags is scanned entry by
entry. Nothing is remembered between runs (adr/0030).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lean_harness.memory import scans
from lean_harness.memory.shard import Entry
from lean_harness.scanning import directives as directive_rules

Directive = scans.Found  # a directive's place in a file


def allowed(entry: Entry) -> tuple[str, ...]:
    """The injection rules an entry is allowed to trip."""
    return tuple(rule for rule in (entry.attr("allow-directive") or "").split(",") if rule)


def scan_text(text: str, shown: str) -> list[Directive]:
    """Every directive in a file's text; shards are scanned entry by entry."""
    return scans.by_entry(text, shown, directive_rules.scan, allowed)


def in_files(files: Mapping[Path, bytes], shown: Mapping[Path, str]) -> list[Directive]:
    """Every directive in the files, given as their bytes (named as in `shown`)."""
    texts = [(path, data.decode("utf-8", "replace")) for path, data in files.items()]
    return [d for path, text in texts if directive_rules.scan(text) for d in scan_text(text, shown[path])]
