"""The notes-tree format: a `.agents/notes/` tree of topic folders and focused Markdown notes.

A note is one `*.md` file (a folder's `index.md` is not imported); `.pending/` holds observations
not yet filed. Its id is its path without `.md` ('/' becomes '.'), an observation's is derived
from its text. Its frontmatter (FIELDS, read leniently) may give its id, shard, tags and time;
other keys are named and left out, and a note whose own keys cannot be read is refused. Its
shard is the frontmatter's, else `--map TOPIC=SHARD`'s for its top topic folder, else that
folder's name when it is a shard, else the default; its topic folders become its tags.
"""

from __future__ import annotations

from pathlib import Path

from lean_harness.memory.intake.formats import frontmatter
from lean_harness.memory.intake.formats.records import (
    TIME_HINT,
    Problem,
    Reading,
    Record,
    key_from,
    read_source_text,
    tag_from,
    utc_time,
)

FIELDS = ("id", "shard", "tags", "created")
PENDING = ".pending"


def folder_of(source: Path) -> Path:
    """The notes folder: `source/.agents/notes` when it exists, else `source`."""
    inner = source / ".agents" / "notes"
    return inner if inner.is_dir() else source


def read(folder: Path, shown: str, reading: Reading) -> None:
    """Add the notes and observations under `folder` (shown as `shown`) to `reading`."""
    for path in sorted(folder.rglob("*.md")):
        parts = path.relative_to(folder).parts
        hidden = [p for p in parts[:-1] if p.startswith(".")]
        if path.name.startswith(".") or not path.is_file() or (hidden and hidden != [PENDING]):
            continue
        relative = "/".join(parts)
        text = read_source_text(path, f"{shown}/{relative}", reading, relative)
        if text is None or path.name.lower() == "index.md":
            continue
        topics = [p for p in parts[:-1] if p != PENDING]
        _note(text, f"{shown}/{relative}", topics, None if PENDING in parts else relative[:-3], reading)


def _note(text: str, shown: str, topics: list[str], path_key: str | None, reading: Reading) -> None:
    # Read leniently: a key a note may have (FIELDS steer its id, shard and time) must be read as
    # written, or the note is refused; any other key is named in a warning and left out.
    front = frontmatter.split(text, lenient=True)
    steering = {key.split(".")[0] for key in front.dropped} & set(FIELDS)
    unread = [Problem(shown, line, message) for line, message in front.problems]
    problems = unread if steering else []
    reading.warnings.extend(str(p) for p in unread if not steering)
    nested = sorted(k for k, v in front.fields.items() if k in FIELDS and not isinstance(v, str))
    problems += [Problem(shown, 1, f"{key} is a mapping; give it one value on its line") for key in nested]
    fields = {k: v for k, v in front.strings().items() if k in FIELDS}
    unknown = sorted(set(front.fields) - set(FIELDS))
    if unknown:
        reading.warnings.append(
            f"{shown}: frontmatter keys not imported (notes may have {', '.join(FIELDS)}): {', '.join(unknown)}"
        )
    created = utc_time(fields["created"]) if "created" in fields else None
    if "created" in fields and created is None:
        problems.append(Problem(shown, 1, f"created {fields['created']!r} is not a time; {TIME_HINT}"))
    key = fields.get("id") or (key_from(path_key.replace("/", ".")) if path_key else None)
    if problems:
        reading.problems += problems
        return
    tags = [t for t in (tag_from(topic) for topic in topics) if t] + fields.get("tags", "").split()
    reading.records.append(
        Record(
            shown,
            front.body,
            shard=fields.get("shard"),
            kind=topics[0] if topics else "",
            id=key,
            tags=tuple(tags),
            created=created,
        )
    )
