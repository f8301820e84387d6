"""Scans of memory files with a rule set (credentials or directives): where findings are.

An entry's allowance attribute (`allow-secret`, `allow-directive`) silences its rules for that entry
only; nothing remembers a verdict between runs (adr/0030).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

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


def rule_list(value: str | None) -> tuple[str, ...]:
    """The rule names an allowance attribute's value lists: `allow-secret="aws-secret-key,jwt"`."""
    return tuple(rule for rule in (value or "").split(",") if rule)


def by_entry(text: str, shown: str, scan: Scanner, allowed: Callable[[Entry], Iterable[str]]) -> list[Found]:
    """Every finding in a file's text, in order of place; text that is not a shard is scanned whole.

    An entry's text is scanned without the rules it is `allowed`; its header values with every rule.
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
