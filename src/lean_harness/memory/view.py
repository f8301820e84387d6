"""What `lh memory get SHARD` prints, and so what reading a shard costs.

Each entry is printed as one block: a bracketed header with the day it was written and its
tags, then its text. The id is printed only where a command needs it (a digest's id for
`lh memory expand`; every id with `--ids`, for `lh memory put --id`). Loose prose
(memory/prose.py) is printed as it is, marked with the line it starts on so it can be
found again. Blocks are separated by a blank line.

The token figures lh reports for a shard are the sums of `cost` over these same blocks, so
they are what an agent pays to read it with `get` (adr/0020-prose-and-reading-costs.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from lean_harness.memory.shard import Entry

if TYPE_CHECKING:
    from lean_harness.memory.prose import Block

SEPARATOR = "\n\n"


def entry_header(entry: Entry, *, ids: bool = False) -> str:
    """The header of an entry as `get` prints it."""
    parts = [entry.created[:10]]
    if ids or entry.attr("sources") is not None:
        parts.insert(0, entry.id)
    parts += [f"#{tag}" for tag in entry.tags]
    return "[" + " ".join(parts) + "]"


def entry_block(entry: Entry, text: str | None = None, *, ids: bool = False) -> str:
    """An entry as `get` prints it (with `text` in place of its own, e.g. masked)."""
    return f"{entry_header(entry, ids=ids)}\n{entry.text if text is None else text}"


def prose_block(block: Block, text: str | None = None) -> str:
    """A block of loose prose as `get` prints it."""
    return f"[prose, line {block.line}]\n{block.text if text is None else text}"


def page(blocks: Sequence[str]) -> str:
    """The printed blocks as one text, ending with a newline."""
    return SEPARATOR.join(blocks) + "\n" if blocks else ""


def entry_cost(entry: Entry, counts: Callable[[list[str]], list[int]], text: str | None = None) -> int:
    """An entry's figure: the tokens its block adds to what `get` prints (with `text` in place of its own).

    The one count of an entry that put, status, INDEX.md, `get SHARD` and a query's header report;
    a shard's figure is the sum of its blocks' costs.
    """
    return costs([entry_block(entry, text)], counts)[0]


def costs(blocks: Sequence[str], counts: Callable[[list[str]], list[int]]) -> list[int]:
    """The tokens each printed block adds to a page, separator included."""
    return counts([block + SEPARATOR for block in blocks])
