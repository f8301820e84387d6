"""What a line of Markdown is: a heading, a list item, a code fence.

Loose prose in shards and MEMORY.md sections on import both read lines by these rules, after CommonMark.
"""

from __future__ import annotations

import re

_HEADING_RE = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_ITEM_RE = re.compile(r" {0,3}(?:[-*+]|\d+[.)])(?:[ \t]|$)")
_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})")


def is_heading(line: str) -> bool:
    """Whether `line` is an ATX heading."""
    return _HEADING_RE.match(line) is not None


def heading_text(line: str) -> str:
    """The words of a heading line, without its `#` marks."""
    return line.strip().lstrip("#").strip()


def is_item(line: str) -> bool:
    """Whether `line` starts a bulleted or numbered list item."""
    return _ITEM_RE.match(line) is not None


def fence_opened(line: str) -> str | None:
    """The fence `line` opens (three of its character), or None when it opens none."""
    match = _FENCE_RE.match(line)
    return match.group(1)[0] * 3 if match else None


def fence_closed(line: str, fence: str) -> bool:
    """Whether `line` closes the code block that `fence` opened."""
    return line.strip().startswith(fence)
