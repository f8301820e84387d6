"""The layered-jsonl format: `memory/{plan,path,knowledge,lesson}.jsonl`, one event per line.

An event is `{"id", "text", "category"?, "tags"?, "refs"? or "source_refs"?, "created"?}`. An
id's entry is its last event's text, the union of its tags and references (which also end the
text as a `Sources:` line) and its earliest time. An id keeps its file's category: an event with
another is refused, an id in two files is refused whole. An unreadable event holds back every id
of its file, a bad field its own id (adr/0014-import-and-inbox.md). Categories go to shards by
CATEGORIES (`--map CATEGORY=SHARD`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lean_harness.memory.intake.formats.records import TIME_HINT, Problem, Reading, Record, read_source_text, utc_time

CATEGORIES = {"plan": "seed", "path": "conventions", "knowledge": "insights", "lesson": "corrections"}
FIELDS = ("id", "text", "category", "tags", "refs", "source_refs", "created")


@dataclass
class _Events:
    category: str
    where: str
    text: str = ""
    tags: list[str] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    broken: bool = False


def folder_of(source: Path) -> Path:
    """The folder that holds the category files: `source/memory` when it has them, else `source`."""
    inner = source / "memory"
    return inner if any((inner / f"{c}.jsonl").is_file() for c in CATEGORIES) else source


def read(folder: Path, shown: str, reading: Reading) -> None:
    """Add the effective entries of the event files in `folder` to `reading`."""
    events: dict[str, _Events] = {}
    moved: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for path in sorted(folder.glob("*.jsonl")):
        where = f"{shown}/{path.name}"
        if path.stem not in CATEGORIES:
            reading.warnings.append(f"{where}: not one of {', '.join(CATEGORIES)} (.jsonl); skipped")
            continue
        text = read_source_text(path, where, reading, path.name)
        unknown: dict[str, list[int]] = defaultdict(list)
        seen: set[str] = set()
        unreadable = False
        for number, line in enumerate((text or "").split("\n"), start=1):
            if line.strip():
                key = _event(line, path.stem, where, number, events, moved, unknown, reading)
                unreadable |= key is None
                seen.add(key or "")
        if unreadable:
            held = sorted(key for key in seen if key in events and not events[key].broken)
            for key in held:
                events[key].broken = True
            if held:
                reading.problems.append(
                    Problem(
                        where,
                        0,
                        f"{len(held)} id(s) held back until the lines above are fixed: a later event may change them",
                    )
                )
        for name, lines in sorted(unknown.items()):
            at = ", ".join(str(n) for n in lines[:5]) + (" ..." if len(lines) > 5 else "")
            reading.warnings.append(
                f"{where}: field {name!r} is not imported (line(s) {at}); fields are {', '.join(FIELDS)}"
            )
    for key, places in moved.items():
        item = events[key]
        item.broken = True
        for place in places:
            reading.problems.append(
                Problem(
                    *place,
                    f"id {key!r} is also in {item.category} ({item.where}); an id keeps one category:"
                    " give one of them a new id",
                )
            )
    for key, item in events.items():
        if item.broken:
            continue
        text = item.text + ("\n\nSources: " + ", ".join(item.refs) if item.refs else "")
        created = min(item.created) if item.created else None
        tags = tuple(sorted(set(item.tags)))
        reading.records.append(Record(item.where, text, kind=item.category, id=key, tags=tags, created=created))


def _event(
    line: str,
    category: str,
    shown: str,
    number: int,
    events: dict[str, _Events],
    moved: dict[str, list[tuple[str, int]]],
    unknown: dict[str, list[int]],
    reading: Reading,
) -> str | None:
    """Apply one event; the id it names, or None when the line names none that can be read."""
    try:
        value: Any = json.loads(line)
    except json.JSONDecodeError as error:
        reading.problems.append(Problem(shown, number, f"not valid JSON ({error.msg} at column {error.colno})"))
        return None
    if not isinstance(value, dict) or not isinstance(value.get("id"), str) or not value["id"]:
        reading.problems.append(Problem(shown, number, "expected a JSON object with id and text"))
        return None
    key: str = value["id"]
    item = events.setdefault(key, _Events(category, f"{shown}:{number}"))
    if item.category != category:
        moved[key].append((shown, number))
        return key
    for name in sorted(set(value) - set(FIELDS)):
        unknown[name].append(number)
    if message := _check(value, category):
        reading.problems.append(Problem(shown, number, message))
        item.broken = True
        return key
    item.where, item.text = f"{shown}:{number}", value["text"]
    item.tags += value.get("tags", [])
    for name in ("refs", "source_refs"):
        item.refs += [ref for ref in value.get(name, []) if ref not in item.refs]
    if value.get("created") is not None:
        item.created.append(str(utc_time(value["created"])))
    return key


def _check(value: dict[str, Any], category: str) -> str | None:
    if not isinstance(value.get("text"), str):
        return "text is a required string"
    if "category" in value and value["category"] != category:
        return (
            f"category {value['category']!r} differs from its file's ({category}); an id keeps one category:"
            " move the event to its category's file or give it a new id"
        )
    for name in ("tags", "refs", "source_refs"):
        items = value.get(name, [])
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            return f"{name} must be a list of strings"
    if value.get("created") is not None and utc_time(value["created"]) is None:
        return f"created {value['created']!r} is not a time; {TIME_HINT}"
    return None
