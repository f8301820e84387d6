"""The layered-jsonl format: `memory/{plan,path,knowledge,lesson}.jsonl`, one event per line.

An event is `{"id", "text", "tags"?, "refs"?, "created"?}`. The effective entry of an id is its
last event; its tags and its source references are the unions over all its events (the
references end the entry's text as a `Sources:` line) and its creation time is the earliest
given. An id lives in one category: the same id in two files is a problem. Categories go to
shards by CATEGORIES, which `lh memory import --map CATEGORY=SHARD` overrides.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lean_harness.interop.records import TIME_HINT, Problem, Reading, Record, read_source_text, utc_time

CATEGORIES = {"plan": "seed", "path": "conventions", "knowledge": "insights", "lesson": "corrections"}
FIELDS = ("id", "text", "tags", "refs", "created")


@dataclass
class _Events:
    category: str
    where: str
    text: str = ""
    tags: list[str] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)


def folder_of(source: Path) -> Path:
    """The folder that holds the category files: `source/memory` when it has them, else `source`."""
    inner = source / "memory"
    return inner if any((inner / f"{c}.jsonl").is_file() for c in CATEGORIES) else source


def read(folder: Path, shown: str, reading: Reading) -> None:
    """Add the effective entries of the event files in `folder` to `reading`."""
    events: dict[str, _Events] = {}
    for path in sorted(folder.glob("*.jsonl")):
        if path.stem not in CATEGORIES:
            reading.warnings.append(f"{shown}/{path.name}: not one of {', '.join(CATEGORIES)} (.jsonl); skipped")
            continue
        text = read_source_text(path, f"{shown}/{path.name}", reading, path.name)
        for number, line in enumerate((text or "").split("\n"), start=1):
            if line.strip():
                _event(line, path.stem, f"{shown}/{path.name}", number, events, reading)
    for key, item in events.items():
        text = item.text + ("\n\nSources: " + ", ".join(item.refs) if item.refs else "")
        created = min(item.created) if item.created else None
        tags = tuple(sorted(set(item.tags)))
        reading.records.append(Record(item.where, text, kind=item.category, id=key, tags=tags, created=created))


def _event(line: str, category: str, shown: str, number: int, events: dict[str, _Events], reading: Reading) -> None:
    try:
        value: Any = json.loads(line)
    except json.JSONDecodeError as error:
        reading.problems.append(Problem(shown, number, f"not valid JSON ({error.msg} at column {error.colno})"))
        return
    message = _check(value)
    if message:
        reading.problems.append(Problem(shown, number, message))
        return
    key = value["id"]
    item = events.setdefault(key, _Events(category, f"{shown}:{number}"))
    if item.category != category:
        reading.problems.append(
            Problem(
                shown,
                number,
                f"id {key!r} is also in {item.category} ({item.where}); an id keeps one category:"
                " give one of them a new id",
            )
        )
        return
    item.where, item.text = f"{shown}:{number}", value["text"]
    item.tags += value.get("tags", [])
    item.refs += [ref for ref in value.get("refs", []) if ref not in item.refs]
    if value.get("created") is not None:
        item.created.append(str(utc_time(value["created"])))


def _check(value: Any) -> str | None:
    if not isinstance(value, dict):
        return "expected a JSON object with id and text"
    unknown = sorted(set(value) - set(FIELDS))
    if unknown:
        return f"unknown field {unknown[0]!r}; fields are {', '.join(FIELDS)}"
    if not isinstance(value.get("id"), str) or not isinstance(value.get("text"), str):
        return "id and text are required strings"
    for name in ("tags", "refs"):
        items = value.get(name, [])
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            return f"{name} must be a list of strings"
    if value.get("created") is not None and utc_time(value["created"]) is None:
        return f"created {value['created']!r} is not a time; {TIME_HINT}"
    return None
