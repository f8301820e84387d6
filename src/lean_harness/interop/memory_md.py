"""The memory-md format: a folder with a MEMORY.md index of links and one Markdown file per memory.

Each memory file starts with frontmatter giving `name`, `description` and `type` (`user`,
`feedback`, `project` or `reference`), then a body that often carries **Why:** and **How to
apply:** lines. The name becomes the entry id (characters an id cannot hold become '-'), the
description the entry's first line and the body the rest. Types go to shards by TYPES, which
`lh memory import --map TYPE=SHARD` overrides. A link in MEMORY.md to a missing file is a
warning; every memory file in the folder is read, linked or not, so nothing is left behind.
"""

from __future__ import annotations

import re
from pathlib import Path

from lean_harness.interop import frontmatter
from lean_harness.interop.records import Problem, Reading, Record, key_from, read_source_text

INDEX = "MEMORY.md"
TYPES = {"user": "conventions", "feedback": "corrections", "project": "seed", "reference": "seed"}
FIELDS = ("name", "description", "type")
_LINK_RE = re.compile(r"\]\(([^)\s]+\.md)\)")


def read(folder: Path, shown: str, reading: Reading) -> None:
    """Add the memories in `folder` (shown as `shown`) to `reading`."""
    index = folder / INDEX
    text = read_source_text(index, f"{shown}/{INDEX}", reading, INDEX)
    for number, line in enumerate((text or "").split("\n"), start=1):
        for target in _LINK_RE.findall(line):
            if "://" not in target and not (folder / target).is_file():
                reading.warnings.append(f"{shown}/{INDEX}:{number}: links to {target}, which does not exist")
    for path in sorted(p for p in folder.iterdir() if p.suffix == ".md" and p.name != INDEX and p.is_file()):
        _read_memory(path, f"{shown}/{path.name}", reading)


def _read_memory(path: Path, shown: str, reading: Reading) -> None:
    text = read_source_text(path, shown, reading, path.name)
    if text is None:
        return
    front = frontmatter.split(text)
    if not front.present:
        reading.problems.append(
            Problem(shown, 1, "no frontmatter; a memory file starts with --- and name, description and type lines")
        )
        return
    problems = [Problem(shown, line, message) for line, message in front.problems]
    if problems and not front.fields:
        reading.problems += problems  # nothing was read from the block; its own problem says why
        return
    fields = front.fields
    for name in sorted(set(fields) - set(FIELDS)):
        problems.append(
            Problem(shown, 1, f"unknown frontmatter key {name!r}; memory files have name, description and type")
        )
    missing = [name for name in FIELDS if not fields.get(name)]
    if missing:
        problems.append(Problem(shown, 1, f"frontmatter lacks {', '.join(missing)}"))
    kind = fields.get("type", "")
    if kind and kind not in TYPES:
        problems.append(Problem(shown, 1, f"type {kind!r} is not one of {', '.join(TYPES)}"))
    key = key_from(fields.get("name", "")) if fields.get("name") else None
    if fields.get("name") and key is None:
        problems.append(Problem(shown, 1, f"name {fields['name']!r} gives no usable id; use letters or digits"))
    if problems or key is None:
        reading.problems += problems
        return
    body = front.body.strip("\n")
    entry_text = fields["description"] + ("\n\n" + body if body.strip() else "")
    reading.records.append(Record(shown, entry_text, kind=kind, id=key))
