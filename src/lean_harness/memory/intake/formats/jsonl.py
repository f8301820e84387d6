"""The jsonl format: one JSON object per line, the form `lh memory export` writes.

Each line is `{"id"?, "shard", "text", "tags"?, "created"?, "updated"?, "allow_secret"?,
"allow_directive"?, "refs"?}`: lists of strings, times ISO 8601 with a zone. A reference is
`PATH#Lstart-end@DIGEST` as export writes it (kept, so a stale note stays stale), or
`PATH[#Lstart[-Lend]]`, anchored when imported. Any other field is a problem, so a typo never drops
data silently. Export writes shards in config order, entries in file order, keys in FIELDS order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from lean_harness.errors import LhError
from lean_harness.memory.evidence import evidence
from lean_harness.memory.intake.formats.records import TIME_HINT, Problem, Reading, Record, utc_time
from lean_harness.memory.scans import rule_list
from lean_harness.memory.shard import Entry

FIELDS = ("id", "shard", "text", "tags", "created", "updated", "allow_secret", "allow_directive", "refs")


def read(text: str, shown: str, reading: Reading) -> None:
    """Add the records of jsonl `text` (the file shown as `shown`) to `reading`."""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            reading.problems.append(Problem(shown, number, f"not valid JSON ({error.msg} at column {error.colno})"))
            continue
        record = _record(value, f"{shown}:{number}")
        if isinstance(record, str):
            reading.problems.append(Problem(shown, number, record))
        else:
            reading.records.append(record)


def _record(value: Any, where: str) -> Record | str:
    """The record on one line, or what is wrong with it."""
    if not isinstance(value, dict):
        return "expected a JSON object with shard and text"
    unknown = sorted(set(value) - set(FIELDS))
    if unknown:
        return f"unknown field {unknown[0]!r}; fields are {', '.join(FIELDS)}"
    shard, text, key = value.get("shard"), value.get("text"), value.get("id")
    if not isinstance(shard, str) or not isinstance(text, str):
        return "shard and text are required strings"
    if key is not None and not isinstance(key, str):
        return "id must be a string"
    lists = {name: value.get(name, []) for name in ("tags", "allow_secret", "allow_directive", "refs")}
    for name, items in lists.items():
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            return f"{name} must be a list of strings"
    times: dict[str, str | None] = {}
    for name in ("created", "updated"):
        times[name] = None if value.get(name) is None else utc_time(value[name])
        if value.get(name) is not None and times[name] is None:
            return f"{name} {value[name]!r} is not a time; {TIME_HINT}"
    extra: list[tuple[str, str]] = []
    if times["updated"]:
        extra.append(("updated", times["updated"]))
    for name in ("allow_secret", "allow_directive"):
        if lists[name]:
            extra.append((name.replace("_", "-"), ",".join(sorted(set(lists[name])))))
    if lists["refs"]:
        try:
            extra.append(("refs", evidence.from_items(lists["refs"], "refs")))
        except LhError as error:
            return error.message
    return Record(
        where, text, shard=shard, id=key, tags=tuple(lists["tags"]), created=times["created"], extra=tuple(extra)
    )


def lines(records: Iterable[dict[str, object]]) -> str:
    """jsonl text for records, one line each."""
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in records)


def record(shard: str, entry: Entry) -> dict[str, object]:
    """One entry as a jsonl record, keys in a fixed order."""
    row: dict[str, object] = {
        "id": entry.id,
        "shard": shard,
        "text": entry.text,
        "tags": list(entry.tags),
        "created": entry.created,
    }
    if updated := entry.attr("updated"):
        row["updated"] = updated
    for name in ("allow_secret", "allow_directive"):
        if allowed := rule_list(entry.attr(name.replace("_", "-"))):
            row[name] = list(allowed)
    if refs := (entry.attr("refs") or "").split():
        row["refs"] = refs
    return row
