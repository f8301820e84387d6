"""What `lh memory get SHARD` prints, and so what reading a shard costs.

Each entry is a block: a bracketed header (the id where a command needs it, the day, the tags), then
its text; loose prose is marked with the line it starts on. A shard's token figure is the sum of these
blocks' costs, what an agent pays to read it (adr/0020-prose-and-reading-costs.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from lean_harness.memory.shard import Entry

if TYPE_CHECKING:
    from lean_harness.memory.prose import Block

SEPARATOR = "\n\n"


def entry_block(entry: Entry, text: str | None = None, *, ids: bool = False) -> str:
    """An entry as `get` prints it (with `text` in place of its own, e.g. masked); a digest shows its id."""
    parts = [entry.id] if ids or entry.attr("sources") is not None else []
    parts += [entry.created[:10], *(f"#{tag}" for tag in entry.tags)]
    return f"[{' '.join(parts)}]\n{entry.text if text is None else text}"


def prose_block(block: Block, text: str | None = None) -> str:
    """A block of loose prose as `get` prints it."""
    return f"[prose, line {block.line}]\n{block.text if text is None else text}"


def page(blocks: Sequence[str]) -> str:
    """The printed blocks as one text, ending with a newline."""
    return SEPARATOR.join(blocks) + "\n" if blocks else ""


def entry_cost(entry: Entry, counts: Callable[[list[str]], list[int]], text: str | None = None) -> int:
    """An entry's one figure: the tokens its block adds to what `get` prints (with `text` in place of its own)."""
    return costs([entry_block(entry, text)], counts)[0]


def costs(blocks: Sequence[str], counts: Callable[[list[str]], list[int]]) -> list[int]:
    """The tokens each printed block adds to a page, separator included."""
    return counts([block + SEPARATOR for block in blocks])
