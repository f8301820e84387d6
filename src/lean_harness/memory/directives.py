"""Directives in memory files: text that speaks as the system or the user, or overrides the agent.

Every write refuses such text (memory/rules.py); this finds what reached a memory file another way (a
hand edit, a merge, a pull). Only a file whose whole text is flagged is scanned entry by entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lean_harness.memory import scans
from lean_harness.memory.shard import Entry
from lean_harness.scanning import directives as directive_rules

Directive = scans.Found  # a directive's place in a file


def allowed(entry: Entry) -> tuple[str, ...]:
    """The directive rules an entry is allowed to trip (its allow-directive attribute)."""
    return scans.rule_list(entry.attr("allow-directive"))


def in_files(files: Mapping[Path, bytes], shown: Mapping[Path, str]) -> list[Directive]:
    """Every directive in the files, given as their bytes (named as in `shown`), a flagged one entry by entry."""
    texts = [(path, data.decode("utf-8", "replace")) for path, data in files.items()]
    flagged = [(path, text) for path, text in texts if directive_rules.scan(text)]
    return [d for path, text in flagged for d in scans.by_entry(text, shown[path], directive_rules.scan, allowed)]
