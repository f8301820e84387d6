"""Split a Markdown memory file into notes: each top-level list item with its indented lines, or a
paragraph; headings, fences and horizontal rules are not notes. `section` keeps only the part of
the file under the first heading that contains the given words (to the next heading of its level)."""

from __future__ import annotations

import re

_ITEM = re.compile(r"^(?:[-*+]|\d+\.)\s+")


def section(text: str, words: str) -> str:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("#") and words in line)
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end = next(
        (
            i
            for i in range(start + 1, len(lines))
            if lines[i].startswith("#") and len(lines[i]) - len(lines[i].lstrip("#")) <= level
        ),
        len(lines),
    )
    return "\n".join(lines[start + 1 : end])


def split(text: str) -> list[str]:
    notes: list[list[str]] = []
    open_item = False
    for line in text.splitlines():
        bare = line.strip()
        if not bare or bare.startswith(("#", "---", "```")) or re.fullmatch(r"\*\*[^*]+\*\*:?", bare):
            open_item = False
            continue
        if _ITEM.match(line):
            notes.append([_ITEM.sub("", line)])
            open_item = True
        elif open_item and line[:1] in (" ", "\t"):
            notes[-1].append(bare)
        else:
            notes.append([bare])
            open_item = False
    return [" ".join(n).strip() for n in notes if " ".join(n).strip()]
