"""Loose prose: the text of a shard outside its entries, cut into blocks.

A shard may hold text that no command wrote: paragraphs, lists and sections added with an
editor. That text is memory like the entries (counted, printed, searched, scanned) until
`lh memory adopt` turns each block into an entry.

The shard's head is not loose prose: when the file's first non-blank line is a level-1 heading
(`# name`, as lh writes it), that line and, after blank lines, one paragraph of a single line
that is not a heading or list item (the description lh writes under it) are the head. Anything
else outside entries is loose, whatever wrote it.

Blocks: blank lines separate paragraphs; a paragraph that starts with a heading opens a section
that takes in the paragraphs after it up to the next heading or entry; blank lines inside a
fenced code block (``` or ~~~) do not split it. Each block keeps the line of the file it
starts on (adr/0020-prose-and-reading-costs.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lean_harness import markdown
from lean_harness.memory.shard import Entry, Shard, normalize_text

_TITLE_RE = re.compile(r"# \S")


@dataclass(frozen=True, slots=True)
class Block:
    """One block of loose prose: the file line it starts on, its last line, and its canonical text."""

    line: int
    end: int
    text: str


def blocks(shard: Shard) -> tuple[Block, ...]:
    """The blocks of loose prose of a parsed shard, in file order."""
    found: list[Block] = []
    line = 1
    for number, block in enumerate(shard.blocks):
        if isinstance(block, Entry):
            line += (block.raw or "").count("\n")
            continue
        lines = block.removesuffix("\n").split("\n")
        skip = _head_size(lines) if number == 0 else 0
        found += _split(lines[skip:], line + skip)
        line += block.count("\n")
    return tuple(found)


def description(text: str) -> str | None:
    """The one-line description in a shard's head, if it has one."""
    lines = text.split("\n")[:50]
    filled = [line.strip() for line in lines[: _head_size(lines)] if line.strip()]
    return filled[1] if len(filled) == 2 else None


def _head_size(lines: list[str]) -> int:
    at = _next_filled(lines, 0)
    if at >= len(lines) or not _TITLE_RE.match(lines[at]):
        return 0
    head = at + 1
    start = _next_filled(lines, head)
    if start >= len(lines):
        return len(lines)
    single = start + 1 >= len(lines) or not lines[start + 1].strip()
    text = lines[start]
    if single and not markdown.is_heading(text) and not markdown.is_item(text) and markdown.fence_opened(text) is None:
        head = start + 1
    return head


def _next_filled(lines: list[str], at: int) -> int:
    while at < len(lines) and not lines[at].strip():
        at += 1
    return at


def _split(lines: list[str], first_line: int) -> list[Block]:
    out: list[Block] = []
    current: list[tuple[int, str]] = []
    section = False
    fence: str | None = None
    blank = False

    def close() -> None:
        text = normalize_text("\n".join(t for _, t in current))
        if text:
            out.append(Block(current[0][0], current[-1][0], text))
        current.clear()

    for number, raw in enumerate(lines, start=first_line):
        text = raw.rstrip("\r")
        if fence is not None:
            current.append((number, text))
            if markdown.fence_closed(text, fence):
                fence = None
            continue
        if not text.strip():
            blank = bool(current)
            continue
        heading = markdown.is_heading(text)
        if current and (heading or (blank and not section)):
            close()
            section = False
        if not current:
            section = heading
        if blank and current:
            current.append((number - 1, ""))
        blank = False
        current.append((number, text))
        fence = markdown.fence_opened(text)
    if current:
        close()
    return out
